-- One chunk's full text for the widget's "expand this source" (citations carry only an excerpt). Security
-- definer like match_chunks, and for the same reason: visitors never read kb_* tables directly, and only
-- chunks of ready, enabled documents exist for them.
create or replace function get_chunk(p_chunk_id uuid)
returns table (chunk_id uuid, content text, meta jsonb, document_id uuid, document_title text, document_url text)
language sql stable security definer
set search_path = public, extensions
as $$
  select c.id, c.content, c.meta, d.id, d.name, d.meta ->> 'url'
  from kb_chunks c join kb_documents d on d.id = c.document_id
  where c.id = p_chunk_id and d.status = 'ready' and d.enabled;
$$;

revoke execute on function get_chunk(uuid) from public, anon;
grant execute on function get_chunk(uuid) to authenticated, service_role;
