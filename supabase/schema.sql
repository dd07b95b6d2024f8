-- supabase/schema.sql: GENERATED, do not edit.
-- Regenerate with `npm run schema` (scripts/schema.ts): every migration of supabase/migrations applied to an
-- empty embedded database (PGlite, as the server runs them), then its schema public dumped in a stable order.
-- To change the database, add a NEW migration (never edit one that has shipped) and regenerate.
-- 42 migrations, the last 20261129140000_stable_ties.sql. What each function is for, and who may call it: docs/database.md.

-- Extensions
create extension if not exists vector with schema extensions;

-- Tables

create table public.chat_feedback (
  message_id uuid not null,
  user_id uuid not null,
  rating smallint not null,
  comment text,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null
);
alter table public.chat_feedback add constraint chat_feedback_comment_check CHECK (((comment IS NULL) OR ((char_length(comment) >= 1) AND (char_length(comment) <= 1000))));
alter table public.chat_feedback add constraint chat_feedback_message_id_fkey FOREIGN KEY (message_id) REFERENCES public.chat_messages(id) ON DELETE CASCADE;
alter table public.chat_feedback add constraint chat_feedback_pkey PRIMARY KEY (message_id);
alter table public.chat_feedback add constraint chat_feedback_rating_check CHECK ((rating = ANY (ARRAY['-1'::integer, 1])));
alter table public.chat_feedback add constraint chat_feedback_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth.users(id) ON DELETE CASCADE;
CREATE INDEX chat_feedback_updated_at_idx ON public.chat_feedback USING btree (updated_at);
alter table public.chat_feedback enable row level security;
grant all on table public.chat_feedback to service_role;

create table public.chat_messages (
  id uuid default gen_random_uuid() not null,
  session_id uuid not null,
  role text not null,
  content text not null,
  citations jsonb,
  reply_to uuid,
  meta jsonb default '{}'::jsonb not null,
  created_at timestamp with time zone default now() not null
);
alter table public.chat_messages add constraint chat_messages_citations_shape CHECK (((citations IS NULL) OR ((jsonb_typeof(citations) = 'array'::text) AND (pg_column_size(citations) <= 65536)))) NOT VALID;
alter table public.chat_messages add constraint chat_messages_content_length CHECK ((((role = 'user'::text) AND ((char_length(content) >= 1) AND (char_length(content) <= 2000))) OR ((role = 'assistant'::text) AND (char_length(content) <= 32000)))) NOT VALID;
alter table public.chat_messages add constraint chat_messages_meta_shape CHECK (((jsonb_typeof(meta) = 'object'::text) AND (pg_column_size(meta) <= 65536))) NOT VALID;
alter table public.chat_messages add constraint chat_messages_pkey PRIMARY KEY (id);
alter table public.chat_messages add constraint chat_messages_reply_role CHECK (((role = 'assistant'::text) = (reply_to IS NOT NULL))) NOT VALID;
alter table public.chat_messages add constraint chat_messages_reply_to_fkey FOREIGN KEY (reply_to) REFERENCES public.chat_messages(id) ON DELETE CASCADE;
alter table public.chat_messages add constraint chat_messages_reply_to_key UNIQUE (reply_to);
alter table public.chat_messages add constraint chat_messages_role_check CHECK ((role = ANY (ARRAY['user'::text, 'assistant'::text])));
alter table public.chat_messages add constraint chat_messages_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.chat_sessions(id) ON DELETE CASCADE;
CREATE INDEX chat_messages_questions_created_id ON public.chat_messages USING btree (created_at, id) WHERE (role = 'user'::text);
CREATE INDEX chat_messages_session_created ON public.chat_messages USING btree (session_id, created_at);
alter table public.chat_messages enable row level security;
grant select on table public.chat_messages to authenticated;
grant all on table public.chat_messages to service_role;

create table public.chat_sessions (
  id uuid default gen_random_uuid() not null,
  user_id uuid default auth.uid() not null,
  title text not null,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null
);
alter table public.chat_sessions add constraint chat_sessions_pkey PRIMARY KEY (id);
alter table public.chat_sessions add constraint chat_sessions_title_length CHECK (((char_length(title) >= 1) AND (char_length(title) <= 200))) NOT VALID;
alter table public.chat_sessions add constraint chat_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth.users(id) ON DELETE CASCADE;
CREATE INDEX chat_sessions_user_updated ON public.chat_sessions USING btree (user_id, updated_at DESC);
alter table public.chat_sessions enable row level security;
grant select on table public.chat_sessions to authenticated;
grant all on table public.chat_sessions to service_role;

create table public.content_gap_messages (
  message_id uuid not null,
  question_key text not null,
  counted_at timestamp with time zone default now() not null
);
alter table public.content_gap_messages add constraint content_gap_messages_pkey PRIMARY KEY (message_id);
alter table public.content_gap_messages add constraint content_gap_messages_question_key_fkey FOREIGN KEY (question_key) REFERENCES public.content_gaps(question_key) ON DELETE CASCADE;
alter table public.content_gap_messages enable row level security;
grant all on table public.content_gap_messages to service_role;

create table public.content_gaps (
  question_key text not null,
  question text not null,
  reason text not null,
  asked integer default 0 not null,
  first_asked_at timestamp with time zone default now() not null,
  last_asked_at timestamp with time zone default now() not null,
  done_at timestamp with time zone,
  done_by uuid
);
alter table public.content_gaps add constraint content_gaps_lengths CHECK (((char_length(question) <= 500) AND (char_length(question_key) <= 2000))) NOT VALID;
alter table public.content_gaps add constraint content_gaps_pkey PRIMARY KEY (question_key);
alter table public.content_gaps add constraint content_gaps_reason CHECK ((reason = ANY (ARRAY['no_evidence'::text, 'empty_kb'::text]))) NOT VALID;
alter table public.content_gaps enable row level security;
grant all on table public.content_gaps to service_role;

create table public.kb_answer_write_key (
  id boolean default true not null,
  key_hash text not null,
  set_at timestamp with time zone default now() not null
);
alter table public.kb_answer_write_key add constraint kb_answer_write_key_id_check CHECK (id);
alter table public.kb_answer_write_key add constraint kb_answer_write_key_key_hash_check CHECK ((key_hash ~ '^[0-9a-f]{64}$'::text));
alter table public.kb_answer_write_key add constraint kb_answer_write_key_pkey PRIMARY KEY (id);
alter table public.kb_answer_write_key enable row level security;

create table public.kb_chunks (
  id uuid default gen_random_uuid() not null,
  document_id uuid not null,
  position integer not null,
  content text not null,
  meta jsonb default '{}'::jsonb not null,
  created_at timestamp with time zone default now() not null,
  fts tsvector generated always as ((setweight(to_tsvector('english'::regconfig, COALESCE((meta ->> 'section'::text), ''::text)), 'B'::"char") || setweight(to_tsvector('english'::regconfig, content), 'A'::"char"))) stored,
  fts_length integer generated always as (length((to_tsvector('english'::regconfig, COALESCE((meta ->> 'section'::text), ''::text)) || to_tsvector('english'::regconfig, content)))) stored
);
alter table public.kb_chunks add constraint kb_chunks_document_id_fkey FOREIGN KEY (document_id) REFERENCES public.kb_documents(id) ON DELETE CASCADE;
alter table public.kb_chunks add constraint kb_chunks_document_id_position_key UNIQUE (document_id, "position");
alter table public.kb_chunks add constraint kb_chunks_pkey PRIMARY KEY (id);
CREATE INDEX kb_chunks_document_id ON public.kb_chunks USING btree (document_id);
CREATE INDEX kb_chunks_fts ON public.kb_chunks USING gin (fts) WITH (gin_pending_list_limit='256');
alter table public.kb_chunks enable row level security;
grant all on table public.kb_chunks to service_role;

create table public.kb_corpus_stats (
  id boolean default true not null,
  chunks bigint default 0 not null,
  total_length bigint default 0 not null
);
alter table public.kb_corpus_stats add constraint kb_corpus_stats_chunks_check CHECK ((chunks >= 0));
alter table public.kb_corpus_stats add constraint kb_corpus_stats_id_check CHECK (id);
alter table public.kb_corpus_stats add constraint kb_corpus_stats_pkey PRIMARY KEY (id);
alter table public.kb_corpus_stats add constraint kb_corpus_stats_total_length_check CHECK ((total_length >= 0));
alter table public.kb_corpus_stats enable row level security;
grant all on table public.kb_corpus_stats to service_role;

create table public.kb_deferred_indexes (
  name text not null,
  deferred_at timestamp with time zone default now() not null
);
alter table public.kb_deferred_indexes add constraint kb_deferred_indexes_pkey PRIMARY KEY (name);
alter table public.kb_deferred_indexes enable row level security;
grant all on table public.kb_deferred_indexes to service_role;

create table public.kb_documents (
  id uuid default gen_random_uuid() not null,
  source text not null,
  name text not null,
  status text default 'pending'::text not null,
  enabled boolean default true not null,
  meta jsonb default '{}'::jsonb not null,
  checksum text,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  http_cache jsonb,
  title_terms text[] generated always as (tsvector_to_array(to_tsvector('english'::regconfig, COALESCE(name, ''::text)))) stored
);
alter table public.kb_documents add constraint kb_documents_http_cache_check CHECK (((http_cache IS NULL) OR ((jsonb_typeof(http_cache) = 'object'::text) AND (pg_column_size(http_cache) <= 262144))));
alter table public.kb_documents add constraint kb_documents_pkey PRIMARY KEY (id);
alter table public.kb_documents add constraint kb_documents_source_key UNIQUE (source);
alter table public.kb_documents add constraint kb_documents_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'processing'::text, 'ready'::text, 'error'::text])));
alter table public.kb_documents enable row level security;
grant all on table public.kb_documents to service_role;

create table public.kb_embeddings (
  chunk_id uuid not null,
  embedding extensions.vector(384) not null,
  model text not null,
  created_at timestamp with time zone default now() not null
);
alter table public.kb_embeddings add constraint kb_embeddings_chunk_id_fkey FOREIGN KEY (chunk_id) REFERENCES public.kb_chunks(id) ON DELETE CASCADE;
alter table public.kb_embeddings add constraint kb_embeddings_pkey PRIMARY KEY (chunk_id);
CREATE INDEX kb_embeddings_embedding_hnsw ON public.kb_embeddings USING hnsw (embedding extensions.vector_cosine_ops);
alter table public.kb_embeddings enable row level security;
grant all on table public.kb_embeddings to service_role;

create table public.kb_lexemes (
  lexeme text not null,
  df integer not null
);
alter table public.kb_lexemes add constraint kb_lexemes_df_check CHECK ((df >= 0));
alter table public.kb_lexemes add constraint kb_lexemes_pkey PRIMARY KEY (lexeme);
alter table public.kb_lexemes enable row level security;
grant all on table public.kb_lexemes to service_role;

create table public.kb_settings (
  id boolean default true not null,
  answer_mode text,
  evidence_threshold real,
  lexical_threshold real,
  hybrid_threshold real,
  greeting text,
  refusal_suggestions text[],
  updated_at timestamp with time zone default now() not null,
  updated_by uuid,
  support_url text,
  starters text[],
  webhook_url text,
  webhook_secret text,
  webhook_console boolean default false not null,
  assistants_enabled boolean
);
alter table public.kb_settings add constraint kb_settings_answer_mode_check CHECK ((answer_mode = ANY (ARRAY['extractive'::text, 'generative'::text])));
alter table public.kb_settings add constraint kb_settings_evidence_threshold_check CHECK (((evidence_threshold >= (0)::double precision) AND (evidence_threshold <= (1)::double precision)));
alter table public.kb_settings add constraint kb_settings_greeting_check CHECK (((char_length(greeting) <= 500) AND (char_length(btrim(greeting)) > 0)));
alter table public.kb_settings add constraint kb_settings_hybrid_threshold_check CHECK (((hybrid_threshold >= (0)::double precision) AND (hybrid_threshold <= (1)::double precision)));
alter table public.kb_settings add constraint kb_settings_id_check CHECK (id);
alter table public.kb_settings add constraint kb_settings_lexical_threshold_check CHECK (((lexical_threshold >= (0)::double precision) AND (lexical_threshold <= (1)::double precision)));
alter table public.kb_settings add constraint kb_settings_pkey PRIMARY KEY (id);
alter table public.kb_settings add constraint kb_settings_refusal_suggestions_check CHECK (public.kb_refusal_suggestions_ok(refusal_suggestions));
alter table public.kb_settings add constraint kb_settings_starters_check CHECK (public.kb_starters_ok(starters));
alter table public.kb_settings add constraint kb_settings_support_url_check CHECK (public.kb_support_url_ok(support_url));
alter table public.kb_settings add constraint kb_settings_webhook_secret CHECK (((char_length(webhook_secret) >= 32) AND (char_length(webhook_secret) <= 256))) NOT VALID;
alter table public.kb_settings add constraint kb_settings_webhook_url CHECK (public.kb_webhook_url_ok(webhook_url));
alter table public.kb_settings enable row level security;
grant all on table public.kb_settings to service_role;

create table public.kb_sync_runs (
  id uuid default gen_random_uuid() not null,
  source text not null,
  trigger text not null,
  started_at timestamp with time zone default now() not null,
  finished_at timestamp with time zone,
  counts jsonb default '{}'::jsonb not null,
  errors jsonb default '[]'::jsonb not null
);
alter table public.kb_sync_runs add constraint kb_sync_runs_counts_check CHECK (((jsonb_typeof(counts) = 'object'::text) AND (pg_column_size(counts) <= 4096)));
alter table public.kb_sync_runs add constraint kb_sync_runs_errors_check CHECK (((jsonb_typeof(errors) = 'array'::text) AND (jsonb_array_length(errors) <= 100) AND (pg_column_size(errors) <= 131072)));
alter table public.kb_sync_runs add constraint kb_sync_runs_pkey PRIMARY KEY (id);
alter table public.kb_sync_runs add constraint kb_sync_runs_source_check CHECK (((char_length(source) >= 1) AND (char_length(source) <= 2000)));
alter table public.kb_sync_runs add constraint kb_sync_runs_trigger_check CHECK ((trigger = ANY (ARRAY['cli'::text, 'schedule'::text, 'console'::text])));
CREATE INDEX kb_sync_runs_source_started ON public.kb_sync_runs USING btree (source, started_at DESC);
alter table public.kb_sync_runs enable row level security;
grant all on table public.kb_sync_runs to service_role;

