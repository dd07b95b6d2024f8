-- Chunks without an embedding: what a server stores when the embedding model cannot be loaded (no network
-- and no KB_MODEL_DIR on a first `npm start`). Keyword search reads only kb_chunks and its full-text column, so
-- such chunks are answered from by words; vector search never sees them (it joins kb_embeddings). The
-- document keeps counting as stale in document_state (its chunks lack an embedding of the model), so the
-- next ingestion that can load the model chunks and embeds it again.
--
-- ingest_document is the function of 20261122000400 except that a chunk whose "embedding" is missing or JSON
-- null gets no kb_embeddings row (the insert used to fail on the not-null column).
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
set search_path = public, extensions, pg_temp
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
  from inserted join input using (position)
  where jsonb_typeof(input.chunk -> 'embedding') = 'array';

  update kb_documents set status = 'ready', checksum = p_checksum, updated_at = now()
  where id = v_document_id;
  return v_document_id;
end;
$$;

comment on function ingest_document is
  'Replaces a document with its chunks and their embeddings in one transaction (a chunk without an embedding is stored for keyword search only); the checksum is written with them, so an interrupted run is redone. Called by the ingester with the service-role key.';
