-- Idempotent chat turns. The user message's client-generated id is its primary key, so a
-- retried or concurrent request with the same id must find the turn instead of creating a second one.
--
-- chat_begin_turn now reports what it found:
--   is_new        the user message was stored by this call;
--   same_request  an existing message with this id has the same content (and session) — a retry;
--   answer_*      the stored answer to it, when there is one, so the API replays it instead of answering again.
-- A message id that belongs to another visitor is invisible under RLS; the insert then conflicts with a row
-- this visitor cannot see, and the function raises unique_violation (the API answers 409), never leaking it.
drop function if exists chat_begin_turn(uuid, uuid, text, text);

-- The earlier turn with this message id, as the caller can see it (row-level security applies).
create function chat_existing_turn(p_message_id uuid, p_session_id uuid, p_content text)
returns table (
  session_id uuid,
  is_new boolean,
  same_request boolean,
  answer_id uuid,
  answer_content text,
  answer_citations jsonb,
  answer_meta jsonb
)
language sql stable security invoker
set search_path = public, extensions
as $$
  select u.session_id, false,
    u.content = p_content and (p_session_id is null or u.session_id = p_session_id),
    a.id, a.content, a.citations, a.meta
  from chat_messages u
  left join chat_messages a on a.reply_to = u.id
  where u.id = p_message_id and u.role = 'user';
$$;

create function chat_begin_turn(
  p_session_id uuid,
  p_message_id uuid,
  p_content text,
  p_title text
)
returns table (
  session_id uuid,
  is_new boolean,
  same_request boolean,
  answer_id uuid,
  answer_content text,
  answer_citations jsonb,
  answer_meta jsonb
)
language plpgsql security invoker
set search_path = public, extensions
as $$
declare
  v_session_id uuid := coalesce(p_session_id, gen_random_uuid());
  v_inserted uuid;
begin
  -- Look first: with row-level security, `insert … on conflict` checks the policy on the proposed row before
  -- it notices the conflict, so a retry must not even propose one.
  return query select * from chat_existing_turn(p_message_id, p_session_id, p_content);
  if found then
    return;
  end if;

  insert into chat_sessions (id, user_id, title)
  values (v_session_id, auth.uid(), p_title)
  on conflict (id) do nothing;

  insert into chat_messages (id, session_id, role, content)
  values (p_message_id, v_session_id, 'user', p_content)
  on conflict (id) do nothing
  returning id into v_inserted;

  if v_inserted is not null then
    update chat_sessions s set updated_at = now() where s.id = v_session_id;
    return query select v_session_id, true, true, null::uuid, null::text, null::jsonb, null::jsonb;
    return;
  end if;

  -- A concurrent request stored this id first (ours), or it is somebody else's (invisible to us). Either
  -- way the session this call may have just created stays empty: remove it.
  if p_session_id is null then
    delete from chat_sessions s where s.id = v_session_id
      and not exists (select 1 from chat_messages m where m.session_id = v_session_id);
  end if;
  return query select * from chat_existing_turn(p_message_id, p_session_id, p_content);
  if not found then
    raise exception 'message id % is already in use', p_message_id using errcode = 'unique_violation';
  end if;
end;
$$;

-- One answer per question even when two requests race to store it: the second gets the first one's id.
create or replace function chat_finish_turn(
  p_session_id uuid,
  p_reply_to uuid,
  p_content text,
  p_citations jsonb,
  p_meta jsonb
)
returns uuid
language plpgsql security invoker
set search_path = public, extensions
as $$
declare
  v_id uuid;
begin
  insert into chat_messages (session_id, role, content, citations, reply_to, meta)
  values (p_session_id, 'assistant', p_content, p_citations, p_reply_to, coalesce(p_meta, '{}'::jsonb))
  on conflict (reply_to) do nothing
  returning id into v_id;
  if v_id is null then
    select m.id into v_id from chat_messages m where m.reply_to = p_reply_to;
  end if;
  return v_id;
end;
$$;

revoke execute on function chat_existing_turn(uuid, uuid, text) from public, anon;
grant execute on function chat_existing_turn(uuid, uuid, text) to authenticated, service_role;
revoke execute on function chat_begin_turn(uuid, uuid, text, text) from public, anon;
grant execute on function chat_begin_turn(uuid, uuid, text, text) to authenticated, service_role;