create table public.kb_webhook_changes (
  id bigint generated by default as identity not null,
  changed_at timestamp with time zone default now() not null,
  changed_by uuid,
  old_host text,
  new_host text
);
alter table public.kb_webhook_changes add constraint kb_webhook_changes_pkey PRIMARY KEY (id);
alter table public.kb_webhook_changes enable row level security;
grant all on table public.kb_webhook_changes to service_role;

create table public.kb_webhook_claims (
  event_id text not null,
  claimed_at timestamp with time zone default now() not null
);
alter table public.kb_webhook_claims add constraint kb_webhook_claims_event_id_check CHECK (((char_length(event_id) >= 1) AND (char_length(event_id) <= 200)));
alter table public.kb_webhook_claims add constraint kb_webhook_claims_pkey PRIMARY KEY (event_id);
CREATE INDEX kb_webhook_claims_claimed_at ON public.kb_webhook_claims USING btree (claimed_at);
alter table public.kb_webhook_claims enable row level security;
grant all on table public.kb_webhook_claims to service_role;

create table public.rate_limits (
  user_id uuid not null,
  bucket text not null,
  window_start timestamp with time zone not null,
  hits integer default 0 not null
);
alter table public.rate_limits add constraint rate_limits_bucket CHECK ((bucket = ANY (ARRAY['api'::text, 'admin'::text]))) NOT VALID;
alter table public.rate_limits add constraint rate_limits_pkey PRIMARY KEY (user_id, bucket, window_start);
CREATE INDEX rate_limits_window_start ON public.rate_limits USING btree (window_start);
alter table public.rate_limits enable row level security;
grant all on table public.rate_limits to service_role;

-- Row-level security policies
create policy "messages of own sessions: select" on public.chat_messages as permissive for select to authenticated
  using ((EXISTS ( SELECT 1
   FROM public.chat_sessions s
  WHERE ((s.id = chat_messages.session_id) AND (s.user_id = auth.uid())))));
create policy "own sessions: select" on public.chat_sessions as permissive for select to authenticated
  using ((user_id = auth.uid()));

-- Functions

CREATE OR REPLACE FUNCTION public.admin_delete_document(p_id uuid)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  perform kb_assert_admin();
  if p_id is null then
    raise exception 'id is required' using errcode = 'invalid_parameter_value';
  end if;
  delete from kb_documents where id = p_id;
  return found;
end;
$function$;
comment on function public.admin_delete_document(p_id uuid) is 'Deletes a document with its chunks and embeddings; false when there was none. Called by the console with an admin''s JWT.';
revoke all on function public.admin_delete_document(p_id uuid) from public;
grant execute on function public.admin_delete_document(p_id uuid) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.admin_export_conversations(p_from timestamp with time zone, p_to timestamp with time zone, p_after text, p_limit integer)
 RETURNS TABLE(cursor text, question_id uuid, message_id uuid, session_id uuid, visitor text, question text, asked_at timestamp with time zone, answer text, kind text, reason text, citations jsonb, confidence text, mode text, rating smallint, comment text, rated_at timestamp with time zone, context jsonb, generated jsonb)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
declare
  v_after record;
begin
  perform kb_assert_admin();
  perform kb_export_bounds(p_from, p_to, p_limit);
  select * into v_after from kb_export_after(p_after);
  return query
    select kb_export_cursor(u.created_at, u.id), u.id, a.id, s.id, kb_visitor_id(s.user_id), u.content,
      u.created_at, a.content, coalesce(a.meta ->> 'kind', 'answer'), a.meta ->> 'reason', a.citations,
      a.meta ->> 'confidence', a.meta ->> 'mode', f.rating, f.comment, f.updated_at,
      coalesce(a.meta -> 'context', u.meta -> 'context'),
      case when a.meta ? 'generated'
        then jsonb_build_object('text', a.meta -> 'generated' ->> 'text', 'model', a.meta -> 'generated' ->> 'model')
      end
    from chat_messages u
    join chat_messages a on a.reply_to = u.id
    join chat_sessions s on s.id = u.session_id
    left join chat_feedback f on f.message_id = a.id
    where u.role = 'user'
      and (p_from is null or u.created_at >= p_from)
      and (p_to is null or u.created_at < p_to)
      and (p_after is null or (u.created_at, u.id) > (v_after.at, v_after.id))
    order by u.created_at, u.id
    limit p_limit;
end;
$function$;
comment on function public.admin_export_conversations(p_from timestamp with time zone, p_to timestamp with time zone, p_after text, p_limit integer) is 'One keyset page of questions with their answers and ratings for the conversations export (CSV or JSON Lines). Called by the console with an admin''s JWT.';
revoke all on function public.admin_export_conversations(p_from timestamp with time zone, p_to timestamp with time zone, p_after text, p_limit integer) from public;
grant execute on function public.admin_export_conversations(p_from timestamp with time zone, p_to timestamp with time zone, p_after text, p_limit integer) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.admin_export_feedback(p_from timestamp with time zone, p_to timestamp with time zone, p_after text, p_limit integer)
 RETURNS TABLE(cursor text, message_id uuid, session_id uuid, visitor text, question text, answer text, kind text, rating smallint, comment text, created_at timestamp with time zone, updated_at timestamp with time zone)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
declare
  v_after record;
begin
  perform kb_assert_admin();
  perform kb_export_bounds(p_from, p_to, p_limit);
  select * into v_after from kb_export_after(p_after);
  return query
    select kb_export_cursor(f.updated_at, f.message_id), f.message_id, s.id, kb_visitor_id(s.user_id), u.content,
      a.content, coalesce(a.meta ->> 'kind', 'answer'), f.rating, f.comment, f.created_at, f.updated_at
    from chat_feedback f
    join chat_messages a on a.id = f.message_id
    join chat_messages u on u.id = a.reply_to
    join chat_sessions s on s.id = a.session_id
    where (p_from is null or f.updated_at >= p_from)
      and (p_to is null or f.updated_at < p_to)
      and (p_after is null or (f.updated_at, f.message_id) > (v_after.at, v_after.id))
    order by f.updated_at, f.message_id
    limit p_limit;
end;
$function$;
comment on function public.admin_export_feedback(p_from timestamp with time zone, p_to timestamp with time zone, p_after text, p_limit integer) is 'One keyset page of rated answers for the feedback export. Called by the console with an admin''s JWT.';
revoke all on function public.admin_export_feedback(p_from timestamp with time zone, p_to timestamp with time zone, p_after text, p_limit integer) from public;
grant execute on function public.admin_export_feedback(p_from timestamp with time zone, p_to timestamp with time zone, p_after text, p_limit integer) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.admin_export_gaps(p_from timestamp with time zone, p_to timestamp with time zone, p_after text, p_limit integer)
 RETURNS TABLE(cursor text, question_key text, question text, reason text, asked integer, first_asked_at timestamp with time zone, last_asked_at timestamp with time zone, done_at timestamp with time zone)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  perform kb_assert_admin();
  perform kb_export_bounds(p_from, p_to, p_limit);
  if char_length(p_after) > 2000 then
    raise exception 'after must be a cursor an export returned' using errcode = 'invalid_parameter_value';
  end if;
  return query
    select g.question_key, g.question_key, g.question, g.reason, g.asked, g.first_asked_at, g.last_asked_at, g.done_at
    from content_gaps g
    where (p_from is null or g.last_asked_at >= p_from)
      and (p_to is null or g.first_asked_at < p_to)
      and (p_after is null or g.question_key > p_after)
    order by g.question_key
    limit p_limit;
end;
$function$;
comment on function public.admin_export_gaps(p_from timestamp with time zone, p_to timestamp with time zone, p_after text, p_limit integer) is 'One keyset page of content gaps for the gaps export. Called by the console with an admin''s JWT.';
revoke all on function public.admin_export_gaps(p_from timestamp with time zone, p_to timestamp with time zone, p_after text, p_limit integer) from public;
grant execute on function public.admin_export_gaps(p_from timestamp with time zone, p_to timestamp with time zone, p_after text, p_limit integer) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.admin_get_thread(p_session_id uuid)
 RETURNS TABLE(session_id uuid, title text, visitor text, question_id uuid, question text, asked_at timestamp with time zone, message_id uuid, answer text, kind text, reason text, citations jsonb, closest jsonb, confidence text, mode text, rating smallint, comment text, generated jsonb, context jsonb)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  perform kb_assert_admin();
  if p_session_id is null then
    raise exception 'session_id is required' using errcode = 'invalid_parameter_value';
  end if;
  return query
    select s.id, s.title, kb_visitor_id(s.user_id),
      u.id, u.content, u.created_at,
      a.id, left(a.content, 4000),
      case when a.id is null then null else coalesce(a.meta ->> 'kind', 'answer') end,
      a.meta ->> 'reason', a.citations, a.meta -> 'closest',
      a.meta ->> 'confidence', a.meta ->> 'mode', f.rating, f.comment,
      case when a.meta ? 'generated'
        then jsonb_build_object('text', left(a.meta -> 'generated' ->> 'text', 4000), 'model', a.meta -> 'generated' ->> 'model')
      end,
      coalesce(a.meta -> 'context', u.meta -> 'context')
    from chat_sessions s
    join chat_messages u on u.session_id = s.id and u.role = 'user'
    left join chat_messages a on a.reply_to = u.id and a.role = 'assistant'
    left join chat_feedback f on f.message_id = a.id
    where s.id = p_session_id
    order by u.created_at, u.id
    limit 500;
end;
$function$;
comment on function public.admin_get_thread(p_session_id uuid) is 'One conversation, question by question with each answer, its citations, rating and the follow-up context it was answered in (context.about: the "About: …" note). Called by the console with an admin''s JWT.';
revoke all on function public.admin_get_thread(p_session_id uuid) from public;
grant execute on function public.admin_get_thread(p_session_id uuid) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.admin_get_webhook()
 RETURNS TABLE(url text, secret_set boolean, changed_at timestamp with time zone, changed_by uuid, old_host text, new_host text)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  perform kb_assert_admin();
  return query
    select s.webhook_url, s.webhook_secret is not null, c.changed_at, c.changed_by, c.old_host, c.new_host
    from kb_settings s
    left join lateral (select * from kb_webhook_changes w order by w.id desc limit 1) c on true
    where s.id;
end;
$function$;
comment on function public.admin_get_webhook() is 'The webhook URL, whether a secret is set (never the secret) and the latest change of the URL (when, by whom, old and new host). Called by the console with an admin''s JWT.';
revoke all on function public.admin_get_webhook() from public;
grant execute on function public.admin_get_webhook() to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.admin_list_conversations(p_rating text, p_outcome text, p_from timestamp with time zone, p_to timestamp with time zone, p_limit integer, p_offset integer)
 RETURNS TABLE(message_id uuid, session_id uuid, visitor text, question text, asked_at timestamp with time zone, answer text, kind text, reason text, citations jsonb, confidence text, mode text, rating smallint, comment text, generated jsonb, total bigint, channel text)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
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
comment on function public.admin_list_conversations(p_rating text, p_outcome text, p_from timestamp with time zone, p_to timestamp with time zone, p_limit integer, p_offset integer) is 'A page of questions with their answers, ratings and comments, filtered by rating, outcome and dates, with the total count and the channel (mcp, else null: the widget). Called by the console with an admin''s JWT.';
revoke all on function public.admin_list_conversations(p_rating text, p_outcome text, p_from timestamp with time zone, p_to timestamp with time zone, p_limit integer, p_offset integer) from public;
grant execute on function public.admin_list_conversations(p_rating text, p_outcome text, p_from timestamp with time zone, p_to timestamp with time zone, p_limit integer, p_offset integer) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.admin_list_documents(p_query text, p_limit integer, p_offset integer)
 RETURNS TABLE(id uuid, source text, title text, status text, enabled boolean, chunks bigint, updated_at timestamp with time zone, embedding_model text, source_type text, url text, total bigint)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  perform kb_assert_admin();
  perform kb_page_bounds(p_limit, p_offset);
  if char_length(coalesce(p_query, '')) > 200 then
    raise exception 'query must be at most 200 characters' using errcode = 'invalid_parameter_value';
  end if;
  return query
    select d.id, d.source, d.name, d.status, d.enabled,
      (select count(*) from kb_chunks c where c.document_id = d.id),
      d.updated_at,
      (select string_agg(distinct e.model, ', ') from kb_chunks c join kb_embeddings e on e.chunk_id = c.id
        where c.document_id = d.id),
      d.meta ->> 'source_type', d.meta ->> 'url', count(*) over ()
    from kb_documents d
    where coalesce(p_query, '') = ''
       or strpos(lower(d.name), lower(p_query)) > 0 or strpos(lower(d.source), lower(p_query)) > 0
    order by d.updated_at desc, d.id
    limit p_limit offset p_offset;
