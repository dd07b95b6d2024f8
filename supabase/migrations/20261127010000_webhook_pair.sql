-- The webhook's URL and secret are one pair, set in the console only where the deployment allows it, and
-- every change of the URL is recorded.
--
-- 1. `kb_settings.webhook_console` (default false): whether kb_set_settings takes webhook keys at all. On
--    Supabase an admin's JWT can call kb_set_settings through PostgREST directly, past the Worker's API
--    (which refuses webhook fields because a Worker never reads them back); a URL stored that way was still
--    read by `npm run ingest` with the service role and posted `sync.finished` to. Only the database owner
--    (or the service role, in the SQL editor) can switch it on: no function a client calls writes it. The
--    Node server switches it on for its own embedded database, whose only caller of kb_set_settings is the
--    Node server's console API (server/store/pglite.ts, option `consoleWebhook`).
-- 2. webhook_url and webhook_secret are stored together or cleared together, so a URL set here is never
--    signed with a secret meant for another URL (the environment's included: the Node runtime signs a
--    stored URL only with the stored secret, server/runtime/node/webhooks.ts).
-- 3. Secrets are at least 32 characters (was 16). The constraint is NOT VALID so that a database holding an
--    older, shorter secret still migrates; the Node runtime refuses to sign with one.
-- 4. kb_webhook_changes: who changed the URL, when, and the old and new host (not the whole URL: a URL often
--    carries a token). admin_get_webhook now returns the latest change, for the console's settings and
--    overview.

alter table kb_settings add column webhook_console boolean not null default false;

alter table kb_settings drop constraint kb_settings_webhook_secret;
alter table kb_settings
  add constraint kb_settings_webhook_secret check (char_length(webhook_secret) between 32 and 256) not valid;

create table kb_webhook_changes (
  id bigint generated always as identity primary key,
  changed_at timestamptz not null default now(),
  changed_by uuid,
  old_host text,
  new_host text
);
alter table kb_webhook_changes enable row level security;
revoke all on kb_webhook_changes from anon, authenticated;

-- The host (and port) of a URL, or null: what the change log keeps of a webhook URL.
create function kb_url_host(p text)
returns text
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
  select substring(p from '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]+)');
$$;

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
$$;

-- The console's view of the webhook: the stored URL, whether a secret is stored (never the secret), and the
-- latest change of the URL. A new result type, so the function is dropped and created again.
drop function admin_get_webhook();
create function admin_get_webhook()
returns table (url text, secret_set boolean, changed_at timestamptz, changed_by uuid, old_host text, new_host text)
language plpgsql stable security definer
set search_path = public, extensions, pg_temp
as $$
begin
  perform kb_assert_admin();
  return query
    select s.webhook_url, s.webhook_secret is not null, c.changed_at, c.changed_by, c.old_host, c.new_host
    from kb_settings s
    left join lateral (select * from kb_webhook_changes w order by w.id desc limit 1) c on true
    where s.id;
end;
$$;

revoke all on function admin_get_webhook() from public, anon, authenticated;
revoke all on function kb_url_host(text) from public, anon, authenticated;
grant execute on function admin_get_webhook() to authenticated, service_role;
grant execute on function kb_url_host(text) to service_role;

comment on function kb_set_settings is
  'Applies a JSON patch to the settings (a key set to null clears it) and returns them; refuses all but admins, and webhook keys unless kb_settings.webhook_console is on (the URL and its secret together). Called by the console with the admin''s JWT.';
comment on function admin_get_webhook is
  'The webhook URL, whether a secret is set (never the secret) and the latest change of the URL (when, by whom, old and new host). Called by the console with an admin''s JWT.';
comment on function kb_url_host is
  'The host and port of a URL, or null: what kb_webhook_changes keeps of a webhook URL. Called by kb_set_settings.';
