-- The console's thread view shows a follow-up's "About: …" note, as the widget showed it to the visitor and as
-- the export already carries it (admin_export_conversations' `context`): admin_get_thread gains a last column,
-- `context`, read from the answer's meta (else the question's), which only the server writes. A new result
-- column changes the function's type, so it is dropped and created again with its grants and comment; the body
-- is otherwise the one before.
drop function if exists admin_get_thread(uuid);
create function admin_get_thread(p_session_id uuid)
 returns table(session_id uuid, title text, visitor text, question_id uuid, question text, asked_at timestamp with time zone, message_id uuid, answer text, kind text, reason text, citations jsonb, closest jsonb, confidence text, mode text, rating smallint, comment text, generated jsonb, context jsonb)
 language plpgsql
 stable security definer
 set search_path to 'public', 'extensions', 'pg_temp'
as $function$
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
      end,
      coalesce(a.meta -> 'context', u.meta -> 'context')
    from chat_sessions s
    join chat_messages u on u.session_id = s.id and u.role = 'user'
    left join chat_messages a on a.reply_to = u.id and a.role = 'assistant'
    left join chat_feedback f on f.message_id = a.id
    where s.id = p_session_id
    order by u.created_at, u.id
    limit 500;
end;
$function$;
comment on function admin_get_thread(p_session_id uuid) is
  'One conversation, question by question with each answer, its citations, rating and the follow-up context it was answered in (context.about: the "About: …" note). Called by the console with an admin''s JWT.';
revoke all on function admin_get_thread(p_session_id uuid) from public, anon, authenticated;
grant execute on function admin_get_thread(p_session_id uuid) to authenticated, service_role;
