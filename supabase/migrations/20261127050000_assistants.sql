-- What coding assistants read: the MCP server (/mcp) and the llms.txt index (/llms.txt, /llms-full.txt).
--
-- kb_settings.assistants_enabled: the console's switch for both (null = on, the default: the same pages are
-- already public through the widget). A separate column and two functions of their own instead of new keys
-- in kb_set_settings / kb_get_settings, so that neither of those (nor their callers) changes.
--
-- kb_assistant_pages: the enabled, ready documents as llms.txt lists them, with their text on request, and a
-- version that changes whenever ingestion or a sync changes a document (its checksum or update time) or a
-- document is added, removed, enabled or disabled. The API keys its cache and ETag on that version, so the
-- files are regenerated after every ingestion or sync without anyone telling the server.

alter table kb_settings add column if not exists assistants_enabled boolean;

create or replace function kb_assistants_state()
returns table (enabled boolean, version text)
language sql
stable
security definer
set search_path = public, extensions, pg_temp
as $$
  select
    coalesce((select s.assistants_enabled from kb_settings s where s.id), true),
    md5(coalesce(string_agg(d.id::text || ':' || coalesce(d.checksum, '') || ':' || d.updated_at::text, ',' order by d.id), ''))
  from kb_documents d
  where d.enabled and d.status = 'ready';
$$;
comment on function kb_assistants_state() is
  'Whether the MCP server and llms.txt are on (the console''s switch; on unless set off) and a version of the enabled, ready documents that changes with every ingestion or sync: the ETag of /llms.txt. Called with the anon key.';
revoke all on function kb_assistants_state() from public, anon, authenticated;
grant execute on function kb_assistants_state() to anon, authenticated, service_role;

create or replace function kb_assistant_pages(p_with_text boolean)
returns table (document_id uuid, title text, url text, description text, section text, chunks text[])
language sql
stable
security definer
set search_path = public, extensions, pg_temp
as $$
  select d.id, d.name,
    coalesce(d.meta ->> 'url', (select c.meta ->> 'url' from kb_chunks c where c.document_id = d.id order by c.position limit 1)),
    left(coalesce(d.meta ->> 'description', ''), 500),
    d.meta ->> 'section',
    case when p_with_text then (
      select array_agg(c.content order by c.position) from kb_chunks c where c.document_id = d.id
    ) end
  from kb_documents d
  where d.enabled and d.status = 'ready'
  order by coalesce(d.meta ->> 'url', d.source), d.id
  limit 5000;
$$;
comment on function kb_assistant_pages(p_with_text boolean) is
  'The enabled, ready documents with title, URL, description and section, and with p_with_text their chunks'' text in order: what /llms.txt and /llms-full.txt list. Public like the pages themselves. Called with the anon key.';
revoke all on function kb_assistant_pages(p_with_text boolean) from public, anon, authenticated;
grant execute on function kb_assistant_pages(p_with_text boolean) to anon, authenticated, service_role;

create or replace function admin_set_assistants(p_enabled boolean)
returns boolean
language plpgsql
security definer
set search_path = public, extensions, pg_temp
as $$
begin
  perform kb_assert_admin();
  update kb_settings s set assistants_enabled = p_enabled, updated_at = now(), updated_by = auth.uid() where s.id;
  return coalesce(p_enabled, true);
end;
$$;
comment on function admin_set_assistants(p_enabled boolean) is
  'Turns the MCP server and llms.txt on or off (null: back to the default, on); returns whether they are on. Called by the console with an admin''s JWT.';
revoke all on function admin_set_assistants(p_enabled boolean) from public, anon, authenticated;
grant execute on function admin_set_assistants(p_enabled boolean) to authenticated, service_role;

