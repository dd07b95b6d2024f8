-- Only signed-in visitors call the chat-turn functions. 20261122000600 revoked them from `anon`, but
-- Postgres grants execute on every new function to PUBLIC, which anon is a member of; revoke that too, as
-- 20261122000400 does for ingestion. (Row-level security already refused anon's writes; now PostgREST
-- answers 401 before the function runs.) service_role keeps the grant Supabase's default privileges give it.
revoke execute on function chat_begin_turn(uuid, uuid, text, text) from public;
revoke execute on function chat_finish_turn(uuid, uuid, text, jsonb, jsonb) from public;
