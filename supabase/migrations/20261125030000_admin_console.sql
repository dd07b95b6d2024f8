-- The site-owner console: what /admin and /api/admin/* read and change. Every function here is
-- security definer and starts with kb_assert_admin(), which checks the caller's JWT (app_metadata.role =
-- 'admin', a claim only the server side of Supabase Auth can set): the rule holds whichever API — or a
-- PostgREST caller with the anon key — makes the call. Every argument is bounded; lists are paginated
-- (limit ≤ 200, offset ≤ 100000) and report their total; statistics are computed here, never by loading
-- rows into the server. Visitors appear as opaque ids (a hash of their user id), never as the id itself.

-- ── Who may call ─────────────────────────────────────────────────────────────────────────────────────────
create function kb_assert_admin()
returns void
language plpgsql stable
set search_path = public, extensions, pg_temp
as $$
begin
  if coalesce(auth.jwt() -> 'app_metadata' ->> 'role', '') <> 'admin' then
    raise exception 'admins only' using errcode = 'insufficient_privilege';
  end if;
end;
$$;

-- A visitor as the console shows them: stable per user, not reversible to the user id.
create function kb_visitor_id(p_user uuid)
returns text
language sql immutable
set search_path = public, extensions, pg_temp
as $$
  select 'v-' || left(encode(sha256(convert_to(p_user::text, 'UTF8')), 'hex'), 10);
$$;

create function kb_page_bounds(p_limit integer, p_offset integer)
returns void
language plpgsql immutable
set search_path = public, extensions, pg_temp
as $$
begin
  if p_limit is null or p_limit not between 1 and 200 or p_offset is null or p_offset not between 0 and 100000 then
    raise exception 'limit must be 1–200 and offset 0–100000' using errcode = 'invalid_parameter_value';
  end if;
end;
$$;

-- ── Content gaps: refused questions, grouped by their normalised form, with "mark done" ──────────────────
-- A gap marked done comes back as open when it is asked again afterwards (the fix did not work).
alter table content_gaps add column done_at timestamptz;
alter table content_gaps add column done_by uuid;

create function admin_list_gaps(p_status text, p_limit integer, p_offset integer)
returns table (
  question_key text, question text, reason text, asked integer,
  first_asked_at timestamptz, last_asked_at timestamptz, done_at timestamptz, total bigint
)
language plpgsql stable security definer
set search_path = public, extensions, pg_temp
as $$
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
$$;

-- Marks a gap done (p_done) or open again; false when there is no such gap.
create function admin_set_gap_done(p_question_key text, p_done boolean)
returns boolean
language plpgsql security definer
set search_path = public, extensions, pg_temp
as $$
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
$$;

-- ── Conversations: every answered or refused question, newest first ─────────────────────────────────────
-- p_rating: any | up | down | none; p_outcome: any | answered | refused; p_from / p_to bound created_at.
create function admin_list_conversations(
  p_rating text, p_outcome text, p_from timestamptz, p_to timestamptz, p_limit integer, p_offset integer
)
returns table (
  message_id uuid, session_id uuid, visitor text, question text, asked_at timestamptz,
  answer text, kind text, reason text, citations jsonb, confidence text, mode text,
  rating smallint, comment text,
  -- Generative mode: the answer the visitor's model wrote beside the quoted one, flagged with its model.
  generated jsonb,
  total bigint
)
language plpgsql stable security definer
set search_path = public, extensions, pg_temp
as $$
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
      left(a.content, 4000), coalesce(a.meta ->> 'kind', 'answer'), a.meta ->> 'reason', a.citations,
      a.meta ->> 'confidence', a.meta ->> 'mode', f.rating, f.comment,
      case when a.meta ? 'generated'
        then jsonb_build_object('text', left(a.meta -> 'generated' ->> 'text', 4000), 'model', a.meta -> 'generated' ->> 'model')
      end,
      count(*) over ()
    from chat_messages a
    join chat_messages u on u.id = a.reply_to
    join chat_sessions s on s.id = a.session_id
    left join chat_feedback f on f.message_id = a.id
    where a.role = 'assistant'
      and (p_from is null or u.created_at >= p_from)
      and (p_to is null or u.created_at < p_to)
      and (p_outcome = 'any' or (p_outcome = 'refused') = (a.meta ->> 'kind' = 'refusal'))
      and (p_rating = 'any' or (p_rating = 'up' and f.rating = 1) or (p_rating = 'down' and f.rating = -1)
           or (p_rating = 'none' and f.rating is null))
    order by u.created_at desc, a.id
    limit p_limit offset p_offset;
end;
$$;

-- ── Documents ────────────────────────────────────────────────────────────────────────────────────────────
-- p_query matches the title or the source (case-insensitive, literally: % and _ are not wildcards).
create function admin_list_documents(p_query text, p_limit integer, p_offset integer)
returns table (
  id uuid, source text, title text, status text, enabled boolean, chunks bigint, updated_at timestamptz,
  embedding_model text, source_type text, url text, total bigint
)
language plpgsql stable security definer
set search_path = public, extensions, pg_temp
as $$
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
$$;

create function admin_set_document_enabled(p_id uuid, p_enabled boolean)
returns boolean
language plpgsql security definer
set search_path = public, extensions, pg_temp
as $$
begin
  perform kb_assert_admin();
  if p_id is null or p_enabled is null then
    raise exception 'id and enabled are required' using errcode = 'invalid_parameter_value';
  end if;
  update kb_documents set enabled = p_enabled, updated_at = now() where id = p_id;
  return found;
end;
$$;

create function admin_delete_document(p_id uuid)
returns boolean
language plpgsql security definer
set search_path = public, extensions, pg_temp
as $$
begin
  perform kb_assert_admin();
  if p_id is null then
    raise exception 'id is required' using errcode = 'invalid_parameter_value';
  end if;
  delete from kb_documents where id = p_id;
  return found;
end;
$$;

-- ── Overview: per day and in total over [p_from, p_to) ──────────────────────────────────────────────────
-- Days are UTC. Confidence is the answer's tier (high / medium / low); its median is taken over the tiers'
-- order, and the median evidence over answers that recorded it (meta.evidence).
create function admin_overview(p_from timestamptz, p_to timestamptz)
returns jsonb
language plpgsql stable security definer
set search_path = public, extensions, pg_temp
as $$
declare
  v_result jsonb;
begin
  perform kb_assert_admin();
  if p_from is null or p_to is null or p_to <= p_from or p_to - p_from > interval '366 days' then
    raise exception 'from must be before to, at most 366 days apart' using errcode = 'invalid_parameter_value';
  end if;
  with turns as (
    select date_trunc('day', u.created_at at time zone 'UTC')::date as day,
      a.meta ->> 'kind' = 'refusal' as refused,
      case a.meta ->> 'confidence' when 'low' then 1 when 'medium' then 2 when 'high' then 3 end as tier,
      (a.meta ->> 'evidence')::double precision as evidence,
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
$$;

-- Whether the caller is an admin, for the API to check before work done outside SQL (an upload runs the
-- ingestion pipeline with the server's own connection): it raises for anyone else.
create function admin_whoami()
returns table (user_id uuid, role text)
language plpgsql stable security definer
set search_path = public, extensions, pg_temp
as $$
begin
  perform kb_assert_admin();
  return query select auth.uid(), 'admin'::text;
end;
$$;

-- The console's requests count in their own rate-limit bucket, 'admin' (allowed by 20261125000000).


-- ── Privileges: deny by default (20261125000000), then what each caller needs ───────────────────────────
do $$
declare
  f regprocedure;
begin
  for f in select p.oid::regprocedure from pg_proc p
    where p.pronamespace = 'public'::regnamespace
      and p.proname in ('kb_assert_admin', 'kb_visitor_id', 'kb_page_bounds', 'admin_list_gaps', 'admin_set_gap_done',
        'admin_list_conversations', 'admin_list_documents', 'admin_set_document_enabled', 'admin_delete_document',
        'admin_overview', 'admin_whoami')
  loop
    execute format('revoke all on function %s from public, anon, authenticated', f);
    execute format('grant execute on function %s to service_role', f);
  end loop;
end
$$;

-- Signed-in users may call the console's functions; each refuses anyone but an admin itself. Helpers stay
-- private (the definer functions call them as their owner).
grant execute on function admin_list_gaps(text, integer, integer) to authenticated;
grant execute on function admin_set_gap_done(text, boolean) to authenticated;
grant execute on function admin_list_conversations(text, text, timestamptz, timestamptz, integer, integer) to authenticated;
grant execute on function admin_list_documents(text, integer, integer) to authenticated;
grant execute on function admin_set_document_enabled(uuid, boolean) to authenticated;
grant execute on function admin_delete_document(uuid) to authenticated;
grant execute on function admin_overview(timestamptz, timestamptz) to authenticated;
grant execute on function admin_whoami() to authenticated;
