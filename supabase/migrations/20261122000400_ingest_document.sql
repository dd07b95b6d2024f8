-- ingest_document: replace one document and all its chunks and embeddings in a single transaction.
-- A function call is one transaction, so readers see either the old version or the new one, never a
-- mixture, and the checksum is written together with status 'ready' only after every chunk is stored:
-- an interrupted ingestion leaves nothing that looks finished, and the next run simply does it again.
--
-- p_chunks: [{ "content": text, "meta": {...}, "embedding": [384 numbers] }, ...] in reading order.
create or replace function ingest_document(
  p_source text,
  p_name text,
  p_meta jsonb,
  p_checksum text,
  p_model text,
  p_chunks jsonb
)
returns uuid
language plpgsql
set search_path = public, extensions
as $$
declare
  v_document_id uuid;
begin
  insert into kb_documents (source, name, meta, status)
  values (p_source, p_name, coalesce(p_meta, '{}'::jsonb), 'processing')
  on conflict (source) do update
    set name = excluded.name, meta = excluded.meta, status = 'processing', checksum = null, updated_at = now()
  returning id into v_document_id;

  delete from kb_chunks where document_id = v_document_id;

  with input as (
    select ordinality - 1 as position, value as chunk
    from jsonb_array_elements(p_chunks) with ordinality
  ),
  inserted as (
    insert into kb_chunks (document_id, position, content, meta)
    select v_document_id, position, chunk ->> 'content', coalesce(chunk -> 'meta', '{}'::jsonb)
    from input
    returning id, position
  )
  insert into kb_embeddings (chunk_id, embedding, model)
  select inserted.id, (input.chunk -> 'embedding')::text::vector, p_model
  from inserted join input using (position);

  update kb_documents set status = 'ready', checksum = p_checksum, updated_at = now()
  where id = v_document_id;
  return v_document_id;
end;
$$;

-- What the ingester needs to decide whether a source changed: its checksum, and whether every chunk was
-- embedded with the current model.
create or replace function document_state(p_source text, p_model text)
returns table (document_id uuid, status text, checksum text, stale_embeddings bigint)
language sql stable
set search_path = public, extensions
as $$
  select d.id, d.status, d.checksum,
    (select count(*) from kb_chunks c left join kb_embeddings e on e.chunk_id = c.id
      where c.document_id = d.id and (e.model is distinct from p_model))
  from kb_documents d where d.source = p_source;
$$;

-- Only the service role (the ingestion CLI) may write the knowledge base.
revoke execute on function ingest_document(text, text, jsonb, text, text, jsonb) from public, anon, authenticated;
grant execute on function ingest_document(text, text, jsonb, text, text, jsonb) to service_role;
revoke execute on function document_state(text, text) from public, anon, authenticated;
grant execute on function document_state(text, text) to service_role;
