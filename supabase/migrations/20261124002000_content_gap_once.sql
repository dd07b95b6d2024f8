-- Content gaps counted once per question message. record_content_gap now takes the message id
-- and counts a message at most once, so the call is idempotent: the Supabase store may retry it after a
-- lost response, and a retried request that replays a stored refusal may record its gap again, without
-- ever inflating `asked`. Counted ids are kept per message (a gap row is per normalised question).
create table content_gap_messages (
  message_id uuid primary key,
  question_key text not null references content_gaps (question_key) on delete cascade,
  counted_at timestamptz not null default now()
);
alter table content_gap_messages enable row level security;
-- No policies: only record_content_gap (security definer) writes it.

drop function record_content_gap(text, text);

create function record_content_gap(p_question text, p_reason text, p_message_id uuid)
returns void
language plpgsql security definer
set search_path = public, extensions
as $$
declare
  v_key text := lower(regexp_replace(trim(p_question), '\s+', ' ', 'g'));
begin
  -- A visitor counts only their own stored questions (the service role, without a user, any).
  if auth.uid() is not null and not exists (
    select 1 from chat_messages m join chat_sessions s on s.id = m.session_id
    where m.id = p_message_id and m.role = 'user' and s.user_id = auth.uid()
  ) then
    raise exception 'message % is not a question of this user', p_message_id using errcode = 'insufficient_privilege';
  end if;
  insert into content_gaps (question_key, question, reason, asked)
  values (v_key, left(p_question, 500), p_reason, 0)
  on conflict (question_key) do nothing;
  insert into content_gap_messages (message_id, question_key) values (p_message_id, v_key)
  on conflict (message_id) do nothing;
  if not found then
    return; -- this message was counted already
  end if;
  update content_gaps g
  set asked = g.asked + 1, last_asked_at = now(), question = left(p_question, 500), reason = p_reason
  where g.question_key = v_key;
end;
$$;

revoke execute on function record_content_gap(text, text, uuid) from public, anon;
grant execute on function record_content_gap(text, text, uuid) to authenticated, service_role;
