-- rate_limit_hit clears up to 100 windows older than a day on every call. That look was a sequential scan of
-- the whole table — every visitor's window of the last day — on every question, and the delete around it a
-- second one (`ctid in (…)` was planned as a hash join over all of rate_limits): at 8,335 rows (two crowd runs
-- of the bench on one database) 3.7 ms of the database's ~29 ms of CPU per answer, the largest cost after
-- the search itself (pg_stat_statements on PostgreSQL 15, four visitors asking 25 questions each;
-- docs/performance.md). Now the expired windows are found through an index on window_start and deleted by
-- their primary key, so a hit reads only the windows it clears. The function is otherwise that of
-- 20261125000000_least_privilege.sql.
create index if not exists rate_limits_window_start on rate_limits (window_start);

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
  delete from rate_limits r
  using (
    select o.user_id, o.bucket, o.window_start from rate_limits o
    where o.window_start < now() - interval '1 day'
    limit 100
  ) expired
  where r.user_id = expired.user_id and r.bucket = expired.bucket and r.window_start = expired.window_start;
  return query select v_hits <= p_limit, greatest(p_limit - v_hits, 0), v_window + make_interval(secs => p_window_seconds);
end;
$$;

comment on function rate_limit_hit is
  'Counts one request in the caller''s fixed window of a named bucket and says whether it is allowed, how many remain and when the window resets; clears up to 100 windows older than a day. Called with the visitor''s JWT before each question.';