end;
$function$;
comment on function public.admin_list_documents(p_query text, p_limit integer, p_offset integer) is 'A page of documents matching a search, with chunk counts, embedding model and the total count. Called by the console with an admin''s JWT.';
revoke all on function public.admin_list_documents(p_query text, p_limit integer, p_offset integer) from public;
grant execute on function public.admin_list_documents(p_query text, p_limit integer, p_offset integer) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.admin_list_gaps(p_status text, p_limit integer, p_offset integer)
 RETURNS TABLE(question_key text, question text, reason text, asked integer, first_asked_at timestamp with time zone, last_asked_at timestamp with time zone, done_at timestamp with time zone, total bigint)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  perform kb_assert_admin();
  perform kb_page_bounds(p_limit, p_offset);
  if p_status is null or p_status not in ('open', 'done', 'all') then
    raise exception 'status must be open, done or all' using errcode = 'invalid_parameter_value';
  end if;
  return query
    select g.question_key, g.question, g.reason, g.asked, g.first_asked_at, g.last_asked_at, g.done_at,
      count(*) over ()
    from content_gaps g
    where p_status = 'all'
       or (p_status = 'open' and (g.done_at is null or g.last_asked_at > g.done_at))
       or (p_status = 'done' and g.done_at is not null and g.last_asked_at <= g.done_at)
    order by g.asked desc, g.last_asked_at desc, g.question_key
    limit p_limit offset p_offset;
end;
$function$;
comment on function public.admin_list_gaps(p_status text, p_limit integer, p_offset integer) is 'A page of content gaps (open, done or all) with the total count. Called by the console with an admin''s JWT.';
revoke all on function public.admin_list_gaps(p_status text, p_limit integer, p_offset integer) from public;
grant execute on function public.admin_list_gaps(p_status text, p_limit integer, p_offset integer) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.admin_overview(p_from timestamp with time zone, p_to timestamp with time zone)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
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
$function$;
comment on function public.admin_overview(p_from timestamp with time zone, p_to timestamp with time zone) is 'Counts per day between two times: questions, answered, refused, ratings up and down, median confidence and evidence. Called by the console with an admin''s JWT.';
revoke all on function public.admin_overview(p_from timestamp with time zone, p_to timestamp with time zone) from public;
grant execute on function public.admin_overview(p_from timestamp with time zone, p_to timestamp with time zone) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.admin_set_assistants(p_enabled boolean)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  perform kb_assert_admin();
  update kb_settings s set assistants_enabled = p_enabled, updated_at = now(), updated_by = auth.uid() where s.id;
  return coalesce(p_enabled, true);
end;
$function$;
comment on function public.admin_set_assistants(p_enabled boolean) is 'Turns the MCP server and llms.txt on or off (null: back to the default, on); returns whether they are on. Called by the console with an admin''s JWT.';
revoke all on function public.admin_set_assistants(p_enabled boolean) from public;
grant execute on function public.admin_set_assistants(p_enabled boolean) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.admin_set_document_enabled(p_id uuid, p_enabled boolean)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  perform kb_assert_admin();
  if p_id is null or p_enabled is null then
    raise exception 'id and enabled are required' using errcode = 'invalid_parameter_value';
  end if;
  update kb_documents set enabled = p_enabled, updated_at = now() where id = p_id;
  return found;
end;
$function$;
comment on function public.admin_set_document_enabled(p_id uuid, p_enabled boolean) is 'Enables or disables a document (a disabled one is never retrieved); false when there is no such document. Called by the console with an admin''s JWT.';
revoke all on function public.admin_set_document_enabled(p_id uuid, p_enabled boolean) from public;
grant execute on function public.admin_set_document_enabled(p_id uuid, p_enabled boolean) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.admin_set_gap_done(p_question_key text, p_done boolean)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  perform kb_assert_admin();
  if char_length(coalesce(p_question_key, '')) not between 1 and 2000 or p_done is null then
    raise exception 'question_key must be 1–2000 characters and done a boolean' using errcode = 'invalid_parameter_value';
  end if;
  update content_gaps g
  set done_at = case when p_done then now() end, done_by = case when p_done then auth.uid() end
  where g.question_key = p_question_key;
  return found;
end;
$function$;
comment on function public.admin_set_gap_done(p_question_key text, p_done boolean) is 'Marks a content gap done or open again; false when there is no such gap. Called by the console with an admin''s JWT.';
revoke all on function public.admin_set_gap_done(p_question_key text, p_done boolean) from public;
grant execute on function public.admin_set_gap_done(p_question_key text, p_done boolean) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.admin_sync_status()
 RETURNS TABLE(source text, trigger text, started_at timestamp with time zone, finished_at timestamp with time zone, counts jsonb, errors jsonb, last_success_at timestamp with time zone)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  perform kb_assert_admin();
  return query
    select latest.source, latest.trigger, latest.started_at, latest.finished_at, latest.counts, latest.errors,
      (select max(ok.finished_at) from kb_sync_runs ok
       where ok.source = latest.source and ok.finished_at is not null and jsonb_array_length(ok.errors) = 0)
    from (
      select distinct on (r.source) r.*
      from kb_sync_runs r
      order by r.source, r.started_at desc
    ) latest
    order by latest.started_at desc
    limit 200;
end;
$function$;
comment on function public.admin_sync_status() is 'The last sync run per source, with its counts, errors and the last successful run. Called by the console with an admin''s JWT.';
revoke all on function public.admin_sync_status() from public;
grant execute on function public.admin_sync_status() to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.admin_whoami()
 RETURNS TABLE(user_id uuid, role text)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  perform kb_assert_admin();
  return query select auth.uid(), 'admin'::text;
end;
$function$;
comment on function public.admin_whoami() is 'The caller''s user id if they are an admin; raises for anyone else. Called by the API before admin work done outside SQL (an upload).';
revoke all on function public.admin_whoami() from public;
grant execute on function public.admin_whoami() to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.chat_begin_turn(p_session_id uuid, p_message_id uuid, p_content text, p_title text)
 RETURNS TABLE(session_id uuid, is_new boolean, same_request boolean, answer_id uuid, answer_content text, answer_citations jsonb, answer_meta jsonb)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
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
$function$;
comment on function public.chat_begin_turn(p_session_id uuid, p_message_id uuid, p_content text, p_title text) is 'Stores the visitor''s question in their session (creating the session on the first one), keyed by the message id: a repeat returns the stored turn and its answer, if any. Called with the visitor''s JWT.';
revoke all on function public.chat_begin_turn(p_session_id uuid, p_message_id uuid, p_content text, p_title text) from public;
grant execute on function public.chat_begin_turn(p_session_id uuid, p_message_id uuid, p_content text, p_title text) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.chat_existing_turn(p_message_id uuid, p_session_id uuid, p_content text)
 RETURNS TABLE(session_id uuid, is_new boolean, same_request boolean, answer_id uuid, answer_content text, answer_citations jsonb, answer_meta jsonb)
 LANGUAGE sql
 STABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select u.session_id, false,
    u.content = p_content and (p_session_id is null or u.session_id = p_session_id),
    a.id, a.content, a.citations, a.meta
  from chat_messages u
  join chat_sessions s on s.id = u.session_id and s.user_id = auth.uid()
  left join chat_messages a on a.reply_to = u.id
  where u.id = p_message_id and u.role = 'user';
$function$;
comment on function public.chat_existing_turn(p_message_id uuid, p_session_id uuid, p_content text) is 'Looks up a turn already stored under a message id, for chat_begin_turn''s idempotency. Called by chat_begin_turn only.';
revoke all on function public.chat_existing_turn(p_message_id uuid, p_session_id uuid, p_content text) from public;
grant execute on function public.chat_existing_turn(p_message_id uuid, p_session_id uuid, p_content text) to service_role;

