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
revoke all on function kb_assistants_state() from public;
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
revoke all on function kb_assistant_pages(p_with_text boolean) from public;
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
revoke all on function admin_set_assistants(p_enabled boolean) from public;
grant execute on function admin_set_assistants(p_enabled boolean) to authenticated, service_role;