-- The console shows which questions came through /mcp: admin_list_conversations gains a last column,
-- `channel` ('mcp', else null for the widget), read from the answer's meta, which only the server writes
-- (chat_finish_turn needs its answer write key). A new result column changes the function's type, so it is
-- dropped and created again, with its grants and comment; the body is otherwise the one before.
drop function if exists admin_list_conversations(text, text, timestamptz, timestamptz, integer, integer);
create function admin_list_conversations(p_rating text, p_outcome text, p_from timestamptz, p_to timestamptz, p_limit integer, p_offset integer)
 returns table(message_id uuid, session_id uuid, visitor text, question text, asked_at timestamp with time zone, answer text, kind text, reason text, citations jsonb, confidence text, mode text, rating smallint, comment text, generated jsonb, total bigint, channel text)
 language plpgsql
 stable security definer
 set search_path = public, extensions, pg_temp
as $function$
begin
  perform kb_assert_admin();
  perform kb_page_bounds(p_limit, p_offset);
  if p_rating is null or p_rating not in ('any', 'up', 'down', 'none')
     or p_outcome is null or p_outcome not in ('any', 'answered', 'refused') then
    raise exception 'rating must be any, up, down or none; outcome any, answered or refused'
      using errcode = 'invalid_parameter_value';
  end if;
  return query
    select a.id, s.id, kb_visitor_id(s.user_id), u.content, u.created_at,
      left(a.content, 4000),
      case when a.meta ->> 'kind' = 'refusal' then 'refusal' else 'answer' end,
      case when jsonb_typeof(a.meta -> 'reason') = 'string' then a.meta ->> 'reason' end,
      case when jsonb_typeof(a.citations) = 'array' then (
        select coalesce(jsonb_agg(kb_shown_citation(c.value) order by c.ordinality), '[]'::jsonb)
        from jsonb_array_elements(a.citations) with ordinality c
        where jsonb_typeof(c.value) = 'object'
      ) else '[]'::jsonb end,
      case when a.meta ->> 'confidence' in ('high', 'medium', 'low') and jsonb_typeof(a.meta -> 'confidence') = 'string'
        then a.meta ->> 'confidence' end,
      case when a.meta ->> 'mode' in ('hybrid', 'vector', 'lexical') and jsonb_typeof(a.meta -> 'mode') = 'string'
        then a.meta ->> 'mode' end,
      f.rating, f.comment,
      case when jsonb_typeof(a.meta -> 'generated' -> 'text') = 'string' and jsonb_typeof(a.meta -> 'generated' -> 'model') = 'string'
        then jsonb_build_object('text', left(a.meta -> 'generated' ->> 'text', 4000), 'model', left(a.meta -> 'generated' ->> 'model', 200))
      end,
      count(*) over (),
      case when a.meta ->> 'channel' = 'mcp' then 'mcp' end
    from chat_messages a
    join chat_messages u on u.id = a.reply_to
    join chat_sessions s on s.id = a.session_id
    left join chat_feedback f on f.message_id = a.id
    where a.role = 'assistant'
      and (p_from is null or u.created_at >= p_from)
      and (p_to is null or u.created_at < p_to)
      and (p_outcome = 'any' or (p_outcome = 'refused') = (a.meta ->> 'kind' is not distinct from 'refusal'))
      and (p_rating = 'any' or (p_rating = 'up' and f.rating = 1) or (p_rating = 'down' and f.rating = -1)
           or (p_rating = 'none' and f.rating is null))
    order by u.created_at desc, a.id
    limit p_limit offset p_offset;
end;
$function$;
comment on function admin_list_conversations(p_rating text, p_outcome text, p_from timestamptz, p_to timestamptz, p_limit integer, p_offset integer) is
  'A page of questions with their answers, ratings and comments, filtered by rating, outcome and dates, with the total count and the channel (mcp, else null: the widget). Called by the console with an admin''s JWT.';
revoke all on function admin_list_conversations(p_rating text, p_outcome text, p_from timestamptz, p_to timestamptz, p_limit integer, p_offset integer) from public, anon, authenticated;
grant execute on function admin_list_conversations(p_rating text, p_outcome text, p_from timestamptz, p_to timestamptz, p_limit integer, p_offset integer) to authenticated, service_role;
