-- Least privilege: the database as an attacker sees it. On Supabase, PostgREST exposes every
-- function and table of the `public` schema to anyone holding the project's anon key (a public-grade key)
-- and to every signed-in — including anonymous — user. The Hono API's validation and rate limits do not
-- stand in front of those calls, so the database must bound them itself:
--
--   1. Deny by default: no function is executable by PUBLIC, anon or authenticated unless granted below;
--      no table is readable or writable by anon; authenticated may only SELECT its own chat rows (RLS).
--   2. Writes go through functions that check who is calling (auth.uid()) and bound what they store:
--      chat_begin_turn / chat_finish_turn are security definer now, with the checks RLS used to make plus
--      the ones it could not (a reply ties to the caller's own question in the same session; only the
--      answering path writes role 'assistant'; lengths and JSON sizes are bounded).
--   3. Every exposed function bounds its arguments (counts, text lengths, thresholds, buckets, windows,
--      reasons), and CHECK constraints bound what any path can store.
--   4. Nothing stored is executed: the deferred index is rebuilt from fixed DDL.
--   5. Every function's search_path ends in pg_temp, so a temporary object can never shadow one it uses.
-- test/workerd/attacker.test.ts calls every function and table with the anon key and an anonymous user's
-- token (the list read from pg_proc/pg_class, so a new function is covered without editing the test).

-- ── 1. Tables: nothing for anon; SELECT only (under RLS) for authenticated, on its own chat rows ──────────
revoke all on all tables in schema public from anon, authenticated;
revoke all on all sequences in schema public from anon, authenticated;
grant select on chat_sessions, chat_messages to authenticated;

-- The insert/update/delete policies described writes that the table privileges no longer allow; the writes
-- are the definer functions below, which check ownership themselves.
drop policy "own sessions: insert" on chat_sessions;
drop policy "own sessions: update" on chat_sessions;
drop policy "own sessions: delete" on chat_sessions;
drop policy "messages of own sessions: insert" on chat_messages;

-- ── 3. What may be stored, whatever the path ──────────────────────────────────────────────────────────────
-- NOT VALID: enforced for every new or updated row, without failing this migration on a database where an
-- attacker already stored something larger (existing rows are left as they are).
alter table chat_sessions add constraint chat_sessions_title_length
  check (char_length(title) between 1 and 200) not valid;
alter table chat_messages add constraint chat_messages_content_length
  check ((role = 'user' and char_length(content) between 1 and 2000)
      or (role = 'assistant' and char_length(content) <= 32000)) not valid;
alter table chat_messages add constraint chat_messages_citations_shape
  check (citations is null or (jsonb_typeof(citations) = 'array' and pg_column_size(citations) <= 65536)) not valid;
alter table chat_messages add constraint chat_messages_meta_shape
  check (jsonb_typeof(meta) = 'object' and pg_column_size(meta) <= 65536) not valid;
-- Only an answer replies, and only to a question.
alter table chat_messages add constraint chat_messages_reply_role
  check ((role = 'assistant') = (reply_to is not null)) not valid;
alter table content_gaps add constraint content_gaps_lengths
  check (char_length(question) <= 500 and char_length(question_key) <= 2000) not valid;
alter table content_gaps add constraint content_gaps_reason
  check (reason in ('no_evidence', 'empty_kb')) not valid;
-- 'api' for questions and searches, 'admin' for the console: an admin's console requests must not
-- use up the budget of their questions, nor the other way round.
alter table rate_limits add constraint rate_limits_bucket
  check (bucket in ('api', 'admin')) not valid;

-- ── 2. Chat turns: security definer, checking the caller ─────────────────────────────────────────────────
-- The earlier turn with this message id, if it is the caller's (definer callers bypass RLS, so the owner
-- check is explicit). Not exposed: only chat_begin_turn calls it.
create or replace function chat_existing_turn(p_message_id uuid, p_session_id uuid, p_content text)
returns table (
  session_id uuid,
  is_new boolean,
  same_request boolean,
  answer_id uuid,
  answer_content text,
  answer_citations jsonb,
  answer_meta jsonb
)
language sql stable security invoker
set search_path = public, extensions, pg_temp
as $$
  select u.session_id, false,
    u.content = p_content and (p_session_id is null or u.session_id = p_session_id),
    a.id, a.content, a.citations, a.meta
  from chat_messages u
  join chat_sessions s on s.id = u.session_id and s.user_id = auth.uid()
  left join chat_messages a on a.reply_to = u.id
  where u.id = p_message_id and u.role = 'user';
