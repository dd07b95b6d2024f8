-- Visitor feedback: 👍 / 👎 on an answer or a refusal, with an optional comment on 👎.
-- One row per assistant message: a change of mind replaces the rating (idempotent per answer). Visitors never
-- touch the table directly (RLS on, no privileges, the rule of 20261125000000): chat_set_feedback writes it and
-- checks that the message is an assistant message in one of the caller's own sessions.
create table chat_feedback (
  -- The rated assistant message (an answer or a refusal).
  message_id uuid primary key references chat_messages (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  rating smallint not null check (rating in (-1, 1)),
  comment text check (comment is null or char_length(comment) between 1 and 1000),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index chat_feedback_updated_at_idx on chat_feedback (updated_at);
alter table chat_feedback enable row level security;
revoke all on chat_feedback from anon, authenticated;

-- Rates one assistant message of the caller's. A second call replaces the rating and the comment (null
-- clears it). The comment is trimmed here, so every path (the API, or PostgREST called directly) stores the
-- same; a blank one is no comment. Returns the stored row.
create function chat_set_feedback(p_message_id uuid, p_rating integer, p_comment text)
returns table (message_id uuid, rating smallint, comment text, updated_at timestamptz)
language plpgsql security definer
set search_path = public, extensions, pg_temp
as $$
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
$$;

revoke all on function chat_set_feedback(uuid, integer, text) from public, anon, authenticated;
grant execute on function chat_set_feedback(uuid, integer, text) to authenticated, service_role;

-- The caller's own ratings of the answers in one session, for the history view (`GET /api/sessions/:id`
-- shows an earlier 👍 / 👎). Definer, since visitors cannot read the table; it returns only rows the caller
-- wrote (f.user_id), so another visitor's session id yields nothing.
create function get_chat_feedback(p_session_id uuid)
returns table (message_id uuid, rating smallint)
language sql stable security definer
set search_path = public, extensions, pg_temp
as $$
  select f.message_id, f.rating
  from chat_feedback f
  join chat_messages m on m.id = f.message_id
  where m.session_id = p_session_id and f.user_id = auth.uid();
$$;

revoke all on function get_chat_feedback(uuid) from public, anon, authenticated;
grant execute on function get_chat_feedback(uuid) to authenticated, service_role;
