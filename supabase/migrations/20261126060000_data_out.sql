-- Data out: the console's exports (conversations, content gaps, feedback as CSV or JSON) and the optional
-- webhook (a URL and a signing secret, also settable in the console).
--
-- Exports page with a keyset, not an offset: each call returns up to p_limit rows after the cursor the last
-- one returned, in a stable order, so the API streams a table of any size one page at a time (an offset
-- would re-read every skipped row on each page, and rows inserted meanwhile would shift the pages). The
-- cursor is opaque text built here: the timestamp keeps its microseconds, which a JavaScript Date would lose.
--
-- The webhook secret is stored so that no function a client can call returns it: kb_get_settings (open to
-- anyone with the anon key) returns neither the secret nor the URL — a webhook URL often carries a token
-- of its own (chat tools' incoming hooks do) — admin_get_webhook tells an admin the URL and only whether a
-- secret is set, and kb_webhook_target, the one function that returns the secret, is the service role's
-- (the Node server's own database connection; a Worker holds no key that may call it).

-- ── Exports ──────────────────────────────────────────────────────────────────────────────────────────────
create function kb_export_bounds(p_from timestamptz, p_to timestamptz, p_limit integer)
returns void
language plpgsql immutable
set search_path = public, extensions, pg_temp
as $$
begin
  if p_limit is null or p_limit not between 1 and 1000 then
    raise exception 'limit must be 1–1000' using errcode = 'invalid_parameter_value';
  end if;
  if p_from is not null and p_to is not null and p_to <= p_from then
    raise exception 'from must be before to' using errcode = 'invalid_parameter_value';
  end if;
end;
$$;

-- A cursor of (timestamp, id): "<UTC time with microseconds>|<uuid>". Anything else is refused (22023).
create function kb_export_cursor(p_at timestamptz, p_id uuid)
returns text
language sql immutable
set search_path = public, extensions, pg_temp
as $$
  select to_char(p_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '|' || p_id::text;
$$;

create function kb_export_after(p_after text)
returns table (at timestamptz, id uuid)
language plpgsql immutable
set search_path = public, extensions, pg_temp
as $$
begin
  if p_after is null then
    return;
  end if;
  if p_after !~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z\|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    raise exception 'after must be a cursor an export returned' using errcode = 'invalid_parameter_value';
  end if;
  return query select split_part(p_after, '|', 1)::timestamptz, split_part(p_after, '|', 2)::uuid;
end;
$$;

-- Keyset order of the conversations export: the questions' (created_at, id).
create index chat_messages_questions_created_id on chat_messages (created_at, id) where role = 'user';

-- Every answered or refused question asked in [p_from, p_to) (either bound null: open), oldest first, with
-- its whole answer, citations, rating and comment. `context` is the message's meta.context when the chat
-- stored one (a follow-up question's context note; the answer's, else the question's), null otherwise.
create function admin_export_conversations(p_from timestamptz, p_to timestamptz, p_after text, p_limit integer)
returns table (
  cursor text, question_id uuid, message_id uuid, session_id uuid, visitor text, question text,
  asked_at timestamptz, answer text, kind text, reason text, citations jsonb, confidence text, mode text,
  rating smallint, comment text, rated_at timestamptz, context jsonb, generated jsonb
)
language plpgsql stable security definer
set search_path = public, extensions, pg_temp
as $$
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
$$;

-- Content gaps asked at some time in [p_from, p_to) (their first..last asking overlaps it), by question key.
-- The cursor is the last question key.
create function admin_export_gaps(p_from timestamptz, p_to timestamptz, p_after text, p_limit integer)
returns table (
  cursor text, question_key text, question text, reason text, asked integer,
  first_asked_at timestamptz, last_asked_at timestamptz, done_at timestamptz
)
language plpgsql stable security definer
set search_path = public, extensions, pg_temp
as $$
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
$$;

-- Ratings last changed in [p_from, p_to), oldest first, with the question and answer they rate.
create function admin_export_feedback(p_from timestamptz, p_to timestamptz, p_after text, p_limit integer)
returns table (
  cursor text, message_id uuid, session_id uuid, visitor text, question text, answer text, kind text,
  rating smallint, comment text, created_at timestamptz, updated_at timestamptz
)
language plpgsql stable security definer
set search_path = public, extensions, pg_temp
as $$
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
$$;

-- ── Webhook settings ─────────────────────────────────────────────────────────────────────────────────────
-- https anywhere, or http to this machine's loopback only (a local receiver while developing; the server
-- sends to it only with KB_WEBHOOK_ALLOW_LOOPBACK set). No spaces, no user:password@ part, at most 2000.
create function kb_webhook_url_ok(p text)
returns boolean
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
  select p is null
    or (char_length(p) <= 2000
        and p !~ '[\s@]'
        and (p ~* '^https://[^/?#:]+(:\d{1,5})?([/?#]|$)'
             or p ~* '^http://(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])(:\d{1,5})?([/?#]|$)'));
$$;

alter table kb_settings
  add column webhook_url text constraint kb_settings_webhook_url check (kb_webhook_url_ok(webhook_url)),
  add column webhook_secret text constraint kb_settings_webhook_secret check (char_length(webhook_secret) between 16 and 256);

-- kb_set_settings as in 20261126040000 (support_url and starters), plus two keys: webhook_url (null
-- clears: KB_WEBHOOK_URL applies) and webhook_secret (write-only: no function a client calls returns it).
-- Same signature and result, so the API and PostgREST callers are unchanged; the result carries no webhook
-- field.
create or replace function kb_set_settings(p_patch jsonb)
returns table (
  answer_mode text,
  evidence_threshold real,
  lexical_threshold real,
  hybrid_threshold real,
  greeting text,
  refusal_suggestions text[],
  support_url text,
  starters text[],
  updated_at timestamptz
)
language plpgsql security definer
set search_path = public, extensions, pg_temp
as $$
declare
  v_key text;
  v_threshold text;
  v_suggestions text[];
  v_starters text[];
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
  if p_patch ? 'webhook_secret' and jsonb_typeof(p_patch -> 'webhook_secret') <> 'null'
     and (jsonb_typeof(p_patch -> 'webhook_secret') <> 'string' or char_length(p_patch ->> 'webhook_secret') not between 16 and 256) then
    raise exception 'kb_set_settings: webhook_secret must be 16 to 256 characters or null' using errcode = 'invalid_parameter_value';
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
$$;


-- The console's view of the webhook: the URL an admin stored, and whether a secret is stored — never the secret.
create function admin_get_webhook()
returns table (url text, secret_set boolean)
language plpgsql stable security definer
set search_path = public, extensions, pg_temp
as $$
begin
  perform kb_assert_admin();
  return query select s.webhook_url, s.webhook_secret is not null from kb_settings s where s.id;
end;
$$;

-- Where to deliver and what to sign with, for the server's own connection only (service role; on Node the
-- embedded database's owner). Not security definer: a caller needs the service role's own table rights.
create function kb_webhook_target()
returns table (url text, secret text)
language sql stable
set search_path = public, extensions, pg_temp
as $$
  select s.webhook_url, s.webhook_secret from kb_settings s where s.id;
$$;

-- ── Privileges: deny by default (20261125000000), then what each caller needs ───────────────────────────
do $$
declare
  f regprocedure;
begin
  for f in select p.oid::regprocedure from pg_proc p
    where p.pronamespace = 'public'::regnamespace
      and p.proname in ('kb_export_bounds', 'kb_export_cursor', 'kb_export_after', 'admin_export_conversations',
        'admin_export_gaps', 'admin_export_feedback', 'kb_webhook_url_ok', 'admin_get_webhook', 'kb_webhook_target')
  loop
    execute format('revoke all on function %s from public, anon, authenticated', f);
    execute format('grant execute on function %s to service_role', f);
  end loop;
end
$$;

-- Signed-in users may call the console's functions; each refuses anyone but an admin itself.
grant execute on function admin_export_conversations(timestamptz, timestamptz, text, integer) to authenticated;
grant execute on function admin_export_gaps(timestamptz, timestamptz, text, integer) to authenticated;
grant execute on function admin_export_feedback(timestamptz, timestamptz, text, integer) to authenticated;
grant execute on function admin_get_webhook() to authenticated;