$$;

-- Same contract as 20261122010000 (idempotent by message id; somebody else's message id → unique_violation,
-- somebody else's session → insufficient_privilege), now enforced here rather than by insert policies.
create or replace function chat_begin_turn(
  p_session_id uuid,
  p_message_id uuid,
  p_content text,
  p_title text
)
returns table (
  session_id uuid,
  is_new boolean,
  same_request boolean,
  answer_id uuid,
  answer_content text,
  answer_citations jsonb,
  answer_meta jsonb
)
language plpgsql security definer
set search_path = public, extensions, pg_temp
as $$
declare
  v_user uuid := auth.uid();
  v_session_id uuid := coalesce(p_session_id, gen_random_uuid());
  v_owner uuid;
  v_inserted uuid;
begin
  if v_user is null then
    raise exception 'chat_begin_turn needs a signed-in user' using errcode = 'insufficient_privilege';
  end if;
  if p_message_id is null or char_length(coalesce(p_content, '')) not between 1 and 2000
     or char_length(coalesce(p_title, '')) not between 1 and 200 then
    raise exception 'a question needs a message id, 1–2000 characters of content and a 1–200 character title'
      using errcode = 'invalid_parameter_value';
  end if;

  return query select * from chat_existing_turn(p_message_id, p_session_id, p_content);
  if found then
    return;
  end if;

  insert into chat_sessions (id, user_id, title)
  values (v_session_id, v_user, p_title)
  on conflict (id) do nothing;
  select s.user_id into v_owner from chat_sessions s where s.id = v_session_id;
  if v_owner is distinct from v_user then
    raise exception 'session % does not belong to this user', v_session_id using errcode = 'insufficient_privilege';
  end if;

  insert into chat_messages (id, session_id, role, content)
  values (p_message_id, v_session_id, 'user', p_content)
  on conflict (id) do nothing
  returning id into v_inserted;

  if v_inserted is not null then
    update chat_sessions s set updated_at = now() where s.id = v_session_id;
    return query select v_session_id, true, true, null::uuid, null::text, null::jsonb, null::jsonb;
    return;
  end if;

  -- A concurrent request stored this id first (ours), or it is somebody else's (invisible to us). Either
  -- way the session this call may have just created stays empty: remove it.
  if p_session_id is null then
    delete from chat_sessions s where s.id = v_session_id and s.user_id = v_user
      and not exists (select 1 from chat_messages m where m.session_id = v_session_id);
  end if;
  return query select * from chat_existing_turn(p_message_id, p_session_id, p_content);
  if not found then
    raise exception 'message id % is already in use', p_message_id using errcode = 'unique_violation';
  end if;
end;
$$;

-- One answer per question (a race returns the first one's id), and only to the caller's own question in
-- that same session: a reply_to pointing at another visitor's question could otherwise take its one
-- answer slot and block the real answer.
create or replace function chat_finish_turn(
  p_session_id uuid,
  p_reply_to uuid,
  p_content text,
  p_citations jsonb,
  p_meta jsonb
)
returns uuid
language plpgsql security definer
set search_path = public, extensions, pg_temp
as $$
declare
  v_user uuid := auth.uid();
  v_id uuid;
begin
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

-- ── 3. Bounded arguments on every exposed function ───────────────────────────────────────────────────────
-- Buckets are the API's own (a visitor choosing bucket names could fill the table); windows at most a day,
-- so the clean-up below (older than a day) removes every finished window.
create or replace function rate_limit_hit(p_bucket text, p_limit integer, p_window_seconds integer)
returns table (allowed boolean, remaining integer, reset_at timestamptz)
language plpgsql security definer
set search_path = public, extensions, pg_temp
as $$
declare
  v_user uuid := auth.uid();
  v_window timestamptz;
  v_hits integer;
begin
  if v_user is null then
    raise exception 'rate_limit_hit needs a signed-in user' using errcode = 'insufficient_privilege';
  end if;
  if p_bucket is null or p_bucket not in ('api', 'admin')
     or p_limit is null or p_limit not between 1 and 1000000
     or p_window_seconds is null or p_window_seconds not between 1 and 86400 then
    raise exception 'rate_limit_hit: bucket must be api or admin, limit 1–1000000, window 1–86400 s'
      using errcode = 'invalid_parameter_value';
  end if;
  v_window := to_timestamp(floor(extract(epoch from now()) / p_window_seconds) * p_window_seconds);
  insert into rate_limits as r (user_id, bucket, window_start, hits)
  values (v_user, p_bucket, v_window, 1)
  on conflict (user_id, bucket, window_start) do update set hits = r.hits + 1
  returning r.hits into v_hits;
  delete from rate_limits where ctid in (
    select ctid from rate_limits where window_start < now() - interval '1 day' limit 100
  );
  return query select v_hits <= p_limit, greatest(p_limit - v_hits, 0), v_window + make_interval(secs => p_window_seconds);
end;
$$;

create or replace function record_content_gap(p_question text, p_reason text, p_message_id uuid)
returns void
language plpgsql security definer
set search_path = public, extensions, pg_temp
as $$
declare
  v_key text;
begin
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

-- match_chunks: the threshold within [0, 1] (a negative one returned the nearest chunks of any vector),
-- at most 50 rows as before.
create or replace function match_chunks(
  query_embedding extensions.vector(384),
  threshold double precision default 0.35,
  match_count integer default 5
)
returns table (
  chunk_id uuid,
  content text,
  meta jsonb,
  document_id uuid,
  document_title text,
  document_url text,
  similarity double precision
)
language sql stable security definer
set search_path = public, extensions, pg_temp
set hnsw.iterative_scan = relaxed_order
as $$
  select top.*
  from (
    select
      c.id as chunk_id,
      c.content,
      c.meta,
      d.id as document_id,
      d.name as document_title,
      d.meta ->> 'url' as document_url,
      1 - (e.embedding <=> query_embedding) as similarity
    from kb_embeddings e
    join kb_chunks c on c.id = e.chunk_id
    join kb_documents d on d.id = c.document_id
    where d.status = 'ready' and d.enabled
    order by e.embedding <=> query_embedding
    limit least(greatest(coalesce(match_count, 5), 1), 50)
  ) top
  where top.similarity >= least(greatest(coalesce(threshold, 0.35), 0), 1) - 1e-6
  order by top.similarity desc;
$$;

-- search_chunks: the exposed entry bounds its arguments, then runs the search (20261123000000), which is
-- renamed kb_search_chunks and is not exposed. The API asks for at most 50 rows from 50 candidates and
-- `npm run eval -- beir` for 200 from 200 (recall@100 over documents); the bounds leave room for that and
-- stop a caller from having 1,000 candidates scored per call, or from sending a megabyte of query text to
-- the full-text parser.
alter function search_chunks(extensions.vector, text, integer, text, jsonb, integer) rename to kb_search_chunks;

create function search_chunks(
  query_embedding extensions.vector(384) default null,
  query_text text default null,
  match_count integer default 5,
  search_mode text default 'hybrid',
  filters jsonb default '{}'::jsonb,
  candidate_count integer default 50
)
returns table (
  chunk_id uuid,
  content text,
  meta jsonb,
  document_id uuid,
  document_title text,
  document_url text,
  document_meta jsonb,
  cosine double precision,
  bm25 double precision,
  coverage double precision,
  vector_rank integer,
  lexical_rank integer,
  score double precision
)
language plpgsql stable security definer
set search_path = public, extensions, pg_temp
as $$
begin
  if char_length(coalesce(query_text, '')) > 2000
     or (filters is not null and (jsonb_typeof(filters) <> 'object' or pg_column_size(filters) > 16384))
     or (search_mode is not null and search_mode not in ('hybrid', 'vector', 'lexical')) then
    raise exception 'search_chunks: query_text at most 2000 characters, filters a JSON object of at most 16 KB, search_mode hybrid, vector or lexical'
      using errcode = 'invalid_parameter_value';
  end if;
  return query select * from kb_search_chunks(
    query_embedding,
    query_text,
    least(greatest(coalesce(match_count, 5), 1), 200),
    search_mode,
    filters,
    least(greatest(coalesce(candidate_count, 50), 1), 200)
  );
end;
$$;

-- ── 4. The deferred index rebuilt from fixed DDL ─────────────────────────────────────────────────────────
-- kb_deferred_indexes held the SQL text that kb_restore_indexes executed as the owner: whoever could write
-- a row could run any statement. It now holds names only; each name has its statement here.
alter table kb_deferred_indexes drop column definition;

create or replace function kb_defer_embedding_index()
returns boolean
language plpgsql security definer
set search_path = public, extensions, pg_temp
as $$
begin
  insert into kb_deferred_indexes (name) values ('kb_statistics') on conflict (name) do nothing;
  if exists (select 1 from pg_indexes where schemaname = 'public' and indexname = 'kb_embeddings_embedding_hnsw') then
    insert into kb_deferred_indexes (name) values ('kb_embeddings_embedding_hnsw') on conflict (name) do nothing;
    drop index public.kb_embeddings_embedding_hnsw;
  end if;
  -- Something is deferred either way (the statistics): the caller must restore at the end.
  return true;
end;
$$;

create or replace function kb_restore_indexes()
returns integer
language plpgsql security definer
set search_path = public, extensions, pg_temp
as $$
declare
  v_name text;
  v_count integer := 0;
begin
  for v_name in select name from kb_deferred_indexes order by name for update loop
    if v_name = 'kb_embeddings_embedding_hnsw' then
      if not exists (select 1 from pg_indexes where schemaname = 'public' and indexname = v_name) then
        -- As created in 20261122000200 (pgvector's defaults, m = 16, ef_construction = 64).
        create index kb_embeddings_embedding_hnsw on public.kb_embeddings using hnsw (embedding extensions.vector_cosine_ops);
        v_count := v_count + 1;
      end if;
    elsif v_name = 'kb_statistics' then
      perform kb_recount_statistics();
      v_count := v_count + 1;
    else
      raise warning 'kb_restore_indexes: unknown deferred name %, removed', v_name;
    end if;
    delete from kb_deferred_indexes where name = v_name;
  end loop;
  return v_count;
end;
$$;

-- ── 1. Functions: deny by default, then grant what each caller needs ─────────────────────────────────────
do $$
declare
  f regprocedure;
begin
  for f in select p.oid::regprocedure from pg_proc p where p.pronamespace = 'public'::regnamespace loop
    execute format('revoke all on function %s from public, anon, authenticated', f);
    execute format('grant execute on function %s to service_role', f);
    -- 5. A temporary schema is searched first unless named; naming it last means it is never searched for
    -- functions and operators, and only last for tables.
    execute format('alter function %s set search_path = public, extensions, pg_temp', f);
  end loop;
end
$$;

-- anon (no user token): only what /api/health and the refusal of an empty knowledge base read.
grant execute on function kb_stats() to anon, authenticated;
grant execute on function kb_has_documents() to anon, authenticated;
-- Signed-in visitors (authenticated, anonymous users included): retrieval, their own chat, their limits.
grant execute on function search_chunks(extensions.vector, text, integer, text, jsonb, integer) to authenticated;
grant execute on function match_chunks(extensions.vector, double precision, integer) to authenticated;
grant execute on function get_chunk(uuid) to authenticated;
grant execute on function chat_begin_turn(uuid, uuid, text, text) to authenticated;
grant execute on function chat_finish_turn(uuid, uuid, text, jsonb, jsonb) to authenticated;
grant execute on function list_chat_sessions(integer) to authenticated;
grant execute on function get_chat_session(uuid) to authenticated;
grant execute on function get_chat_messages(uuid) to authenticated;
grant execute on function rate_limit_hit(text, integer, integer) to authenticated;
grant execute on function record_content_gap(text, text, uuid) to authenticated;
-- Checks app_metadata.role = 'admin' itself.
grant execute on function list_content_gaps(integer) to authenticated;
