-- Settings an admin changes at runtime (the answer mode, thresholds, greeting, refusal text), stored in the database so that every server
-- instance and Worker isolate reads the same value. One row. Null in a column means "not set by an admin":
-- the server's default (its environment, else the code's calibrated value) applies, so clearing a field hands
-- it back to the server. Nothing here is secret (/api/config sends the answer mode and the greeting to every
-- visitor).
--
-- One evidence threshold per retrieval mode, because the gate compares a different number in each (README
-- "Retrieval and the evidence gate"): cosine in vector mode (CHAT_EVIDENCE_THRESHOLD), coverage in lexical
-- mode (CHAT_LEXICAL_THRESHOLD), their mean in hybrid mode (CHAT_HYBRID_THRESHOLD, the default mode). A
-- single number could only have been one of them, and would not move the gate for most questions.
--
-- Visitors never touch the table (RLS on, no privileges, as 20261125000000 made the rule): the API reads it
-- through kb_get_settings and an admin writes it through kb_set_settings, which checks the JWT's
-- app_metadata.role itself, so the rule holds whichever API — or PostgREST caller — makes the call.

-- A CHECK cannot hold a subquery; an immutable function can. Each suggestion is a button label in the widget.
create function kb_refusal_suggestions_ok(p text[])
returns boolean
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
  select p is null
    or (coalesce(array_ndims(p), 1) = 1
        and coalesce(cardinality(p), 0) <= 5
        and not exists (select 1 from unnest(p) s where s is null or char_length(btrim(s)) = 0 or char_length(s) > 120));
$$;
revoke all on function kb_refusal_suggestions_ok(text[]) from public, anon, authenticated;

create table kb_settings (
  id boolean primary key default true check (id),
  answer_mode text check (answer_mode in ('extractive', 'generative')),
  -- NaN is larger than every number in Postgres, so "between 0 and 1" refuses it too.
  evidence_threshold real check (evidence_threshold between 0 and 1),
  lexical_threshold real check (lexical_threshold between 0 and 1),
  hybrid_threshold real check (hybrid_threshold between 0 and 1),
  greeting text check (char_length(greeting) <= 500 and char_length(btrim(greeting)) > 0),
  -- An empty array is a choice (offer no suggestions); null is the server's default list.
  refusal_suggestions text[] check (kb_refusal_suggestions_ok(refusal_suggestions)),
  updated_at timestamptz not null default now(),
  updated_by uuid
);
alter table kb_settings enable row level security;
revoke all on kb_settings from anon, authenticated;
insert into kb_settings (id) values (true);

create function kb_get_settings()
returns table (
  answer_mode text,
  evidence_threshold real,
  lexical_threshold real,
  hybrid_threshold real,
  greeting text,
  refusal_suggestions text[],
  updated_at timestamptz
)
language sql stable security definer
set search_path = public, extensions, pg_temp
as $$
  select s.answer_mode, s.evidence_threshold, s.lexical_threshold, s.hybrid_threshold, s.greeting,
         s.refusal_suggestions, s.updated_at
  from kb_settings s where s.id;
$$;

-- Admins only. p_patch is a JSON object of the fields to change: a key that is present sets its field (null
-- clears it: the server's default applies again), a key that is absent leaves it as it is. A patch rather
-- than every column each time: the change is one UPDATE in the database, so two admins saving different
-- fields at once cannot undo each other (a read-merge-write in the API could), the API needs no read first,
-- and a client that knows fewer fields keeps working. Every value is checked here with errcode 22023 naming the field (the table's CHECKs are the
-- backstop), whichever API — or PostgREST caller — makes the call.
create function kb_set_settings(p_patch jsonb)
returns table (
  answer_mode text,
  evidence_threshold real,
  lexical_threshold real,
  hybrid_threshold real,
  greeting text,
  refusal_suggestions text[],
  updated_at timestamptz
)
language plpgsql security definer
set search_path = public, extensions, pg_temp
as $$
declare
  v_key text;
  v_threshold text;
  v_suggestions text[];
begin
  if coalesce(auth.jwt() -> 'app_metadata' ->> 'role', '') <> 'admin' then
    raise exception 'admins only' using errcode = 'insufficient_privilege';
  end if;
  if p_patch is null or jsonb_typeof(p_patch) <> 'object' then
    raise exception 'kb_set_settings: the patch must be a JSON object' using errcode = 'invalid_parameter_value';
  end if;
  for v_key in select jsonb_object_keys(p_patch) loop
    if v_key not in ('answer_mode', 'evidence_threshold', 'lexical_threshold', 'hybrid_threshold', 'greeting', 'refusal_suggestions') then
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

  return query
    update kb_settings s set
      answer_mode = case when p_patch ? 'answer_mode' then p_patch ->> 'answer_mode' else s.answer_mode end,
      evidence_threshold = case when p_patch ? 'evidence_threshold' then (p_patch ->> 'evidence_threshold')::real else s.evidence_threshold end,
      lexical_threshold = case when p_patch ? 'lexical_threshold' then (p_patch ->> 'lexical_threshold')::real else s.lexical_threshold end,
      hybrid_threshold = case when p_patch ? 'hybrid_threshold' then (p_patch ->> 'hybrid_threshold')::real else s.hybrid_threshold end,
      greeting = case when p_patch ? 'greeting' then p_patch ->> 'greeting' else s.greeting end,
      refusal_suggestions = case when p_patch ? 'refusal_suggestions' then v_suggestions else s.refusal_suggestions end,
      updated_at = now(),
      updated_by = auth.uid()
    where s.id
    returning s.answer_mode, s.evidence_threshold, s.lexical_threshold, s.hybrid_threshold, s.greeting,
              s.refusal_suggestions, s.updated_at;
end;
$$;

revoke all on function kb_get_settings() from public, anon, authenticated;
revoke all on function kb_set_settings(jsonb) from public, anon, authenticated;
grant execute on function kb_get_settings() to anon, authenticated, service_role;
grant execute on function kb_set_settings(jsonb) to authenticated, service_role;
