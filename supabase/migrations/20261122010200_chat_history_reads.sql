-- Reading history. Security invoker: row-level security decides what a visitor sees, so
-- another visitor's session is simply not there.

-- The caller's sessions, most recently active first.
create or replace function list_chat_sessions(p_limit integer default 50)
returns setof chat_sessions
language sql stable security invoker
set search_path = public, extensions
as $$
  select * from chat_sessions order by updated_at desc, created_at desc limit least(greatest(p_limit, 1), 200);
$$;

-- One of the caller's sessions; no row when it is not theirs (or does not exist).
create or replace function get_chat_session(p_session_id uuid)
returns setof chat_sessions
language sql stable security invoker
set search_path = public, extensions
as $$
  select * from chat_sessions where id = p_session_id;
$$;

-- The messages of one of the caller's sessions, oldest first; no rows when the session is not theirs.
create or replace function get_chat_messages(p_session_id uuid)
returns setof chat_messages
language sql stable security invoker
set search_path = public, extensions
as $$
  select * from chat_messages where session_id = p_session_id
  -- A user message and its answer can share a timestamp within one transaction; the question comes first.
  order by created_at, case role when 'user' then 0 else 1 end;
$$;

revoke execute on function list_chat_sessions(integer) from public, anon;
revoke execute on function get_chat_messages(uuid) from public, anon;
revoke execute on function get_chat_session(uuid) from public, anon;
grant execute on function get_chat_session(uuid) to authenticated, service_role;
grant execute on function list_chat_sessions(integer) to authenticated, service_role;
grant execute on function get_chat_messages(uuid) to authenticated, service_role;
