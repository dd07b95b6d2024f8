-- Answers are written by the server only. On Supabase the Worker calls the chat's write functions with the
-- visitor's own JWT (so auth.uid() and RLS apply), which means a visitor holding that JWT and the public anon
-- key could call them too, over PostgREST, with any content, citations and meta for their own question: a
-- forged answer with "high" confidence and attacker links in the console's Conversations, a non-numeric
-- meta.evidence that made admin_overview fail, a non-numeric similarity that broke the Conversations page, a
-- written answer "by" any model name in extractive mode.
--
-- The server now proves it is the writer with a narrow credential, the answer write key: a random string the
-- server holds (Node: kept in KB_DATA_DIR; Workers: the KB_ANSWER_WRITE_KEY secret). The database keeps only
-- its SHA-256, in a table no API role can read. It is not the service-role key, which bypasses every RLS
-- rule: the functions below still run as the visitor, with every check and bound they had, and refuse unless
-- the key's hash matches. Until a key is set they refuse everything (fail closed) and say how to set one.
--
-- Which functions take the key: those whose rows the console shows as the server's word — the answer
-- (chat_finish_turn), the count of a refused question (record_content_gap) and the written answer
-- (chat_save_generated). chat_begin_turn (the visitor's question) and chat_set_feedback (the visitor's own
-- rating of their own answer) store the visitor's word and stay callable by them, as before.
--
-- Also: the console's SQL reads what is stored defensively (at the end of this file). Rows written before
-- this migration may hold anything the old functions accepted.

-- ── The key's hash: one row, readable by no API role ─────────────────────────────────────────────────────
create table kb_answer_write_key (
  id boolean primary key default true check (id),
  key_hash text not null check (key_hash ~ '^[0-9a-f]{64}$'),
  set_at timestamptz not null default now()
);
alter table kb_answer_write_key enable row level security;
-- No policies and no privileges, not even for service_role (it sets the hash through the function below and
-- has no reason to read it back).
revoke all on kb_answer_write_key from public, anon, authenticated, service_role;

-- Sets (or replaces: a rotation) the hash of the answer write key. service_role only: `npm run admin --
-- answer-key` calls it with SUPABASE_SERVICE_ROLE_KEY; the embedded server calls it as the database owner at
-- start. The key itself never reaches this function, only its SHA-256 (lowercase hex).
create function kb_set_answer_write_key(p_key_hash text)
returns void
language plpgsql security definer
set search_path = public, extensions, pg_temp
as $$
begin
  if p_key_hash is null or p_key_hash !~ '^[0-9a-f]{64}$' then
    raise exception 'kb_set_answer_write_key takes the SHA-256 of the key as 64 lowercase hex digits'
      using errcode = 'invalid_parameter_value';
  end if;
  insert into kb_answer_write_key (id, key_hash) values (true, p_key_hash)
  on conflict (id) do update set key_hash = excluded.key_hash, set_at = now();
end;
$$;

-- Raises insufficient_privilege unless sha256(p_key) is the stored hash. Definer, so the write functions
-- (definers themselves) and nobody else read the table; not granted to any API role.
create function kb_assert_answer_writer(p_key text)
returns void
language plpgsql stable security definer
set search_path = public, extensions, pg_temp
as $$
declare
  v_hash text;
begin
  select k.key_hash into v_hash from kb_answer_write_key k;
  if v_hash is null then
    raise exception 'answers are written by the server only, and no answer write key is set: on Supabase run `npm run admin -- answer-key` with SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY, then `wrangler secret put KB_ANSWER_WRITE_KEY` (docs/deploy.md)'
      using errcode = 'insufficient_privilege';
  end if;
  if p_key is null or encode(sha256(convert_to(p_key, 'UTF8')), 'hex') <> v_hash then
    raise exception 'answers are written by the server only: the answer write key is missing or wrong'
      using errcode = 'insufficient_privilege';
  end if;
end;
$$;

-- ── The write functions, each with the key first and otherwise as before ─────────────────────────────────
-- New signatures: the old ones are dropped, so no caller without the key remains (PostgREST picks a function
-- by its argument names; a call without p_write_key finds nothing).
drop function chat_finish_turn(uuid, uuid, text, jsonb, jsonb);
drop function record_content_gap(text, text, uuid);
drop function chat_save_generated(uuid, text, text);