CREATE OR REPLACE FUNCTION public.chat_finish_turn(p_session_id uuid, p_reply_to uuid, p_content text, p_citations jsonb, p_meta jsonb, p_write_key text)
 RETURNS uuid
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
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
$function$;
comment on function public.chat_finish_turn(p_session_id uuid, p_reply_to uuid, p_content text, p_citations jsonb, p_meta jsonb, p_write_key text) is 'Stores the server''s answer (or refusal) to a question of the visitor''s, with citations and meta; refuses a caller without the server''s answer write key. Keyed by the question: a repeat returns the stored answer. Called by the chat store with the visitor''s JWT and the key.';
revoke all on function public.chat_finish_turn(p_session_id uuid, p_reply_to uuid, p_content text, p_citations jsonb, p_meta jsonb, p_write_key text) from public;
grant execute on function public.chat_finish_turn(p_session_id uuid, p_reply_to uuid, p_content text, p_citations jsonb, p_meta jsonb, p_write_key text) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.chat_save_generated(p_message_id uuid, p_text text, p_model text, p_write_key text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
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
$function$;
comment on function public.chat_save_generated(p_message_id uuid, p_text text, p_model text, p_write_key text) is 'Stores the written (generative) version of an answer, checked against the answer''s own citations; the first one stays. Refuses a caller without the answer write key. Called by the chat store with the visitor''s JWT and the key.';
revoke all on function public.chat_save_generated(p_message_id uuid, p_text text, p_model text, p_write_key text) from public;
grant execute on function public.chat_save_generated(p_message_id uuid, p_text text, p_model text, p_write_key text) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.chat_set_feedback(p_message_id uuid, p_rating integer, p_comment text)
 RETURNS TABLE(message_id uuid, rating smallint, comment text, updated_at timestamp with time zone)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
declare
  v_user uuid := auth.uid();
  -- Whitespace of any kind (as the API's trim), not only spaces (btrim's default).
  v_comment text := nullif(regexp_replace(p_comment, '^\s+|\s+$', '', 'g'), '');
begin
  if v_user is null then
    raise exception 'chat_set_feedback needs a signed-in user' using errcode = 'insufficient_privilege';
  end if;
  if p_rating is null or p_rating not in (-1, 1) then
    raise exception 'rating must be 1 or -1' using errcode = 'invalid_parameter_value';
  end if;
  if v_comment is not null and char_length(v_comment) > 1000 then
    raise exception 'comment must be 1 to 1000 characters' using errcode = 'invalid_parameter_value';
  end if;
  if not exists (
    select 1 from chat_messages m join chat_sessions s on s.id = m.session_id
    where m.id = p_message_id and m.role = 'assistant' and s.user_id = v_user
  ) then
    -- The same error whether the message does not exist or is someone else's: nothing to learn by probing.
    -- insufficient_privilege, as chat_finish_turn's "not a question of this user": both stores map it to the
    -- API's 404 (no_data_found, P0002, would reach the API as an unavailable database, a 503).
    raise exception 'message % is not an answer of this user', p_message_id using errcode = 'insufficient_privilege';
  end if;
  return query
    insert into chat_feedback as f (message_id, user_id, rating, comment)
    values (p_message_id, v_user, p_rating::smallint, v_comment)
    on conflict on constraint chat_feedback_pkey do update
      set rating = excluded.rating, comment = excluded.comment, updated_at = now()
    returning f.message_id, f.rating, f.comment, f.updated_at;
end;
$function$;
comment on function public.chat_set_feedback(p_message_id uuid, p_rating integer, p_comment text) is 'Sets (or replaces) the caller''s rating and optional comment on one of their own answers. Called with the visitor''s JWT.';
revoke all on function public.chat_set_feedback(p_message_id uuid, p_rating integer, p_comment text) from public;
grant execute on function public.chat_set_feedback(p_message_id uuid, p_rating integer, p_comment text) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.document_state(p_source text, p_model text)
 RETURNS TABLE(document_id uuid, status text, checksum text, stale_embeddings bigint)
 LANGUAGE sql
 STABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select d.id, d.status, d.checksum,
    (select count(*) from kb_chunks c left join kb_embeddings e on e.chunk_id = c.id
      where c.document_id = d.id and (e.model is distinct from p_model))
  from kb_documents d where d.source = p_source;
$function$;
comment on function public.document_state(p_source text, p_model text) is 'A document''s id, status, checksum and how many of its chunks lack an embedding of the given model: what the ingester checks before re-embedding. Called with the service-role key.';
revoke all on function public.document_state(p_source text, p_model text) from public;
grant execute on function public.document_state(p_source text, p_model text) to service_role;

CREATE OR REPLACE FUNCTION public.get_chat_feedback(p_session_id uuid)
 RETURNS TABLE(message_id uuid, rating smallint)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select f.message_id, f.rating
  from chat_feedback f
  join chat_messages m on m.id = f.message_id
  where m.session_id = p_session_id and f.user_id = auth.uid();
$function$;
comment on function public.get_chat_feedback(p_session_id uuid) is 'The caller''s ratings of the answers in one of their sessions. Called with the visitor''s JWT.';
revoke all on function public.get_chat_feedback(p_session_id uuid) from public;
grant execute on function public.get_chat_feedback(p_session_id uuid) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.get_chat_messages(p_session_id uuid)
 RETURNS SETOF public.chat_messages
 LANGUAGE sql
 STABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select * from chat_messages where session_id = p_session_id
  -- A user message and its answer can share a timestamp within one transaction; the question comes first.
  order by created_at, case role when 'user' then 0 else 1 end;
$function$;
comment on function public.get_chat_messages(p_session_id uuid) is 'The messages of one of the caller''s sessions, oldest first. Called with the visitor''s JWT.';
revoke all on function public.get_chat_messages(p_session_id uuid) from public;
grant execute on function public.get_chat_messages(p_session_id uuid) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.get_chat_session(p_session_id uuid)
 RETURNS SETOF public.chat_sessions
 LANGUAGE sql
 STABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select * from chat_sessions where id = p_session_id;
$function$;
comment on function public.get_chat_session(p_session_id uuid) is 'One chat session of the caller''s (none for somebody else''s). Called with the visitor''s JWT.';
revoke all on function public.get_chat_session(p_session_id uuid) from public;
grant execute on function public.get_chat_session(p_session_id uuid) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.get_chunk(p_chunk_id uuid)
 RETURNS TABLE(chunk_id uuid, content text, meta jsonb, document_id uuid, document_title text, document_url text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select c.id, c.content, c.meta, d.id, d.name, d.meta ->> 'url'
  from kb_chunks c join kb_documents d on d.id = c.document_id
  where c.id = p_chunk_id and d.status = 'ready' and d.enabled;
$function$;
comment on function public.get_chunk(p_chunk_id uuid) is 'One passage of an enabled document with its document''s title and URL, for a citation the visitor opens. Called with the visitor''s JWT.';
revoke all on function public.get_chunk(p_chunk_id uuid) from public;
grant execute on function public.get_chunk(p_chunk_id uuid) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.get_recent_chat_messages(p_session_id uuid, p_limit integer DEFAULT 6)
 RETURNS SETOF public.chat_messages
 LANGUAGE sql
 STABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select * from chat_messages where session_id = p_session_id
  order by created_at desc, case role when 'user' then 1 else 0 end
  limit least(greatest(coalesce(p_limit, 6), 1), 20);
$function$;
comment on function public.get_recent_chat_messages(p_session_id uuid, p_limit integer) is 'The last few messages of one of the caller''s sessions, newest first, for a follow-up question''s context (security invoker: row-level security hides other sessions). Called with the visitor''s JWT.';
revoke all on function public.get_recent_chat_messages(p_session_id uuid, p_limit integer) from public;
grant execute on function public.get_recent_chat_messages(p_session_id uuid, p_limit integer) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.ingest_document(p_source text, p_name text, p_meta jsonb, p_checksum text, p_model text, p_chunks jsonb)
 RETURNS uuid
 LANGUAGE plpgsql
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
declare
  v_document_id uuid;
begin
  insert into kb_documents (source, name, meta, status)
  values (p_source, p_name, coalesce(p_meta, '{}'::jsonb), 'processing')
  on conflict (source) do update
    set name = excluded.name, meta = excluded.meta, status = 'processing', checksum = null, updated_at = now()
  returning id into v_document_id;

  delete from kb_chunks where document_id = v_document_id;

  with input as (
    select ordinality - 1 as position, value as chunk
    from jsonb_array_elements(p_chunks) with ordinality
  ),
  inserted as (
    insert into kb_chunks (document_id, position, content, meta)
    select v_document_id, position, chunk ->> 'content', coalesce(chunk -> 'meta', '{}'::jsonb)
    from input
    returning id, position
  )
  insert into kb_embeddings (chunk_id, embedding, model)
  select inserted.id, (input.chunk -> 'embedding')::text::vector, p_model
  from inserted join input using (position)
  where jsonb_typeof(input.chunk -> 'embedding') = 'array';

  update kb_documents set status = 'ready', checksum = p_checksum, updated_at = now()
  where id = v_document_id;
  return v_document_id;
end;
$function$;
comment on function public.ingest_document(p_source text, p_name text, p_meta jsonb, p_checksum text, p_model text, p_chunks jsonb) is 'Replaces a document with its chunks and their embeddings in one transaction (a chunk without an embedding is stored for keyword search only); the checksum is written with them, so an interrupted run is redone. Called by the ingester with the service-role key.';
revoke all on function public.ingest_document(p_source text, p_name text, p_meta jsonb, p_checksum text, p_model text, p_chunks jsonb) from public;
grant execute on function public.ingest_document(p_source text, p_name text, p_meta jsonb, p_checksum text, p_model text, p_chunks jsonb) to service_role;

CREATE OR REPLACE FUNCTION public.kb_assert_admin()
 RETURNS void
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  if coalesce(auth.jwt() -> 'app_metadata' ->> 'role', '') <> 'admin' then
    raise exception 'admins only' using errcode = 'insufficient_privilege';
  end if;
end;
$function$;
comment on function public.kb_assert_admin() is 'Raises unless the caller''s JWT says app_metadata.role = admin. Called first by every admin_* function and the other admin-only functions.';
revoke all on function public.kb_assert_admin() from public;
grant execute on function public.kb_assert_admin() to service_role;

CREATE OR REPLACE FUNCTION public.kb_assert_answer_writer(p_key text)
 RETURNS void
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
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
$function$;
comment on function public.kb_assert_answer_writer(p_key text) is 'Raises unless the key given hashes to the stored answer write key. Called by chat_finish_turn, chat_save_generated and record_content_gap only.';
revoke all on function public.kb_assert_answer_writer(p_key text) from public;
grant execute on function public.kb_assert_answer_writer(p_key text) to service_role;

CREATE OR REPLACE FUNCTION public.kb_assistant_pages(p_with_text boolean)
 RETURNS TABLE(document_id uuid, title text, url text, description text, section text, chunks text[])
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
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
$function$;
comment on function public.kb_assistant_pages(p_with_text boolean) is 'The enabled, ready documents with title, URL, description and section, and with p_with_text their chunks'' text in order: what /llms.txt and /llms-full.txt list. Public like the pages themselves. Called with the anon key.';
revoke all on function public.kb_assistant_pages(p_with_text boolean) from public;
grant execute on function public.kb_assistant_pages(p_with_text boolean) to anon, authenticated, service_role;

CREATE OR REPLACE FUNCTION public.kb_assistants_state()
 RETURNS TABLE(enabled boolean, version text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select
    coalesce((select s.assistants_enabled from kb_settings s where s.id), true),
    md5(coalesce(string_agg(d.id::text || ':' || coalesce(d.checksum, '') || ':' || d.updated_at::text, ',' order by d.id), ''))
  from kb_documents d
  where d.enabled and d.status = 'ready';
$function$;
comment on function public.kb_assistants_state() is 'Whether the MCP server and llms.txt are on (the console''s switch; on unless set off) and a version of the enabled, ready documents that changes with every ingestion or sync: the ETag of /llms.txt. Called with the anon key.';
revoke all on function public.kb_assistants_state() from public;
grant execute on function public.kb_assistants_state() to anon, authenticated, service_role;

CREATE OR REPLACE FUNCTION public.kb_chunks_count_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  if kb_statistics_deferred() then
    return null;
  end if;
  if tg_op in ('DELETE', 'UPDATE') then
    perform kb_count_chunks(array_agg(o.fts), sum(o.fts_length), -1)
    from old_chunks o join kb_documents d on d.id = o.document_id and d.status = 'ready' and d.enabled;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    perform kb_count_chunks(array_agg(n.fts), sum(n.fts_length), 1)
    from new_chunks n join kb_documents d on d.id = n.document_id and d.status = 'ready' and d.enabled;
  end if;
  return null;
end;
$function$;
comment on function public.kb_chunks_count_trigger() is 'Keeps the corpus statistics as chunks are inserted, updated or deleted (statement-level trigger on kb_chunks); skipped while a bulk load defers them.';
revoke all on function public.kb_chunks_count_trigger() from public;
grant execute on function public.kb_chunks_count_trigger() to service_role;

CREATE OR REPLACE FUNCTION public.kb_claim_webhook_event(p_event_id text)
 RETURNS boolean
 LANGUAGE plpgsql
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
declare
  v_claimed boolean;
begin
  delete from kb_webhook_claims where claimed_at < now() - interval '1 day';
  insert into kb_webhook_claims (event_id) values (p_event_id)
  on conflict (event_id) do nothing
  returning true into v_claimed;
  return coalesce(v_claimed, false);
end;
$function$;
comment on function public.kb_claim_webhook_event(p_event_id text) is 'Claims a webhook event id for this server: true for the first claim of that id, false for every later one (another server, or a retried request, already sends it). Called by the Node server''s webhook dispatcher with its own connection.';
revoke all on function public.kb_claim_webhook_event(p_event_id text) from public;
grant execute on function public.kb_claim_webhook_event(p_event_id text) to service_role;

CREATE OR REPLACE FUNCTION public.kb_count_chunks(p_fts tsvector[], p_total_length bigint, p_sign integer)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  if coalesce(cardinality(p_fts), 0) = 0 then
    return;
  end if;
  insert into kb_lexemes as l (lexeme, df)
  select lexeme, count(*)::integer
  from unnest(p_fts) f, unnest(tsvector_to_array(f)) lexeme
  group by lexeme
  order by lexeme
  on conflict (lexeme) do update set df = l.df + p_sign * excluded.df;
  if p_sign < 0 then
    delete from kb_lexemes l
    where l.df <= 0 and l.lexeme in (select lexeme from unnest(p_fts) f, unnest(tsvector_to_array(f)) lexeme);
  end if;
  update kb_corpus_stats s set
    chunks = s.chunks + p_sign * cardinality(p_fts),
    total_length = s.total_length + p_sign * coalesce(p_total_length, 0)
  where s.id;
end;
$function$;
comment on function public.kb_count_chunks(p_fts tsvector[], p_total_length bigint, p_sign integer) is 'Adds or removes chunks'' lexemes and lengths to the corpus statistics. Called by the statistics triggers only.';
revoke all on function public.kb_count_chunks(p_fts tsvector[], p_total_length bigint, p_sign integer) from public;
grant execute on function public.kb_count_chunks(p_fts tsvector[], p_total_length bigint, p_sign integer) to service_role;

CREATE OR REPLACE FUNCTION public.kb_defer_embedding_index()
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  insert into kb_deferred_indexes (name) values ('kb_statistics') on conflict (name) do nothing;
  if exists (select 1 from pg_indexes where schemaname = 'public' and indexname = 'kb_embeddings_embedding_hnsw') then
    insert into kb_deferred_indexes (name) values ('kb_embeddings_embedding_hnsw') on conflict (name) do nothing;
    drop index public.kb_embeddings_embedding_hnsw;
  end if;
  -- Something is deferred either way (the statistics): the caller must restore at the end.
  return true;
end;
$function$;
comment on function public.kb_defer_embedding_index() is 'Drops the HNSW embedding index before a bulk load and records it in kb_deferred_indexes (the embedded store); true when it did. Called by the embedded store''s ingestion.';
revoke all on function public.kb_defer_embedding_index() from public;
grant execute on function public.kb_defer_embedding_index() to service_role;

CREATE OR REPLACE FUNCTION public.kb_delete_document(p_id uuid)
 RETURNS boolean
 LANGUAGE sql
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  with deleted as (delete from kb_documents where id = p_id returning 1)
  select exists (select 1 from deleted);
$function$;
comment on function public.kb_delete_document(p_id uuid) is 'Deletes a document with its chunks and embeddings; false when there was none. Called by the ingestion CLI with the service-role key.';
revoke all on function public.kb_delete_document(p_id uuid) from public;
grant execute on function public.kb_delete_document(p_id uuid) to service_role;

CREATE OR REPLACE FUNCTION public.kb_document_chunks(p_document_id uuid)
 RETURNS TABLE(chunk_id uuid, chunk_position integer, content text, meta jsonb)
 LANGUAGE sql
 STABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select c.id, c.position, c.content, c.meta from kb_chunks c
  where c.document_id = p_document_id
  order by c.position;
$function$;
comment on function public.kb_document_chunks(p_document_id uuid) is 'A document''s chunks in order, for re-embedding them. Called by npm run reindex with the service-role key.';
revoke all on function public.kb_document_chunks(p_document_id uuid) from public;
grant execute on function public.kb_document_chunks(p_document_id uuid) to service_role;

CREATE OR REPLACE FUNCTION public.kb_documents_count_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
declare
  v_was boolean := tg_op in ('UPDATE', 'DELETE') and old.status = 'ready' and old.enabled;
  v_is boolean := tg_op = 'UPDATE' and new.status = 'ready' and new.enabled;
begin
  if v_was <> v_is and not kb_statistics_deferred() then
    perform kb_count_chunks(array_agg(c.fts), sum(c.fts_length), case when v_is then 1 else -1 end)
    from kb_chunks c where c.document_id = old.id;
  end if;
  return case when tg_op = 'DELETE' then old else new end;
end;
$function$;
comment on function public.kb_documents_count_trigger() is 'Keeps the corpus statistics as a document is enabled, disabled, made ready or deleted (trigger on kb_documents).';
revoke all on function public.kb_documents_count_trigger() from public;
grant execute on function public.kb_documents_count_trigger() to service_role;

CREATE OR REPLACE FUNCTION public.kb_export_after(p_after text)
 RETURNS TABLE(at timestamp with time zone, id uuid)
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  if p_after is null then
    return;
  end if;
  if p_after !~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z\|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    raise exception 'after must be a cursor an export returned' using errcode = 'invalid_parameter_value';
  end if;
  return query select split_part(p_after, '|', 1)::timestamptz, split_part(p_after, '|', 2)::uuid;
end;
$function$;
comment on function public.kb_export_after(p_after text) is 'Reads an export cursor back into its timestamp and id; anything else is refused (22023). Called by admin_export_conversations and admin_export_feedback only.';
revoke all on function public.kb_export_after(p_after text) from public;
grant execute on function public.kb_export_after(p_after text) to service_role;

CREATE OR REPLACE FUNCTION public.kb_export_bounds(p_from timestamp with time zone, p_to timestamp with time zone, p_limit integer)
 RETURNS void
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  if p_limit is null or p_limit not between 1 and 1000 then
    raise exception 'limit must be 1–1000' using errcode = 'invalid_parameter_value';
  end if;
  if p_from is not null and p_to is not null and p_to <= p_from then
    raise exception 'from must be before to' using errcode = 'invalid_parameter_value';
  end if;
end;
$function$;
comment on function public.kb_export_bounds(p_from timestamp with time zone, p_to timestamp with time zone, p_limit integer) is 'Raises unless an export page''s dates and limit are within bounds. Called by the admin_export_* functions only.';
revoke all on function public.kb_export_bounds(p_from timestamp with time zone, p_to timestamp with time zone, p_limit integer) from public;
grant execute on function public.kb_export_bounds(p_from timestamp with time zone, p_to timestamp with time zone, p_limit integer) to service_role;

CREATE OR REPLACE FUNCTION public.kb_export_cursor(p_at timestamp with time zone, p_id uuid)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select to_char(p_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '|' || p_id::text;
$function$;
comment on function public.kb_export_cursor(p_at timestamp with time zone, p_id uuid) is 'An export page''s cursor from a row''s timestamp (with microseconds) and id. Called by admin_export_conversations and admin_export_feedback only.';
revoke all on function public.kb_export_cursor(p_at timestamp with time zone, p_id uuid) from public;
grant execute on function public.kb_export_cursor(p_at timestamp with time zone, p_id uuid) to service_role;

CREATE OR REPLACE FUNCTION public.kb_get_settings()
 RETURNS TABLE(answer_mode text, evidence_threshold real, lexical_threshold real, hybrid_threshold real, greeting text, refusal_suggestions text[], support_url text, starters text[], updated_at timestamp with time zone)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select s.answer_mode, s.evidence_threshold, s.lexical_threshold, s.hybrid_threshold, s.greeting,
         s.refusal_suggestions, s.support_url, s.starters, s.updated_at
  from kb_settings s where s.id;
$function$;
comment on function public.kb_get_settings() is 'The site owner''s settings (answer mode, thresholds, greeting, refusal suggestions, support URL, starters), each null when unset; public, read by /api/config and every question. Called with the anon key.';
revoke all on function public.kb_get_settings() from public;
grant execute on function public.kb_get_settings() to anon, authenticated, service_role;

CREATE OR REPLACE FUNCTION public.kb_has_documents()
 RETURNS boolean
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select exists (select 1 from kb_documents where status = 'ready' and enabled);
$function$;
comment on function public.kb_has_documents() is 'Whether any enabled, ready document exists: the API refuses questions to an empty knowledge base without searching. Called with the anon key by the chat store.';
revoke all on function public.kb_has_documents() from public;
grant execute on function public.kb_has_documents() to anon, authenticated, service_role;

CREATE OR REPLACE FUNCTION public.kb_http_cache(p_prefix text)
 RETURNS TABLE(source text, http_cache jsonb)
 LANGUAGE sql
 STABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select d.source, d.http_cache
  from kb_documents d
  where d.http_cache is not null
    and d.status = 'ready'
    and d.checksum = d.http_cache ->> 'checksum'
    and left(d.source, char_length(p_prefix)) = p_prefix;
$function$;
comment on function public.kb_http_cache(p_prefix text) is 'The HTTP validators (ETag, Last-Modified) of the ready documents under a URL prefix whose checksum still matches, for conditional re-crawls. Called by the crawler with the service-role key.';
revoke all on function public.kb_http_cache(p_prefix text) from public;
grant execute on function public.kb_http_cache(p_prefix text) to service_role;

CREATE OR REPLACE FUNCTION public.kb_list_documents()
 RETURNS TABLE(id uuid, source text, name text, status text, enabled boolean, chunks bigint, meta jsonb, updated_at timestamp with time zone)
 LANGUAGE sql
 STABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select d.id, d.source, d.name, d.status, d.enabled,
    (select count(*) from kb_chunks c where c.document_id = d.id),
    d.meta, d.updated_at
  from kb_documents d
  order by d.source;
$function$;
comment on function public.kb_list_documents() is 'Every document with its status, enabled flag and chunk count. Called by the ingestion CLI (--list) with the service-role key.';
revoke all on function public.kb_list_documents() from public;
grant execute on function public.kb_list_documents() to service_role;

CREATE OR REPLACE FUNCTION public.kb_optimize()
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  perform gin_clean_pending_list('kb_chunks_fts'::regclass);
  analyze kb_documents, kb_chunks, kb_embeddings, kb_lexemes;
end;
$function$;
comment on function public.kb_optimize() is 'Cleans the full-text index''s pending list and refreshes the planner statistics of documents, chunks, embeddings and lexemes after an ingestion run, so the first questions after it are fast. Called by the ingester with the service-role key.';
revoke all on function public.kb_optimize() from public;
grant execute on function public.kb_optimize() to service_role;

CREATE OR REPLACE FUNCTION public.kb_page_bounds(p_limit integer, p_offset integer)
 RETURNS void
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  if p_limit is null or p_limit not between 1 and 200 or p_offset is null or p_offset not between 0 and 100000 then
    raise exception 'limit must be 1–200 and offset 0–100000' using errcode = 'invalid_parameter_value';
  end if;
end;
$function$;
comment on function public.kb_page_bounds(p_limit integer, p_offset integer) is 'Raises unless a page''s limit and offset are within bounds. Called by the admin list functions only.';
revoke all on function public.kb_page_bounds(p_limit integer, p_offset integer) from public;
grant execute on function public.kb_page_bounds(p_limit integer, p_offset integer) to service_role;

CREATE OR REPLACE FUNCTION public.kb_prune_documents(p_prefix text, p_keep text[], p_dry_run boolean DEFAULT false)
 RETURNS TABLE(id uuid, source text)
 LANGUAGE plpgsql
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  if coalesce(p_prefix, '') = '' then
    raise exception 'kb_prune_documents needs a non-empty prefix';
  end if;
  if p_dry_run then
    return query
      select d.id, d.source from kb_documents d
      where left(d.source, length(p_prefix)) = p_prefix and not (d.source = any (coalesce(p_keep, '{}')))
      order by d.source;
  else
    return query
      delete from kb_documents d
      where left(d.source, length(p_prefix)) = p_prefix and not (d.source = any (coalesce(p_keep, '{}')))
      returning d.id, d.source;
  end if;
end;
$function$;
comment on function public.kb_prune_documents(p_prefix text, p_keep text[], p_dry_run boolean) is 'Deletes (or, in a dry run, lists) the documents under a source prefix that are not in the kept list: pages gone from a crawled site. Called by the ingester with the service-role key.';
revoke all on function public.kb_prune_documents(p_prefix text, p_keep text[], p_dry_run boolean) from public;
grant execute on function public.kb_prune_documents(p_prefix text, p_keep text[], p_dry_run boolean) to service_role;

CREATE OR REPLACE FUNCTION public.kb_recount_statistics()
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  delete from kb_lexemes;
  insert into kb_lexemes (lexeme, df)
  select lexeme, count(*)::integer
  from kb_chunks c
  join kb_documents d on d.id = c.document_id and d.status = 'ready' and d.enabled,
  unnest(tsvector_to_array(c.fts)) lexeme
  group by lexeme;
  update kb_corpus_stats s set chunks = x.n, total_length = x.len
  from (
    select count(*) as n, coalesce(sum(c.fts_length), 0) as len
    from kb_chunks c join kb_documents d on d.id = c.document_id and d.status = 'ready' and d.enabled
  ) x
  where s.id;
end;
$function$;
comment on function public.kb_recount_statistics() is 'Recounts the corpus statistics (chunk count, total length, lexeme document frequencies) from the chunks: a repair, and the start for a database loaded before they were kept. Called by kb_restore_indexes and by hand.';
revoke all on function public.kb_recount_statistics() from public;
grant execute on function public.kb_recount_statistics() to service_role;

CREATE OR REPLACE FUNCTION public.kb_refusal_suggestions_ok(p text[])
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select p is null
    or (coalesce(array_ndims(p), 1) = 1
        and coalesce(cardinality(p), 0) <= 5
        and not exists (select 1 from unnest(p) s where s is null or char_length(btrim(s)) = 0 or char_length(s) > 120));
$function$;
comment on function public.kb_refusal_suggestions_ok(p text[]) is 'Whether a list of refusal suggestions is within bounds. The CHECK behind kb_settings.refusal_suggestions; no caller.';
revoke all on function public.kb_refusal_suggestions_ok(p text[]) from public;
grant execute on function public.kb_refusal_suggestions_ok(p text[]) to service_role;

CREATE OR REPLACE FUNCTION public.kb_restore_indexes()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
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
$function$;
comment on function public.kb_restore_indexes() is 'Rebuilds the indexes recorded in kb_deferred_indexes from fixed statements (an unknown name is removed, never run); returns how many. Called by the embedded store''s ingestion at the end of a run, or at the next one after a crash.';
revoke all on function public.kb_restore_indexes() from public;
grant execute on function public.kb_restore_indexes() to service_role;

CREATE OR REPLACE FUNCTION public.kb_search_chunks(query_embedding extensions.vector DEFAULT NULL::extensions.vector, query_text text DEFAULT NULL::text, match_count integer DEFAULT 5, search_mode text DEFAULT 'hybrid'::text, filters jsonb DEFAULT '{}'::jsonb, candidate_count integer DEFAULT 50)
 RETURNS TABLE(chunk_id uuid, content text, meta jsonb, document_id uuid, document_title text, document_url text, document_meta jsonb, cosine double precision, bm25 double precision, coverage double precision, vector_rank integer, lexical_rank integer, score double precision)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
 SET "hnsw.iterative_scan" TO 'relaxed_order'
 SET "hnsw.ef_search" TO '200'
AS $function$
#variable_conflict use_column
declare
  -- The lexical probe: lexemes rarest first until their document frequencies add up to this many chunks.
  c_probe_budget constant integer := 300;
  -- Candidates scored with BM25 at most (the probe's rarest lexeme alone may be in more chunks).
  c_lexical_cap constant integer := 1000;
  v_text text := nullif(btrim(query_text), '');
  v_mode text;
  v_k integer := least(greatest(match_count, 1), 200);
  v_candidates integer := least(greatest(candidate_count, match_count, 1), 1000);
  f jsonb := coalesce(filters, '{}'::jsonb);
  v_docs uuid[];
  -- Chunks fetched by distance beyond the candidates, so that ties at the cut are ordered like all others.
  c_tie_slack constant integer := 10;
  v_vector uuid[] := '{}';
  v_vector_src text[] := '{}';
  v_vector_pos integer[] := '{}';
  v_query tsquery;
  v_probe tsquery;
  v_lexemes text[] := '{}';
  v_idf double precision[] := '{}';
  v_avgdl double precision;
  v_lex_ids uuid[] := '{}';
  v_lex_bm25 double precision[] := '{}';
  v_lex_src text[] := '{}';
  v_lex_pos integer[] := '{}';
begin
  v_mode := case
    when query_embedding is null then 'lexical'
    when v_text is null then 'vector'
    when search_mode in ('vector', 'lexical') then search_mode
    else 'hybrid'
  end;
  if v_mode = 'lexical' and v_text is null then
    return;
  end if;

  -- Filters → the list of documents they allow (null: no filter, every ready and enabled document).
  if f ?| array['document_ids', 'source_types', 'tags', 'languages', 'date_from', 'date_to'] then
    v_docs := array(
      select d.id from kb_documents d
      where d.status = 'ready' and d.enabled
        -- Compared as uuid (the API validates them as uuids) so the primary key finds them; an id that is
        -- not a uuid matches nothing, as before, instead of failing the cast.
        and (jsonb_typeof(f -> 'document_ids') is distinct from 'array'
          or d.id = any (array(
            select x::uuid from jsonb_array_elements_text(f -> 'document_ids') x
            where x ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')))
        and (jsonb_typeof(f -> 'source_types') is distinct from 'array'
          or d.meta ->> 'source_type' in (select jsonb_array_elements_text(f -> 'source_types')))
        and (jsonb_typeof(f -> 'tags') is distinct from 'array'
          or (jsonb_typeof(d.meta -> 'tags') = 'array'
            and d.meta -> 'tags' ?| array(select jsonb_array_elements_text(f -> 'tags'))))
        and (jsonb_typeof(f -> 'languages') is distinct from 'array'
          or d.meta ->> 'language' in (select jsonb_array_elements_text(f -> 'languages')))
        and (f ->> 'date_from' is null or coalesce(
          case when d.meta ->> 'published_at' ~ '^\d{4}-\d{2}-\d{2}' then (d.meta ->> 'published_at')::timestamptz end,
          d.updated_at) >= (f ->> 'date_from')::timestamptz)
        and (f ->> 'date_to' is null or coalesce(
          case when d.meta ->> 'published_at' ~ '^\d{4}-\d{2}-\d{2}' then (d.meta ->> 'published_at')::timestamptz end,
          d.updated_at) <= (f ->> 'date_to')::timestamptz));
  end if;

  if v_mode in ('hybrid', 'vector') then
    -- The nearest chunks by distance alone (the order the HNSW index gives), a few more than the candidates so
    -- that a tie at the cut is decided here and not by the scan; then by distance, ties by page and position.
    if v_docs is null then
      select coalesce(array_agg(x.id order by x.distance, x.src collate "C", x.pos), '{}'),
        coalesce(array_agg(x.src order by x.distance, x.src collate "C", x.pos), '{}'),
        coalesce(array_agg(x.pos order by x.distance, x.src collate "C", x.pos), '{}')
        into v_vector, v_vector_src, v_vector_pos
      from (
        select n.* from (
          select e.chunk_id as id, e.embedding <=> query_embedding as distance, d.source as src, c.position as pos
          from kb_embeddings e
          join kb_chunks c on c.id = e.chunk_id
          join kb_documents d on d.id = c.document_id
          where d.status = 'ready' and d.enabled
          order by e.embedding <=> query_embedding
          limit v_candidates + c_tie_slack
        ) n
        -- "+ 0": a full sort. On the index's order PostgreSQL 17 plans an incremental sort, which trusts that
        -- order; hnsw.iterative_scan = relaxed_order can return rows slightly out of it (pgvector's README).
        order by n.distance + 0, n.src collate "C", n.pos
        limit v_candidates
      ) x;
    else
      select coalesce(array_agg(x.id order by x.distance, x.src collate "C", x.pos), '{}'),
        coalesce(array_agg(x.src order by x.distance, x.src collate "C", x.pos), '{}'),
        coalesce(array_agg(x.pos order by x.distance, x.src collate "C", x.pos), '{}')
        into v_vector, v_vector_src, v_vector_pos
      from (
        select n.id, n.distance, d.source as src, n.pos from (
          select e.chunk_id as id, e.embedding <=> query_embedding as distance, c.document_id, c.position as pos
          from kb_embeddings e
          join kb_chunks c on c.id = e.chunk_id
          where c.document_id = any (v_docs)
          order by e.embedding <=> query_embedding
          limit v_candidates + c_tie_slack
        ) n
        join kb_documents d on d.id = n.document_id
        order by n.distance + 0, d.source collate "C", n.pos
        limit v_candidates
      ) x;
    end if;
  end if;

  -- The question's lexemes and their weights whenever there is text: coverage is computed in every mode.
  if v_text is not null then
    -- The question as typed (websearch syntax); its AND becomes OR unless it uses negation ("-word"), which
    -- only makes sense as typed.
    select case when q::text like '%!%' then q else replace(q::text, ' & ', ' | ')::tsquery end
      into v_query
    from websearch_to_tsquery('english'::regconfig, v_text) q;
    select greatest(s.total_length::double precision / nullif(s.chunks, 0), 1),
      coalesce(array_agg(t.lexeme order by t.df, t.lexeme), '{}'),
      -- A lexeme no chunk holds is weighed as one that a single chunk holds (the header).
      coalesce(array_agg(ln(1 + (s.chunks - greatest(t.df, 1) + 0.5) / (greatest(t.df, 1) + 0.5))
        order by t.df, t.lexeme), '{}'),
      string_agg(quote_literal(t.lexeme), ' | ' order by t.df, t.lexeme)
        filter (where t.rarity = 1 or t.cumulative_df <= c_probe_budget)::tsquery
      into v_avgdl, v_lexemes, v_idf, v_probe
    from kb_corpus_stats s,
      lateral (
        select q.lexeme, coalesce(l.df, 0) as df,
          sum(coalesce(l.df, 0)) over (order by coalesce(l.df, 0), q.lexeme) as cumulative_df,
          row_number() over (order by coalesce(l.df, 0), q.lexeme) as rarity
        from (select distinct lexeme from unnest(tsvector_to_array(to_tsvector('english'::regconfig, v_text))) lexeme) q
        left join kb_lexemes l on l.lexeme = q.lexeme
      ) t
    where s.id
    group by s.chunks, s.total_length;
    if v_query::text like '%!%' then
      v_probe := v_query;
    end if;
  end if;

  if v_mode in ('hybrid', 'lexical') and v_probe is not null then
    select coalesce(array_agg(x.id order by x.bm25 desc, x.src collate "C", x.pos), '{}'),
      coalesce(array_agg(x.bm25 order by x.bm25 desc, x.src collate "C", x.pos), '{}'),
      coalesce(array_agg(x.src order by x.bm25 desc, x.src collate "C", x.pos), '{}'),
      coalesce(array_agg(x.pos order by x.bm25 desc, x.src collate "C", x.pos), '{}')
      into v_lex_ids, v_lex_bm25, v_lex_src, v_lex_pos
    from (
      select c.id, s.bm25, c.src, c.pos
      from (
        select c.id, c.document_id, c.position as pos, c.fts, c.fts_length,
          -- A scalar subquery per candidate (a primary-key lookup): as a join, the planner hashed every
          -- document (a sequential scan of kb_documents, 5–7 ms at 10k documents) to filter ≤ 1,000 chunks.
          -- The page's source when it is searchable, else null.
          (select d.source from kb_documents d where d.id = c.document_id and d.status = 'ready' and d.enabled) as src
        from kb_chunks c
        where c.fts @@ v_probe and (v_query::text not like '%!%' or c.fts @@ v_query)
        limit c_lexical_cap
      ) c
      cross join lateral (
        select sum(v_idf[array_position(v_lexemes, u.lexeme)] * (tf.n * 2.2) / (tf.n + 1.2 * (0.25 + 0.75 * c.fts_length / v_avgdl))) as bm25
        from unnest(ts_filter(setweight(setweight(c.fts, 'D'), 'A', v_lexemes), '{a}')) u,
          lateral (select coalesce(array_length(u.positions, 1), 1)::double precision as n) tf
      ) s
      where c.src is not null
        and (v_docs is null or c.document_id = any (v_docs))
      order by s.bm25 desc, c.src collate "C", c.pos
      limit v_candidates
    ) x;
  end if;

  return query
  with vec as (
    select v.id, v.ord::integer as rank, v.src, v.pos
    from unnest(v_vector, v_vector_src, v_vector_pos) with ordinality v(id, src, pos, ord)
  ),
  lex as (
    select l.id, l.bm25, l.ord::integer as rank, l.src, l.pos
    from unnest(v_lex_ids, v_lex_bm25, v_lex_src, v_lex_pos) with ordinality l(id, bm25, src, pos, ord)
  ),
  fused as (
    select coalesce(v.id, l.id) as id, v.rank as vector_rank, l.rank as lexical_rank, l.bm25,
      coalesce(1.0 / (60 + v.rank), 0) + coalesce(1.0 / (60 + l.rank), 0) as rrf,
      coalesce(v.src, l.src) as src, coalesce(v.pos, l.pos) as pos
    from vec v full join lex l on l.id = v.id
  ),
  -- The best k by the mode's order first (the vector list is already in distance order), then the
  -- embedding of those k only, for their cosine: not of every fused candidate.
  top as (
    select fu.* from fused fu
    order by case v_mode
        when 'vector' then -fu.vector_rank
        when 'lexical' then fu.bm25
        else fu.rrf
      end desc, fu.src collate "C", fu.pos
    limit v_k
  ),
  ranked as (
    select t.*,
      case when query_embedding is not null then 1 - (e.embedding <=> query_embedding) end as cosine
    from top t
    left join kb_embeddings e on e.chunk_id = t.id
  ),
  scored as (
    select r.*,
      case v_mode when 'vector' then r.cosine when 'lexical' then r.bm25 else r.rrf end as score
    from ranked r
  )
  select
    c.id, c.content, c.meta, d.id, d.name, d.meta ->> 'url', d.meta,
    r.cosine, r.bm25,
    case when v_text is not null then (
      select sum(t.idf) filter (where c.fts @@ quote_literal(t.lexeme)::tsquery or t.lexeme = any (d.title_terms))
        / nullif(sum(t.idf), 0)
      from unnest(v_lexemes, v_idf) t(lexeme, idf)) end,
    r.vector_rank, r.lexical_rank, r.score::double precision
  from scored r
  join kb_chunks c on c.id = r.id
  join kb_documents d on d.id = c.document_id
  order by r.score desc, d.source collate "C", c.position;
end;
$function$;
comment on function public.kb_search_chunks(query_embedding extensions.vector, query_text text, match_count integer, search_mode text, filters jsonb, candidate_count integer) is 'The search behind search_chunks: vector and BM25 full-text candidates fused by reciprocal rank, with the evidence signals (cosine; coverage of the question by the chunk, its section path and its page title, in every mode when there is text) that the gate reads. A question lexeme no chunk holds is weighed in coverage as one a single chunk holds (migration 20261128030000); coverage in vector mode since 20261128090000. Ties in every list and in the result go to the page whose source sorts first (byte order), then to the earlier chunk of the page (20261129140000).';
revoke all on function public.kb_search_chunks(query_embedding extensions.vector, query_text text, match_count integer, search_mode text, filters jsonb, candidate_count integer) from public;
grant execute on function public.kb_search_chunks(query_embedding extensions.vector, query_text text, match_count integer, search_mode text, filters jsonb, candidate_count integer) to service_role;

CREATE OR REPLACE FUNCTION public.kb_set_answer_write_key(p_key_hash text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  if p_key_hash is null or p_key_hash !~ '^[0-9a-f]{64}$' then
    raise exception 'kb_set_answer_write_key takes the SHA-256 of the key as 64 lowercase hex digits'
      using errcode = 'invalid_parameter_value';
  end if;
  insert into kb_answer_write_key (id, key_hash) values (true, p_key_hash)
  on conflict (id) do update set key_hash = excluded.key_hash, set_at = now();
end;
$function$;
comment on function public.kb_set_answer_write_key(p_key_hash text) is 'Stores the SHA-256 of the server''s answer write key, replacing any earlier one. Called by the service role (npm run admin -- answer-key) and by the embedded store when it opens.';
revoke all on function public.kb_set_answer_write_key(p_key_hash text) from public;
grant execute on function public.kb_set_answer_write_key(p_key_hash text) to service_role;

CREATE OR REPLACE FUNCTION public.kb_set_document_enabled(p_id uuid, p_enabled boolean)
 RETURNS boolean
 LANGUAGE sql
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  with changed as (
    update kb_documents set enabled = p_enabled, updated_at = now() where id = p_id returning 1
  )
  select exists (select 1 from changed);
$function$;
comment on function public.kb_set_document_enabled(p_id uuid, p_enabled boolean) is 'Enables or disables a document; false when there is no such document. Called by the ingestion CLI with the service-role key.';
revoke all on function public.kb_set_document_enabled(p_id uuid, p_enabled boolean) from public;
grant execute on function public.kb_set_document_enabled(p_id uuid, p_enabled boolean) to service_role;

CREATE OR REPLACE FUNCTION public.kb_set_embeddings(p_model text, p_embeddings jsonb)
 RETURNS integer
 LANGUAGE plpgsql
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
declare
  v_count integer;
begin
  insert into kb_embeddings (chunk_id, embedding, model)
  select c.id, (x.value -> 'embedding')::text::vector, p_model
  from jsonb_array_elements(p_embeddings) x
  join kb_chunks c on c.id = (x.value ->> 'chunk_id')::uuid
  on conflict (chunk_id) do update set embedding = excluded.embedding, model = excluded.model, created_at = now();
  get diagnostics v_count = row_count;
  return v_count;
end;
$function$;
comment on function public.kb_set_embeddings(p_model text, p_embeddings jsonb) is 'Stores (replacing) the embeddings of the given model for the given chunks; returns how many. Called by npm run reindex with the service-role key.';
revoke all on function public.kb_set_embeddings(p_model text, p_embeddings jsonb) from public;
grant execute on function public.kb_set_embeddings(p_model text, p_embeddings jsonb) to service_role;

CREATE OR REPLACE FUNCTION public.kb_set_http_cache(p_source text, p_http_cache jsonb)
 RETURNS boolean
 LANGUAGE sql
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  update kb_documents set http_cache = p_http_cache where source = p_source returning true;
$function$;
comment on function public.kb_set_http_cache(p_source text, p_http_cache jsonb) is 'Stores (or clears) a document''s HTTP validators; false when there is no such document. Called by the crawler with the service-role key.';
revoke all on function public.kb_set_http_cache(p_source text, p_http_cache jsonb) from public;
grant execute on function public.kb_set_http_cache(p_source text, p_http_cache jsonb) to service_role;

CREATE OR REPLACE FUNCTION public.kb_set_settings(p_patch jsonb)
 RETURNS TABLE(answer_mode text, evidence_threshold real, lexical_threshold real, hybrid_threshold real, greeting text, refusal_suggestions text[], support_url text, starters text[], updated_at timestamp with time zone)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
declare
  v_key text;
  v_threshold text;
  v_suggestions text[];
  v_starters text[];
  v_old_url text;
begin
  if coalesce(auth.jwt() -> 'app_metadata' ->> 'role', '') <> 'admin' then
    raise exception 'admins only' using errcode = 'insufficient_privilege';
  end if;
  if p_patch is null or jsonb_typeof(p_patch) <> 'object' then
    raise exception 'kb_set_settings: the patch must be a JSON object' using errcode = 'invalid_parameter_value';
  end if;
  for v_key in select jsonb_object_keys(p_patch) loop
    if v_key not in ('answer_mode', 'evidence_threshold', 'lexical_threshold', 'hybrid_threshold', 'greeting',
                     'refusal_suggestions', 'support_url', 'starters', 'webhook_url', 'webhook_secret') then
      raise exception 'kb_set_settings: unknown setting %', v_key using errcode = 'invalid_parameter_value';
    end if;
  end loop;

  if p_patch ? 'answer_mode' and jsonb_typeof(p_patch -> 'answer_mode') <> 'null'
     and coalesce(p_patch ->> 'answer_mode', '') not in ('extractive', 'generative') then
    raise exception 'kb_set_settings: answer_mode must be extractive, generative or null' using errcode = 'invalid_parameter_value';
  end if;
  foreach v_threshold in array array['evidence_threshold', 'lexical_threshold', 'hybrid_threshold'] loop
    -- Nested, not one condition: a number is cast only once it is known to be one.
    if p_patch ? v_threshold and jsonb_typeof(p_patch -> v_threshold) <> 'null' then
      if jsonb_typeof(p_patch -> v_threshold) <> 'number' then
        raise exception 'kb_set_settings: % must be a number from 0 to 1 or null', v_threshold using errcode = 'invalid_parameter_value';
      end if;
      if (p_patch ->> v_threshold)::numeric not between 0 and 1 then
        raise exception 'kb_set_settings: % must be a number from 0 to 1 or null', v_threshold using errcode = 'invalid_parameter_value';
      end if;
    end if;
  end loop;
  if p_patch ? 'greeting' and jsonb_typeof(p_patch -> 'greeting') <> 'null'
     and (jsonb_typeof(p_patch -> 'greeting') <> 'string' or char_length(p_patch ->> 'greeting') > 500
          or char_length(btrim(p_patch ->> 'greeting')) = 0) then
    raise exception 'kb_set_settings: greeting must be 1 to 500 characters or null' using errcode = 'invalid_parameter_value';
  end if;
  if p_patch ? 'refusal_suggestions' and jsonb_typeof(p_patch -> 'refusal_suggestions') <> 'null' then
    if jsonb_typeof(p_patch -> 'refusal_suggestions') <> 'array'
       or exists (select 1 from jsonb_array_elements(p_patch -> 'refusal_suggestions') e where jsonb_typeof(e) <> 'string') then
      raise exception 'kb_set_settings: refusal_suggestions must be an array of strings or null' using errcode = 'invalid_parameter_value';
    end if;
    v_suggestions := array(select jsonb_array_elements_text(p_patch -> 'refusal_suggestions'));
    if not kb_refusal_suggestions_ok(v_suggestions) then
      raise exception 'kb_set_settings: refusal_suggestions must be at most 5 items of 1 to 120 characters' using errcode = 'invalid_parameter_value';
    end if;
  end if;
  if p_patch ? 'support_url' and jsonb_typeof(p_patch -> 'support_url') <> 'null'
     and (jsonb_typeof(p_patch -> 'support_url') <> 'string' or not kb_support_url_ok(p_patch ->> 'support_url')) then
    raise exception 'kb_set_settings: support_url must be an https: or mailto: address of at most 2000 characters, or null'
      using errcode = 'invalid_parameter_value';
  end if;
  if p_patch ? 'starters' and jsonb_typeof(p_patch -> 'starters') <> 'null' then
    if jsonb_typeof(p_patch -> 'starters') <> 'array'
       or exists (select 1 from jsonb_array_elements(p_patch -> 'starters') e where jsonb_typeof(e) <> 'string') then
      raise exception 'kb_set_settings: starters must be an array of strings or null' using errcode = 'invalid_parameter_value';
    end if;
    v_starters := array(select jsonb_array_elements_text(p_patch -> 'starters'));
    if not kb_starters_ok(v_starters) then
      raise exception 'kb_set_settings: starters must be at most 4 items of 1 to 120 characters' using errcode = 'invalid_parameter_value';
    end if;
  end if;
  if p_patch ? 'webhook_url' and jsonb_typeof(p_patch -> 'webhook_url') <> 'null'
     and (jsonb_typeof(p_patch -> 'webhook_url') <> 'string' or not kb_webhook_url_ok(p_patch ->> 'webhook_url')) then
    raise exception 'kb_set_settings: webhook_url must be an https URL (or http to loopback) of at most 2000 characters, or null'
      using errcode = 'invalid_parameter_value';
  end if;
  if (p_patch ? 'webhook_url' or p_patch ? 'webhook_secret')
     and not coalesce((select s.webhook_console from kb_settings s where s.id), false) then
    raise exception 'kb_set_settings: this deployment takes the webhook from its environment (KB_WEBHOOK_URL, KB_WEBHOOK_SECRET); the database owner opts in with: update kb_settings set webhook_console = true'
      using errcode = 'insufficient_privilege';
  end if;
  if p_patch ? 'webhook_secret' and jsonb_typeof(p_patch -> 'webhook_secret') <> 'null'
     and (jsonb_typeof(p_patch -> 'webhook_secret') <> 'string' or char_length(p_patch ->> 'webhook_secret') not between 32 and 256) then
    raise exception 'kb_set_settings: webhook_secret must be 32 to 256 characters or null' using errcode = 'invalid_parameter_value';
  end if;
  -- One pair: a URL is stored only with its own secret, and clearing the URL clears the secret, so no URL set
  -- here is ever signed with a secret meant for another.
  if (p_patch ? 'webhook_url' or p_patch ? 'webhook_secret')
     and (jsonb_typeof(p_patch -> 'webhook_url') is distinct from jsonb_typeof(p_patch -> 'webhook_secret')) then
    raise exception 'kb_set_settings: webhook_url and webhook_secret are set together (both strings) or cleared together (both null)'
      using errcode = 'invalid_parameter_value';
  end if;
  if p_patch ? 'webhook_url' then
    select s.webhook_url into v_old_url from kb_settings s where s.id;
    insert into kb_webhook_changes (changed_by, old_host, new_host)
      values (auth.uid(), kb_url_host(v_old_url), kb_url_host(p_patch ->> 'webhook_url'));
  end if;

  return query
    update kb_settings s set
      answer_mode = case when p_patch ? 'answer_mode' then p_patch ->> 'answer_mode' else s.answer_mode end,
      evidence_threshold = case when p_patch ? 'evidence_threshold' then (p_patch ->> 'evidence_threshold')::real else s.evidence_threshold end,
      lexical_threshold = case when p_patch ? 'lexical_threshold' then (p_patch ->> 'lexical_threshold')::real else s.lexical_threshold end,
      hybrid_threshold = case when p_patch ? 'hybrid_threshold' then (p_patch ->> 'hybrid_threshold')::real else s.hybrid_threshold end,
      greeting = case when p_patch ? 'greeting' then p_patch ->> 'greeting' else s.greeting end,
      refusal_suggestions = case when p_patch ? 'refusal_suggestions' then v_suggestions else s.refusal_suggestions end,
      support_url = case when p_patch ? 'support_url' then p_patch ->> 'support_url' else s.support_url end,
      starters = case when p_patch ? 'starters' then v_starters else s.starters end,
      webhook_url = case when p_patch ? 'webhook_url' then p_patch ->> 'webhook_url' else s.webhook_url end,
      webhook_secret = case when p_patch ? 'webhook_secret' then p_patch ->> 'webhook_secret' else s.webhook_secret end,
      updated_at = now(),
      updated_by = auth.uid()
    where s.id
    returning s.answer_mode, s.evidence_threshold, s.lexical_threshold, s.hybrid_threshold, s.greeting,
              s.refusal_suggestions, s.support_url, s.starters, s.updated_at;
end;
$function$;
comment on function public.kb_set_settings(p_patch jsonb) is 'Applies a JSON patch to the settings (a key set to null clears it) and returns them; refuses all but admins, and webhook keys unless kb_settings.webhook_console is on (the URL and its secret together). Called by the console with the admin''s JWT.';
revoke all on function public.kb_set_settings(p_patch jsonb) from public;
grant execute on function public.kb_set_settings(p_patch jsonb) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.kb_shown_citation(p_citation jsonb)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
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
$function$;
comment on function public.kb_shown_citation(p_citation jsonb) is 'A stored citation with each field of its type, else null: the console''s defensive reading of a stored row. Called by admin_list_conversations only.';
revoke all on function public.kb_shown_citation(p_citation jsonb) from public;
grant execute on function public.kb_shown_citation(p_citation jsonb) to service_role;

CREATE OR REPLACE FUNCTION public.kb_stale_documents(p_model text)
 RETURNS TABLE(id uuid, source text, name text, stale bigint)
 LANGUAGE sql
 STABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select d.id, d.source, d.name, count(*)
  from kb_documents d
  join kb_chunks c on c.document_id = d.id
  left join kb_embeddings e on e.chunk_id = c.id
  where e.model is distinct from p_model
  group by d.id
  order by d.source;
$function$;
comment on function public.kb_stale_documents(p_model text) is 'Documents with chunks that lack an embedding of the given model, and how many: what npm run reindex re-embeds. Called with the service-role key.';
revoke all on function public.kb_stale_documents(p_model text) from public;
grant execute on function public.kb_stale_documents(p_model text) to service_role;

CREATE OR REPLACE FUNCTION public.kb_starters_ok(p text[])
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select p is null
    or (coalesce(array_ndims(p), 1) = 1
        and coalesce(cardinality(p), 0) <= 4
        and not exists (select 1 from unnest(p) s where s is null or char_length(btrim(s)) = 0 or char_length(s) > 120));
$function$;
comment on function public.kb_starters_ok(p text[]) is 'Whether a list of starter questions is within bounds. The CHECK behind kb_settings.starters; no caller.';
revoke all on function public.kb_starters_ok(p text[]) from public;
grant execute on function public.kb_starters_ok(p text[]) to service_role;

CREATE OR REPLACE FUNCTION public.kb_statistics_deferred()
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select exists (select 1 from kb_deferred_indexes where name = 'kb_statistics');
$function$;
comment on function public.kb_statistics_deferred() is 'Whether a bulk load has deferred the corpus statistics (they are recounted when its indexes are restored). Called by the statistics triggers only.';
revoke all on function public.kb_statistics_deferred() from public;
grant execute on function public.kb_statistics_deferred() to service_role;

CREATE OR REPLACE FUNCTION public.kb_stats()
 RETURNS TABLE(documents bigint, ready_documents bigint, chunks bigint, embeddings bigint)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select
    (select count(*) from kb_documents),
    (select count(*) from kb_documents where status = 'ready' and enabled),
    (select count(*) from kb_chunks),
    (select count(*) from kb_embeddings);
$function$;
comment on function public.kb_stats() is 'Counts of documents, ready documents, chunks and embeddings, for /api/health. Called with the anon key by the chat store; open to anon, authenticated and service_role.';
revoke all on function public.kb_stats() from public;
grant execute on function public.kb_stats() to anon, authenticated, service_role;

CREATE OR REPLACE FUNCTION public.kb_support_url_ok(p text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select p is null
    or (char_length(p) <= 2000 and p ~ '^(https://[^[:space:][:cntrl:]]+|mailto:[^[:space:][:cntrl:]]+)$');
$function$;
comment on function public.kb_support_url_ok(p text) is 'Whether a support URL is an https:// or mailto: address within bounds. The CHECK behind kb_settings.support_url; no caller.';
revoke all on function public.kb_support_url_ok(p text) from public;
grant execute on function public.kb_support_url_ok(p text) to service_role;

CREATE OR REPLACE FUNCTION public.kb_sync_run_finish(p_id uuid, p_counts jsonb, p_errors jsonb)
 RETURNS boolean
 LANGUAGE sql
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  update kb_sync_runs
  set finished_at = now(),
      counts = p_counts,
      errors = coalesce((
        select jsonb_agg(jsonb_build_object('source', left(e ->> 'source', 2000), 'error', left(e ->> 'error', 500)) order by n)
        from jsonb_array_elements(coalesce(p_errors, '[]'::jsonb)) with ordinality as x (e, n)
        where n <= 100
      ), '[]'::jsonb)
  where id = p_id
  returning true;
$function$;
comment on function public.kb_sync_run_finish(p_id uuid, p_counts jsonb, p_errors jsonb) is 'Finishes a sync run with its counts and errors. Called by the ingester with the service-role key.';
revoke all on function public.kb_sync_run_finish(p_id uuid, p_counts jsonb, p_errors jsonb) from public;
grant execute on function public.kb_sync_run_finish(p_id uuid, p_counts jsonb, p_errors jsonb) to service_role;

CREATE OR REPLACE FUNCTION public.kb_sync_run_start(p_source text, p_trigger text)
 RETURNS uuid
 LANGUAGE sql
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  insert into kb_sync_runs (source, trigger) values (p_source, p_trigger) returning id;
$function$;
comment on function public.kb_sync_run_start(p_source text, p_trigger text) is 'Starts a sync run of a source (cli, schedule or console) and returns its id. Called by the ingester with the service-role key.';
revoke all on function public.kb_sync_run_start(p_source text, p_trigger text) from public;
grant execute on function public.kb_sync_run_start(p_source text, p_trigger text) to service_role;

CREATE OR REPLACE FUNCTION public.kb_url_host(p text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select substring(p from '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]+)');
$function$;
comment on function public.kb_url_host(p text) is 'The host and port of a URL, or null: what kb_webhook_changes keeps of a webhook URL. Called by kb_set_settings.';
revoke all on function public.kb_url_host(p text) from public;
grant execute on function public.kb_url_host(p text) to service_role;

CREATE OR REPLACE FUNCTION public.kb_visitor_id(p_user uuid)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select 'v-' || left(encode(sha256(convert_to(p_user::text, 'UTF8')), 'hex'), 10);
$function$;
comment on function public.kb_visitor_id(p_user uuid) is 'A visitor as the console shows them: stable per user, not reversible to the user id. Called by the admin_* functions only.';
revoke all on function public.kb_visitor_id(p_user uuid) from public;
grant execute on function public.kb_visitor_id(p_user uuid) to service_role;

CREATE OR REPLACE FUNCTION public.kb_webhook_target()
 RETURNS TABLE(url text, secret text)
 LANGUAGE sql
 STABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select s.webhook_url, s.webhook_secret from kb_settings s where s.id;
$function$;
comment on function public.kb_webhook_target() is 'The webhook URL with its secret, for the service role only: a sync run posts sync.finished to it. Called by the ingester with the service-role key.';
revoke all on function public.kb_webhook_target() from public;
grant execute on function public.kb_webhook_target() to service_role;

CREATE OR REPLACE FUNCTION public.kb_webhook_url_ok(p text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select p is null
    or (char_length(p) <= 2000
        and p !~ '[\s@]'
        and (p ~* '^https://[^/?#:]+(:\d{1,5})?([/?#]|$)'
             or p ~* '^http://(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])(:\d{1,5})?([/?#]|$)'));
$function$;
comment on function public.kb_webhook_url_ok(p text) is 'Whether a webhook URL is an https:// address (or http:// to this machine) within bounds. The CHECK behind kb_settings.webhook_url; no caller.';
revoke all on function public.kb_webhook_url_ok(p text) from public;
grant execute on function public.kb_webhook_url_ok(p text) to service_role;

CREATE OR REPLACE FUNCTION public.list_chat_sessions(p_limit integer DEFAULT 50)
 RETURNS SETOF public.chat_sessions
 LANGUAGE sql
 STABLE
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
  select * from chat_sessions order by updated_at desc, created_at desc limit least(greatest(p_limit, 1), 200);
$function$;
comment on function public.list_chat_sessions(p_limit integer) is 'The caller''s own chat sessions, newest first, up to a bounded limit. Called with the visitor''s JWT.';
revoke all on function public.list_chat_sessions(p_limit integer) from public;
grant execute on function public.list_chat_sessions(p_limit integer) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.list_content_gaps(p_limit integer DEFAULT 100)
 RETURNS TABLE(question text, reason text, asked integer, first_asked_at timestamp with time zone, last_asked_at timestamp with time zone)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
begin
  if coalesce(auth.jwt() -> 'app_metadata' ->> 'role', '') <> 'admin' then
    raise exception 'admins only' using errcode = 'insufficient_privilege';
  end if;
  return query
    select g.question, g.reason, g.asked, g.first_asked_at, g.last_asked_at
    from content_gaps g order by g.asked desc, g.last_asked_at desc limit least(greatest(p_limit, 1), 1000);
end;
$function$;
comment on function public.list_content_gaps(p_limit integer) is 'The most asked unanswered questions; refuses all but admins. Called with an admin''s JWT.';
revoke all on function public.list_content_gaps(p_limit integer) from public;
grant execute on function public.list_content_gaps(p_limit integer) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.match_chunks(query_embedding extensions.vector, threshold double precision DEFAULT 0.35, match_count integer DEFAULT 5)
 RETURNS TABLE(chunk_id uuid, content text, meta jsonb, document_id uuid, document_title text, document_url text, similarity double precision)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
 SET "hnsw.iterative_scan" TO 'relaxed_order'
AS $function$
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
$function$;
comment on function public.match_chunks(query_embedding extensions.vector, threshold double precision, match_count integer) is 'Plain cosine top-k over enabled documents'' embeddings, bounded count and threshold: the first retrieval, kept for tools and tests that check by vector alone. Called with the visitor''s JWT; the API itself retrieves with search_chunks.';
revoke all on function public.match_chunks(query_embedding extensions.vector, threshold double precision, match_count integer) from public;
grant execute on function public.match_chunks(query_embedding extensions.vector, threshold double precision, match_count integer) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.rate_limit_hit(p_bucket text, p_limit integer, p_window_seconds integer)
 RETURNS TABLE(allowed boolean, remaining integer, reset_at timestamp with time zone)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
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
  delete from rate_limits r
  using (
    select o.user_id, o.bucket, o.window_start from rate_limits o
    where o.window_start < now() - interval '1 day'
    limit 100
  ) expired
  where r.user_id = expired.user_id and r.bucket = expired.bucket and r.window_start = expired.window_start;
  return query select v_hits <= p_limit, greatest(p_limit - v_hits, 0), v_window + make_interval(secs => p_window_seconds);
end;
$function$;
comment on function public.rate_limit_hit(p_bucket text, p_limit integer, p_window_seconds integer) is 'Counts one request in the caller''s fixed window of a named bucket and says whether it is allowed, how many remain and when the window resets; clears up to 100 windows older than a day. Called with the visitor''s JWT before each question.';
revoke all on function public.rate_limit_hit(p_bucket text, p_limit integer, p_window_seconds integer) from public;
grant execute on function public.rate_limit_hit(p_bucket text, p_limit integer, p_window_seconds integer) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.record_content_gap(p_question text, p_reason text, p_message_id uuid, p_write_key text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
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
$function$;
comment on function public.record_content_gap(p_question text, p_reason text, p_message_id uuid, p_write_key text) is 'Counts a question the knowledge base could not answer, once per message id, under its normalised text. Refuses a caller without the answer write key. Called by the chat store with the visitor''s JWT and the key.';
revoke all on function public.record_content_gap(p_question text, p_reason text, p_message_id uuid, p_write_key text) from public;
grant execute on function public.record_content_gap(p_question text, p_reason text, p_message_id uuid, p_write_key text) to authenticated, service_role;

CREATE OR REPLACE FUNCTION public.search_chunks(query_embedding extensions.vector DEFAULT NULL::extensions.vector, query_text text DEFAULT NULL::text, match_count integer DEFAULT 5, search_mode text DEFAULT 'hybrid'::text, filters jsonb DEFAULT '{}'::jsonb, candidate_count integer DEFAULT 50)
 RETURNS TABLE(chunk_id uuid, content text, meta jsonb, document_id uuid, document_title text, document_url text, document_meta jsonb, cosine double precision, bm25 double precision, coverage double precision, vector_rank integer, lexical_rank integer, score double precision)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'extensions', 'pg_temp'
AS $function$
#variable_conflict use_column
declare
  c_context_weight constant double precision := 0.5;
  -- Evidence a page of the last answer gains over a page off the thread (the header).
  c_thread_margin constant double precision := 0.01;
  -- Keyword mode keeps the margin of 20261127030000: measured there, a smaller one lost Railway's follow-ups.
  c_lexical_margin constant double precision := 0.1;
  c_section_prior constant double precision := 0.03;
  v_count integer := least(greatest(coalesce(match_count, 5), 1), 200);
  v_candidates integer := least(greatest(coalesce(candidate_count, 50), 1), 200);
  v_context jsonb;
  v_terms text;
  v_docs uuid[];
  v_sections text[];
  v_thread uuid[];
  v_scope uuid[];
  v_own_known boolean;
  v_points_back boolean;
  v_own_required boolean;
  -- Full text only (keyword mode, or no embedding): no embedding of the contextual text carries the topic.
  v_lexical boolean := search_mode = 'lexical' or query_embedding is null;
  v_margin double precision := case when search_mode = 'lexical' or query_embedding is null
    then c_lexical_margin else c_thread_margin end;
begin
  if char_length(coalesce(query_text, '')) > 2000
     or (filters is not null and (jsonb_typeof(filters) <> 'object' or pg_column_size(filters) > 16384))
     or (search_mode is not null and search_mode not in ('hybrid', 'vector', 'lexical')) then
    raise exception 'search_chunks: query_text at most 2000 characters, filters a JSON object of at most 16 KB, search_mode hybrid, vector or lexical'
      using errcode = 'invalid_parameter_value';
  end if;
  v_context := case when jsonb_typeof(filters -> 'context') = 'object' then filters -> 'context' end;
  if v_context is null then
    return query select * from kb_search_chunks(query_embedding, query_text, v_count, search_mode, filters, v_candidates);
    return;
  end if;

  -- ── Conversation context (20261126070000, changed in 20261126090000 and here) ──
  v_terms := nullif(btrim(left(coalesce(v_context ->> 'terms', ''), 300)), '');
  v_docs := array(
    select x::uuid from jsonb_array_elements_text(
      case when jsonb_typeof(v_context -> 'documents') = 'array' then v_context -> 'documents' else '[]'::jsonb end) x
    where x ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
    limit 10);
  v_sections := array(
    select left(x, 300) from jsonb_array_elements_text(
      case when jsonb_typeof(v_context -> 'sections') = 'array' then v_context -> 'sections' else '[]'::jsonb end) x
    limit 10);

  -- A follow-up none of whose own words the knowledge base knows is not about the earlier topic (20261127030000's header, 7.).
  if not coalesce(v_context -> 'points_back' = 'true'::jsonb, false) and exists (select 1 from unnest(tsvector_to_array(to_tsvector('english'::regconfig, coalesce(query_text, ''))))) and not exists (
    select 1 from unnest(tsvector_to_array(to_tsvector('english'::regconfig, coalesce(query_text, '')))) q
    join kb_lexemes l on l.lexeme = q where l.df > 0
  ) then
    return query select * from kb_search_chunks(null, query_text, v_count, 'lexical', filters - 'context', v_candidates);
    return;
  end if;

  -- The thread's documents: the last answer's first, then the earlier answers' (20261127030000's header, 1.).
  v_thread := array(
    select t.id from (
      select x.id, min(x.ord) as ord from (
        select d as id, o as ord from unnest(v_docs) with ordinality u(d, o)
        union all
        select x::uuid, 100 + o from jsonb_array_elements_text(
          case when jsonb_typeof(v_context -> 'thread') = 'array' then v_context -> 'thread' else '[]'::jsonb end)
          with ordinality j(x, o)
        where x ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
      ) x group by x.id
    ) t order by t.ord limit 10);
  -- A caller's own document filter still holds within the thread.
  v_scope := case when jsonb_typeof(filters -> 'document_ids') = 'array' then array(
      select t from unnest(v_thread) t
      where t::text in (select lower(x) from jsonb_array_elements_text(filters -> 'document_ids') x))
    else v_thread end;
  v_own_required := coalesce(v_context -> 'own_required' = 'true'::jsonb, false);
  v_points_back := coalesce(v_context -> 'points_back' = 'true'::jsonb, false);
  v_own_known := exists (
    select 1 from unnest(tsvector_to_array(to_tsvector('english'::regconfig, coalesce(query_text, '')))) q
    join kb_lexemes l on l.lexeme = q where l.df > 0);

  return query
  with found as (
    select s.*, 1 as pass from kb_search_chunks(
      query_embedding,
      left(concat_ws(' ', query_text, v_terms), 2000),
      v_count, search_mode, filters - 'context', v_candidates) s
    union all
    -- The extra search: the question's own words within the thread's pages (20261127030000's header, 1.).
    select s.*, 0 from kb_search_chunks(
      query_embedding,
      case when v_own_known then query_text else left(concat_ws(' ', query_text, v_terms), 2000) end,
      v_count, search_mode, (filters - 'context') || jsonb_build_object('document_ids', to_jsonb(v_scope)),
      v_candidates) s
    where cardinality(v_scope) > 0
  ),
  pool as (
    -- A chunk both searches found keeps the row of the search with the borrowed words (its ranks and score).
    select distinct on (f.chunk_id) f.chunk_id, f.content, f.meta, f.document_id, f.document_title, f.document_url,
      f.document_meta, f.cosine, f.bm25, f.coverage, f.vector_rank, f.lexical_rank, f.score
    from found f order by f.chunk_id, f.pass desc
  ),
  asked as (
    select a.lexeme, bool_or(a.own) as own from (
      select q as lexeme, true as own
      from unnest(tsvector_to_array(to_tsvector('english'::regconfig, coalesce(query_text, '')))) q
      union all
      select t, false from unnest(tsvector_to_array(to_tsvector('english'::regconfig, coalesce(v_terms, '')))) t
    ) a group by a.lexeme
  ),
  idf as (
    select a.lexeme, a.own, ln(1 + (s.chunks - greatest(coalesce(l.df, 0), 1) + 0.5) / (greatest(coalesce(l.df, 0), 1) + 0.5)) as idf
    from asked a cross join kb_corpus_stats s left join kb_lexemes l on l.lexeme = a.lexeme
    where s.id
  ),
  totals as (
    select coalesce(sum(i.idf) filter (where i.own), 0) as own, coalesce(sum(i.idf) filter (where not i.own), 0) as borrowed from idf i
  ),
  weighted as (
    -- A question without words of its own ("what about it?") is searched with the borrowed ones alone.
    select i.lexeme, i.own, i.idf * case when i.own or t.own = 0 then 1
      else least(c_context_weight, t.own / nullif(t.borrowed, 0)) end as idf
    from idf i cross join totals t
  )
  select p.chunk_id, p.content, p.meta, p.document_id, p.document_title, p.document_url, p.document_meta,
    case when p.cosine is not null then p.cosine + pr.prior end,
    p.bm25,
    case when p.coverage is null then null
      -- A chunk off the thread that holds none of the borrowed terms is about something else, whatever the
      -- follow-up's own generic word matched (20261127030000's header, 5.).
      when (v_lexical or v_points_back) and not pr.in_thread
        and exists (select 1 from weighted w where not w.own)
        and not exists (select 1 from weighted w where not w.own and c.fts @@ quote_literal(w.lexeme)::tsquery) then 0
      else least(1, coalesce((
        select sum(w.idf) filter (where c.fts @@ quote_literal(w.lexeme)::tsquery
          -- On a page of the thread the earlier topic is given (20261127030000's header, 2.); for a complete
          -- question (6. there) only in a chunk that holds one of its own words.
          or (not w.own and pr.in_thread and (not v_own_required or exists (
            select 1 from weighted o where o.own and c.fts @@ quote_literal(o.lexeme)::tsquery)))) / nullif(sum(w.idf), 0)
        from weighted w), 0) + pr.prior) end,
    p.vector_rank, p.lexical_rank, p.score
  from pool p
  join kb_chunks c on c.id = p.chunk_id
  join kb_documents d on d.id = p.document_id
  cross join lateral (
    select p.document_id = any (v_thread) as in_thread, (case
      when p.document_id = any (v_docs) and p.meta ->> 'section' = any (v_sections) then v_margin + c_section_prior
      when p.document_id = any (v_docs) then v_margin
      when p.document_id = any (v_thread) then v_margin / 2
      else 0
    end)::double precision as prior
  ) pr
  order by p.score desc, d.source collate "C", c.position;
end;
$function$;
comment on function public.search_chunks(query_embedding extensions.vector, query_text text, match_count integer, search_mode text, filters jsonb, candidate_count integer) is 'The exposed search: bounds its arguments, then kb_search_chunks. With filters.context {terms, documents, thread, sections, points_back, own_required} (a follow-up question) the thread is the scope: one search with the question plus the borrowed terms, and one with the question''s own words within the documents the conversation cited (documents: the last answer''s, then thread: earlier answers''); on those pages a borrowed lexeme counts as present (at half its IDF, all together at most the question''s own), off them only where it is (in keyword mode a chunk holding none has coverage 0); the last answer''s pages gain a margin (0.01; 0.1 in keyword mode) on cosine and coverage, earlier answers'' half of it, the cited section a little more; with own_required (a complete question retried in its thread) the topic counts only in chunks holding one of the question''s own lexemes. A follow-up that does not point back and none of whose own lexemes the knowledge base has is searched as a new question in full text. Migrations 20261126070000, 20261126090000, 20261127030000, 20261127110000, 20261128070000 and 20261129140000 (ties by page source, then chunk position).';
revoke all on function public.search_chunks(query_embedding extensions.vector, query_text text, match_count integer, search_mode text, filters jsonb, candidate_count integer) from public;
grant execute on function public.search_chunks(query_embedding extensions.vector, query_text text, match_count integer, search_mode text, filters jsonb, candidate_count integer) to authenticated, service_role;

-- Triggers
CREATE TRIGGER kb_chunks_count_delete AFTER DELETE ON public.kb_chunks REFERENCING OLD TABLE AS old_chunks FOR EACH STATEMENT EXECUTE FUNCTION public.kb_chunks_count_trigger();
CREATE TRIGGER kb_chunks_count_insert AFTER INSERT ON public.kb_chunks REFERENCING NEW TABLE AS new_chunks FOR EACH STATEMENT EXECUTE FUNCTION public.kb_chunks_count_trigger();
CREATE TRIGGER kb_chunks_count_update AFTER UPDATE ON public.kb_chunks REFERENCING OLD TABLE AS old_chunks NEW TABLE AS new_chunks FOR EACH STATEMENT EXECUTE FUNCTION public.kb_chunks_count_trigger();
CREATE TRIGGER kb_documents_count_delete BEFORE DELETE ON public.kb_documents FOR EACH ROW EXECUTE FUNCTION public.kb_documents_count_trigger();
CREATE TRIGGER kb_documents_count_update AFTER UPDATE OF status, enabled ON public.kb_documents FOR EACH ROW EXECUTE FUNCTION public.kb_documents_count_trigger();
