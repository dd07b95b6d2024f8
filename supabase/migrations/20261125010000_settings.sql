-- Settings an admin changes at runtime (issue 13: the answer mode; issue 14's console adds more), stored in
-- the database so that every server instance and Worker isolate reads the same value. One row.
-- Visitors never touch the table (RLS on, no privileges, as 20261125000000 made the rule): the API reads it
-- through kb_get_settings and an admin writes it through kb_set_settings, which checks the JWT's
-- app_metadata.role itself, so the rule holds whichever API — or PostgREST caller — makes the call.
create table kb_settings (
  id boolean primary key default true check (id),
  -- null: not set by an admin; the server's KB_ANSWER_MODE (or 'extractive') applies.
  answer_mode text check (answer_mode in ('extractive', 'generative')),
  updated_at timestamptz not null default now(),
  updated_by uuid
);
alter table kb_settings enable row level security;
revoke all on kb_settings from anon, authenticated;
insert into kb_settings (id) values (true);

-- What the widget and the API need to know; nothing in it is secret.
create function kb_get_settings()
returns table (answer_mode text, updated_at timestamptz)
language sql stable security definer
set search_path = public, extensions, pg_temp
as $$
  select s.answer_mode, s.updated_at from kb_settings s where s.id;
$$;

-- Admins only. p_answer_mode null clears the admin's choice (the server's default applies again).
create function kb_set_settings(p_answer_mode text)
returns table (answer_mode text, updated_at timestamptz)
language plpgsql security definer
set search_path = public, extensions, pg_temp
as $$
begin
  if coalesce(auth.jwt() -> 'app_metadata' ->> 'role', '') <> 'admin' then
    raise exception 'admins only' using errcode = 'insufficient_privilege';
  end if;
  if p_answer_mode is not null and p_answer_mode not in ('extractive', 'generative') then
    raise exception 'kb_set_settings: answer_mode must be extractive, generative or null' using errcode = 'invalid_parameter_value';
  end if;
  return query
    update kb_settings s set answer_mode = p_answer_mode, updated_at = now(), updated_by = auth.uid()
    where s.id
    returning s.answer_mode, s.updated_at;
end;
$$;

revoke all on function kb_get_settings() from public, anon, authenticated;
revoke all on function kb_set_settings(text) from public, anon, authenticated;
grant execute on function kb_get_settings() to anon, authenticated, service_role;
grant execute on function kb_set_settings(text) to authenticated, service_role;
