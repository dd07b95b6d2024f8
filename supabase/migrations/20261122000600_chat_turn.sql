-- The two writes of one question/answer turn. Both run as the calling visitor (security invoker), so
-- the policies of chat_history decide; a session id owned by somebody else fails the insert policy.

-- Creates the session when it does not exist yet (title from the first message, computed by the API),
-- then stores the user's message under its client-generated id. Returns the session id.
-- `on conflict do nothing` rather than check-then-insert: two first messages racing for one session id
-- must not create two sessions or fail on the unique key.
create or replace function chat_begin_turn(
  p_session_id uuid,
  p_message_id uuid,
  p_content text,
  p_title text
)
returns uuid
language plpgsql security invoker
set search_path = public, extensions
as $$
declare
  v_session_id uuid := coalesce(p_session_id, gen_random_uuid());
begin
  insert into chat_sessions (id, user_id, title)
  values (v_session_id, auth.uid(), p_title)
  on conflict (id) do nothing;

  update chat_sessions set updated_at = now() where id = v_session_id;

  insert into chat_messages (id, session_id, role, content)
  values (p_message_id, v_session_id, 'user', p_content);
  return v_session_id;
end;
$$;

-- Stores the assistant's answer (or refusal) to one user message. Returns the new message id.
create or replace function chat_finish_turn(
  p_session_id uuid,
  p_reply_to uuid,
  p_content text,
  p_citations jsonb,
  p_meta jsonb
)
returns uuid
language sql security invoker
set search_path = public, extensions
as $$
  insert into chat_messages (session_id, role, content, citations, reply_to, meta)
  values (p_session_id, 'assistant', p_content, p_citations, p_reply_to, coalesce(p_meta, '{}'::jsonb))
  returning id;
$$;

grant execute on function chat_begin_turn(uuid, uuid, text, text) to authenticated;
grant execute on function chat_finish_turn(uuid, uuid, text, jsonb, jsonb) to authenticated;
revoke execute on function chat_begin_turn(uuid, uuid, text, text) from anon;
revoke execute on function chat_finish_turn(uuid, uuid, text, jsonb, jsonb) from anon;
