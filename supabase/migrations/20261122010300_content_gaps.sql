-- Content gaps: every refused question is
-- counted, so site owners see what their documents lack. Grouped by a normalised form of the question.
create table content_gaps (
  question_key text primary key,
  question text not null,
  reason text not null,
  asked integer not null default 0,
  first_asked_at timestamptz not null default now(),
  last_asked_at timestamptz not null default now()
);
alter table content_gaps enable row level security;

create or replace function record_content_gap(p_question text, p_reason text)
returns void
language sql security definer
set search_path = public, extensions
as $$
  insert into content_gaps as g (question_key, question, reason, asked)
  values (lower(regexp_replace(trim(p_question), '\s+', ' ', 'g')), left(p_question, 500), p_reason, 1)
  on conflict (question_key) do update
    set asked = g.asked + 1, last_asked_at = now(), question = excluded.question, reason = excluded.reason;
$$;

-- Admins only: a JWT whose app_metadata.role is 'admin' (Supabase puts server-controlled claims there).
create or replace function list_content_gaps(p_limit integer default 100)
returns table (question text, reason text, asked integer, first_asked_at timestamptz, last_asked_at timestamptz)
language plpgsql stable security definer
set search_path = public, extensions
as $$
begin
  if coalesce(auth.jwt() -> 'app_metadata' ->> 'role', '') <> 'admin' then
    raise exception 'admins only' using errcode = 'insufficient_privilege';
  end if;
  return query
    select g.question, g.reason, g.asked, g.first_asked_at, g.last_asked_at
    from content_gaps g order by g.asked desc, g.last_asked_at desc limit least(greatest(p_limit, 1), 1000);
end;
$$;

revoke execute on function record_content_gap(text, text) from public, anon;
revoke execute on function list_content_gaps(integer) from public, anon;
grant execute on function record_content_gap(text, text) to authenticated, service_role;
grant execute on function list_content_gaps(integer) to authenticated, service_role;
