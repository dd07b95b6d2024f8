-- The console's conversations show an answer's written version too (generative mode, issue 13): the site owner
-- sees what the visitor's model wrote beside the quoted answer it was written from, flagged with its model.
-- Same function as 20261125030000 with one more column; dropped and created again because a function's result
-- type cannot change in place.
drop function admin_list_conversations(text, text, timestamptz, timestamptz, integer, integer);

create function admin_list_conversations(
  p_rating text, p_outcome text, p_from timestamptz, p_to timestamptz, p_limit integer, p_offset integer
)
returns table (
  message_id uuid, session_id uuid, visitor text, question text, asked_at timestamptz,
  answer text, kind text, reason text, citations jsonb, confidence text, mode text,
  rating smallint, comment text, generated jsonb, total bigint
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

revoke all on function admin_list_conversations(text, text, timestamptz, timestamptz, integer, integer) from public, anon, authenticated;
grant execute on function admin_list_conversations(text, text, timestamptz, timestamptz, integer, integer) to authenticated, service_role;
