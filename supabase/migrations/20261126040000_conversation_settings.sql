-- Two settings for the widget's conversation (README "Settings"): where "Contact support" under a refusal
-- leads (support_url), and the starter questions an empty panel offers (starters). Both are shown to every
-- visitor (/api/config), so nothing here is secret; both are bounded here, as 20261125010000 bounds the
-- others, so the rule holds whichever API — or PostgREST caller — writes them.
--
-- kb_get_settings and kb_set_settings return two more columns. A function's result type cannot be changed
-- by "create or replace", so both are dropped and created again whole (with their grants).

-- Only https: and mailto: — the widget opens this address from a visitor's click, so javascript:, data:
-- or plain http: must never be stored. No whitespace or control characters (a URL has none).
create function kb_support_url_ok(p text)
returns boolean
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
  select p is null
    or (char_length(p) <= 2000 and p ~ '^(https://[^[:space:][:cntrl:]]+|mailto:[^[:space:][:cntrl:]]+)$');
$$;

-- At most 4 starter questions of 1 to 120 characters each: the chips fit the empty panel of a phone.
create function kb_starters_ok(p text[])
returns boolean
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
  select p is null
    or (coalesce(array_ndims(p), 1) = 1
        and coalesce(cardinality(p), 0) <= 4
        and not exists (select 1 from unnest(p) s where s is null or char_length(btrim(s)) = 0 or char_length(s) > 120));
$$;
revoke all on function kb_support_url_ok(text) from public, anon, authenticated;
revoke all on function kb_starters_ok(text[]) from public, anon, authenticated;

-- Null: not set here (the widget's attributes, else no support link and no starters).
alter table kb_settings add column support_url text check (kb_support_url_ok(support_url));
alter table kb_settings add column starters text[] check (kb_starters_ok(starters));

drop function kb_get_settings();
drop function kb_set_settings(jsonb);

create function kb_get_settings()
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
language sql stable security definer
set search_path = public, extensions, pg_temp
as $$
  select s.answer_mode, s.evidence_threshold, s.lexical_threshold, s.hybrid_threshold, s.greeting,
         s.refusal_suggestions, s.support_url, s.starters, s.updated_at
  from kb_settings s where s.id;
$$;

-- Admins only; a patch, as in 20261125010000 (a key present sets its field, null clears it, absent keeps it).
-- Every value is checked here with errcode 22023 naming the field; the table's CHECKs are the backstop.
create function kb_set_settings(p_patch jsonb)
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
                     'refusal_suggestions', 'support_url', 'starters') then
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
      updated_at = now(),
      updated_by = auth.uid()
    where s.id
    returning s.answer_mode, s.evidence_threshold, s.lexical_threshold, s.hybrid_threshold, s.greeting,
              s.refusal_suggestions, s.support_url, s.starters, s.updated_at;
end;
$$;

revoke all on function kb_get_settings() from public, anon, authenticated;
revoke all on function kb_set_settings(jsonb) from public, anon, authenticated;
grant execute on function kb_get_settings() to anon, authenticated, service_role;
grant execute on function kb_set_settings(jsonb) to authenticated, service_role;
