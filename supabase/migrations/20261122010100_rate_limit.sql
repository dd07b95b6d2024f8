-- Rate limiting in the database, so the limit holds across server instances and Worker
-- isolates. Fixed windows: one row per (user, bucket, window start), incremented atomically by
-- `insert … on conflict do update`, which is safe under truly concurrent connections (Supabase), not only
-- under PGlite's single-connection queue.
create table rate_limits (
  user_id uuid not null,
  bucket text not null,
  window_start timestamptz not null,
  hits integer not null default 0,
  primary key (user_id, bucket, window_start)
);
alter table rate_limits enable row level security;
-- No policies: visitors never touch the table; rate_limit_hit (security definer) does, for auth.uid() only.

-- Counts one request of the calling visitor against `bucket` and says whether it is allowed.
-- The key is auth.uid(), taken from the verified JWT, never from an argument a visitor could forge.
create or replace function rate_limit_hit(p_bucket text, p_limit integer, p_window_seconds integer)
returns table (allowed boolean, remaining integer, reset_at timestamptz)
language plpgsql security definer
set search_path = public, extensions
as $$
declare
  v_user uuid := auth.uid();
  v_window timestamptz;
  v_hits integer;
begin
  if v_user is null then
    raise exception 'rate_limit_hit needs a signed-in user' using errcode = 'insufficient_privilege';
  end if;
  v_window := to_timestamp(floor(extract(epoch from now()) / p_window_seconds) * p_window_seconds);
  insert into rate_limits as r (user_id, bucket, window_start, hits)
  values (v_user, p_bucket, v_window, 1)
  on conflict (user_id, bucket, window_start) do update set hits = r.hits + 1
  returning r.hits into v_hits;
  -- Old windows are garbage; a cheap bounded clean-up keeps the table small without a scheduler.
  delete from rate_limits where ctid in (
    select ctid from rate_limits where window_start < now() - interval '1 day' limit 100
  );
  return query select v_hits <= p_limit, greatest(p_limit - v_hits, 0), v_window + make_interval(secs => p_window_seconds);
end;
$$;

revoke execute on function rate_limit_hit(text, integer, integer) from public, anon;
grant execute on function rate_limit_hit(text, integer, integer) to authenticated, service_role;
