-- The console reads a conversation as the visitor had it: one session's turns, oldest first — each question
-- with its answer or refusal, citations, the closest pages a refusal listed, the rating and comment, and
-- the answer the visitor's model wrote where there is one. Admins only, checked here (kb_assert_admin,
-- 20261125030000) like every admin_* function, whichever API — or PostgREST caller — makes the call.
--
-- A question whose answer was never stored (the stream failed) is still a turn: its answer columns are
-- null. At most 500 turns (a session of hundreds of turns is a bot, not a visitor to read); no rows when
-- there is no such session, so the API answers 404.
create function admin_get_thread(p_session_id uuid)
returns table (
  session_id uuid, title text, visitor text,
  question_id uuid, question text, asked_at timestamptz,
  message_id uuid, answer text, kind text, reason text, citations jsonb, closest jsonb, confidence text, mode text,
  rating smallint, comment text, generated jsonb
)
language plpgsql stable security definer
set search_path = public, extensions, pg_temp
as $$
begin
  perform kb_assert_admin();
  if p_session_id is null then
    raise exception 'session_id is required' using errcode = 'invalid_parameter_value';
  end if;
  return query
    select s.id, s.title, kb_visitor_id(s.user_id),
      u.id, u.content, u.created_at,
      a.id, left(a.content, 4000),
      case when a.id is null then null else coalesce(a.meta ->> 'kind', 'answer') end,
      a.meta ->> 'reason', a.citations, a.meta -> 'closest',
      a.meta ->> 'confidence', a.meta ->> 'mode', f.rating, f.comment,
      case when a.meta ? 'generated'
        then jsonb_build_object('text', left(a.meta -> 'generated' ->> 'text', 4000), 'model', a.meta -> 'generated' ->> 'model')
      end
    from chat_sessions s
    join chat_messages u on u.session_id = s.id and u.role = 'user'
    left join chat_messages a on a.reply_to = u.id and a.role = 'assistant'
    left join chat_feedback f on f.message_id = a.id
    where s.id = p_session_id
    order by u.created_at, u.id
    limit 500;
end;
$$;

revoke all on function admin_get_thread(uuid) from public, anon, authenticated;
grant execute on function admin_get_thread(uuid) to authenticated, service_role;