-- As 20261125000000: one answer per question (a race returns the first one's id), only to the caller's own
-- question in that same session, bounded content, citations and meta.
create function chat_finish_turn(
  p_session_id uuid,
  p_reply_to uuid,
  p_content text,
  p_citations jsonb,
  p_meta jsonb,
  p_write_key text
)
returns uuid
language plpgsql security definer
set search_path = public, extensions, pg_temp
as $$
declare
  v_user uuid := auth.uid();
  v_id uuid;
begin
  -- First: a caller without the key learns nothing else (not even whether a message id is theirs).
  perform kb_assert_answer_writer(p_write_key);
  if v_user is null then
    raise exception 'chat_finish_turn needs a signed-in user' using errcode = 'insufficient_privilege';
  end if;
  if not exists (
    select 1 from chat_messages u join chat_sessions s on s.id = u.session_id
    where u.id = p_reply_to and u.role = 'user' and u.session_id = p_session_id and s.user_id = v_user
  ) then
    raise exception 'message % is not a question of this user in session %', p_reply_to, p_session_id
      using errcode = 'insufficient_privilege';
  end if;
  if p_content is null or char_length(p_content) > 32000
     or (p_citations is not null and (jsonb_typeof(p_citations) <> 'array' or pg_column_size(p_citations) > 65536))
     or (p_meta is not null and (jsonb_typeof(p_meta) <> 'object' or pg_column_size(p_meta) > 65536)) then
    raise exception 'an answer is at most 32000 characters, citations a JSON array and meta a JSON object of at most 64 KB each'
      using errcode = 'invalid_parameter_value';
  end if;
  insert into chat_messages (session_id, role, content, citations, reply_to, meta)
  values (p_session_id, 'assistant', p_content, p_citations, p_reply_to, coalesce(p_meta, '{}'::jsonb))
  on conflict (reply_to) do nothing
  returning id into v_id;
  if v_id is null then
    select m.id into v_id from chat_messages m where m.reply_to = p_reply_to;
  end if;
  return v_id;
end;
$$;

-- As 20261125000000: a known reason, a bounded question, the caller's own question, counted once per message.
create function record_content_gap(p_question text, p_reason text, p_message_id uuid, p_write_key text)
returns void
language plpgsql security definer
set search_path = public, extensions, pg_temp
as $$
declare
  v_key text;
begin
  perform kb_assert_answer_writer(p_write_key);
  if p_reason is null or p_reason not in ('no_evidence', 'empty_kb')
     or char_length(coalesce(p_question, '')) not between 1 and 2000 or p_message_id is null then
    raise exception 'record_content_gap: reason must be no_evidence or empty_kb, the question 1–2000 characters'
      using errcode = 'invalid_parameter_value';
  end if;
  v_key := lower(regexp_replace(trim(p_question), '\s+', ' ', 'g'));
  -- A visitor counts only their own stored questions (the service role, without a user, any).
  if auth.uid() is not null and not exists (
    select 1 from chat_messages m join chat_sessions s on s.id = m.session_id
    where m.id = p_message_id and m.role = 'user' and s.user_id = auth.uid()
  ) then
    raise exception 'message % is not a question of this user', p_message_id using errcode = 'insufficient_privilege';
  end if;
  insert into content_gaps (question_key, question, reason, asked)
  values (v_key, left(p_question, 500), p_reason, 0)
  on conflict (question_key) do nothing;
  insert into content_gap_messages (message_id, question_key) values (p_message_id, v_key)
  on conflict (message_id) do nothing;
  if not found then
    return; -- this message was counted already
  end if;
  update content_gaps g
  set asked = g.asked + 1, last_asked_at = now(), question = left(p_question, 500), reason = p_reason
  where g.question_key = v_key;
end;
$$;

-- As 20261125040000: the caller's own answer (not a refusal), bounded, every [n] one of its citations, the
-- first one stays. Whether the answer mode in effect is generative and the model the configured one is
-- decided by the server before it calls (the server's default mode is not in the database); the key is what
-- keeps a visitor from calling this without the server.
create function chat_save_generated(p_message_id uuid, p_text text, p_model text, p_write_key text)
returns jsonb
language plpgsql security definer
set search_path = public, extensions, pg_temp
as $$
declare
  v_user uuid := auth.uid();
  v_meta jsonb;
  v_citations jsonb;
  v_marker text[];
begin
  perform kb_assert_answer_writer(p_write_key);
  if v_user is null then
    raise exception 'chat_save_generated needs a signed-in user' using errcode = 'insufficient_privilege';
  end if;
  if p_text is null or char_length(btrim(p_text)) not between 1 and 8000
     or p_model is null or char_length(p_model) not between 1 and 200 then
    raise exception 'text must be 1 to 8000 characters and model 1 to 200' using errcode = 'invalid_parameter_value';
  end if;
  select m.meta, m.citations into v_meta, v_citations
  from chat_messages m join chat_sessions s on s.id = m.session_id
  where m.id = p_message_id and m.role = 'assistant' and s.user_id = v_user
    and coalesce(m.meta ->> 'kind', 'answer') = 'answer'
  for update of m;
  if not found then
    raise exception 'message % is not an answer of this user', p_message_id using errcode = 'insufficient_privilege';
  end if;
  if v_meta ? 'generated' then
    return v_meta -> 'generated';
  end if;
  -- Every number of every marker, `[2]` as well as a list such as `[1, 2]`.
  for v_marker in select regexp_matches(p_text, '\[\s*(\d{1,4}(?:\s*[,;]\s*\d{1,4})*)\s*\]', 'g') loop
    if exists (
      select 1 from regexp_split_to_table(v_marker[1], '\s*[,;]\s*') n
      where not exists (
        select 1 from jsonb_array_elements(coalesce(v_citations, '[]'::jsonb)) c where (c ->> 'n')::text = ltrim(n, '0')
      )
    ) then
      raise exception 'text cites [%], which is not a source of this answer', v_marker[1] using errcode = 'invalid_parameter_value';
    end if;
  end loop;
  update chat_messages
  set meta = meta || jsonb_build_object('generated', jsonb_build_object('text', btrim(p_text), 'model', p_model, 'created_at', now()))
  where id = p_message_id
  returning meta -> 'generated' into v_meta;
  return v_meta;
end;
$$;

-- ── The console reads defensively ────────────────────────────────────────────────────────────────────────
-- A stored value of the wrong JSON type is shown as unknown (null), never cast into an error: one bad row
-- must not take the overview or a page of conversations down with it.

-- A citation as the console shows it: the known fields, each of its type or null; anything else dropped.
create function kb_shown_citation(p_citation jsonb)
returns jsonb
language sql immutable
set search_path = public, extensions, pg_temp
as $$
  select jsonb_build_object(
    'n', case when jsonb_typeof(p_citation -> 'n') = 'number' then p_citation -> 'n' end,
    'chunk_id', case when jsonb_typeof(p_citation -> 'chunk_id') = 'string' then p_citation -> 'chunk_id' end,
    'document_id', case when jsonb_typeof(p_citation -> 'document_id') = 'string' then p_citation -> 'document_id' end,
    'title', case when jsonb_typeof(p_citation -> 'title') = 'string' then p_citation -> 'title' end,
    'page', case when jsonb_typeof(p_citation -> 'page') = 'number' then p_citation -> 'page' end,
    'section', case when jsonb_typeof(p_citation -> 'section') = 'string' then p_citation -> 'section' end,
    'url', case when jsonb_typeof(p_citation -> 'url') = 'string' then p_citation -> 'url' end,
    'similarity', case when jsonb_typeof(p_citation -> 'similarity') = 'number' then p_citation -> 'similarity' end
  );
$$;

-- As 20261125030000, with every value read from meta and citations checked for its type.
create or replace function admin_list_conversations(
  p_rating text, p_outcome text, p_from timestamptz, p_to timestamptz, p_limit integer, p_offset integer
)
returns table (
  message_id uuid, session_id uuid, visitor text, question text, asked_at timestamptz,
  answer text, kind text, reason text, citations jsonb, confidence text, mode text,
  rating smallint, comment text,
  generated jsonb,
  total bigint
)
language plpgsql stable security definer
set search_path = public, extensions, pg_temp
as $$
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
      count(*) over ()
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
$$;

-- As 20261125030000, with meta.evidence counted only when it is a JSON number (a string such as "high" made
-- the cast fail for every range that held the row) and the confidence tier only when it is a known string.
create or replace function admin_overview(p_from timestamptz, p_to timestamptz)
returns jsonb
language plpgsql stable security definer
set search_path = public, extensions, pg_temp
as $$
declare
  v_result jsonb;
begin
  perform kb_assert_admin();
  if p_from is null or p_to is null or p_to <= p_from or p_to - p_from > interval '366 days' then
    raise exception 'from must be before to, at most 366 days apart' using errcode = 'invalid_parameter_value';
  end if;
  with turns as (
    select date_trunc('day', u.created_at at time zone 'UTC')::date as day,
      a.meta ->> 'kind' is not distinct from 'refusal' as refused,
      case when jsonb_typeof(a.meta -> 'confidence') = 'string' then
        case a.meta ->> 'confidence' when 'low' then 1 when 'medium' then 2 when 'high' then 3 end
      end as tier,
      -- A JSON number within double precision's range only (1e400 is valid JSON and would not cast); anything
      -- else is unknown. Nested CASEs, because SQL does not promise to evaluate an AND's operands in order.
      case when jsonb_typeof(a.meta -> 'evidence') = 'number' then
        case when abs((a.meta -> 'evidence')::numeric) < 1e300 then round((a.meta -> 'evidence')::numeric, 15)::double precision end
      end as evidence,
      f.rating
    from chat_messages a
    join chat_messages u on u.id = a.reply_to
    left join chat_feedback f on f.message_id = a.id
    where a.role = 'assistant' and u.created_at >= p_from and u.created_at < p_to
  ),
  days as (
    select d::date as day from generate_series(
      date_trunc('day', p_from at time zone 'UTC'), date_trunc('day', (p_to - interval '1 microsecond') at time zone 'UTC'), interval '1 day'
    ) d
  ),
  per_day as (
    select days.day,
      count(t.day) as questions,
      count(t.day) filter (where not t.refused) as answered,
      count(t.day) filter (where t.refused) as refused,
      count(t.day) filter (where t.rating = 1) as up,
      count(t.day) filter (where t.rating = -1) as down
    from days left join turns t on t.day = days.day
    group by days.day
  )
  select jsonb_build_object(
    'from', p_from, 'to', p_to,
    'questions', (select count(*) from turns),
    'answered', (select count(*) from turns where not refused),
    'refused', (select count(*) from turns where refused),
    'up', (select count(*) from turns where rating = 1),
    'down', (select count(*) from turns where rating = -1),
    'median_confidence', (
      select case percentile_disc(0.5) within group (order by tier) when 1 then 'low' when 2 then 'medium' when 3 then 'high' end
      from turns where not refused and tier is not null),
    'median_evidence', (select percentile_cont(0.5) within group (order by evidence) from turns where not refused and evidence is not null),
    'days', coalesce((select jsonb_agg(jsonb_build_object('day', day, 'questions', questions, 'answered', answered,
      'refused', refused, 'up', up, 'down', down) order by day) from per_day), '[]'::jsonb)
  ) into v_result;
  return v_result;
end;
$$;

-- ── Privileges: deny by default (20261125000000), then what each caller needs ───────────────────────────
revoke all on function kb_set_answer_write_key(text) from public, anon, authenticated;
grant execute on function kb_set_answer_write_key(text) to service_role;
revoke all on function kb_assert_answer_writer(text) from public, anon, authenticated;
grant execute on function kb_assert_answer_writer(text) to service_role;
revoke all on function kb_shown_citation(jsonb) from public, anon, authenticated;
grant execute on function kb_shown_citation(jsonb) to service_role;
-- Signed-in users reach them (the Worker calls them with the visitor's JWT); without the key each refuses.
revoke all on function chat_finish_turn(uuid, uuid, text, jsonb, jsonb, text) from public, anon, authenticated;
grant execute on function chat_finish_turn(uuid, uuid, text, jsonb, jsonb, text) to authenticated, service_role;
revoke all on function record_content_gap(text, text, uuid, text) from public, anon, authenticated;
grant execute on function record_content_gap(text, text, uuid, text) to authenticated, service_role;
revoke all on function chat_save_generated(uuid, text, text, text) from public, anon, authenticated;
grant execute on function chat_save_generated(uuid, text, text, text) to authenticated, service_role;
