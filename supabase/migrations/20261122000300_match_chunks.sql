-- match_chunks: the first retrieval function (plain cosine top-k). Returns at most match_count chunks of ready, enabled
-- documents whose cosine similarity to the query is at least `threshold`, best first.
--
-- Order and limit come first, the threshold after: pgvector applies WHERE filters after the HNSW scan
-- (ef_search candidates), so a threshold inside the scan silently under-retrieves. The ready/enabled filter
-- must sit in the scan, so iterative scans are on: pgvector keeps scanning until enough rows pass it.
create or replace function match_chunks(
  query_embedding extensions.vector(384),
  threshold double precision default 0.35,
  match_count integer default 5
)
returns table (
  chunk_id uuid,
  content text,
  meta jsonb,
  document_id uuid,
  document_title text,
  document_url text,
  similarity double precision
)
language sql stable security definer
set search_path = public, extensions
set hnsw.iterative_scan = relaxed_order
as $$
  select top.*
  from (
    select
      c.id as chunk_id,
      c.content,
      c.meta,
      d.id as document_id,
      d.name as document_title,
      d.meta ->> 'url' as document_url,
      1 - (e.embedding <=> query_embedding) as similarity
    from kb_embeddings e
    join kb_chunks c on c.id = e.chunk_id
    join kb_documents d on d.id = c.document_id
    where d.status = 'ready' and d.enabled
    order by e.embedding <=> query_embedding
    limit least(greatest(match_count, 1), 50)
  ) top
  -- Vectors are stored as float4, so a similarity meant to equal the threshold can come out 1e-8 below it.
  where top.similarity >= threshold - 1e-6
  -- relaxed_order may return the scan slightly out of order; restore it.
  order by top.similarity desc;
$$;

-- Counts for /api/health and the empty-knowledge-base short-circuit.
create or replace function kb_stats()
returns table (documents bigint, ready_documents bigint, chunks bigint, embeddings bigint)
language sql stable security definer
set search_path = public, extensions
as $$
  select
    (select count(*) from kb_documents),
    (select count(*) from kb_documents where status = 'ready' and enabled),
    (select count(*) from kb_chunks),
    (select count(*) from kb_embeddings);
$$;

grant execute on function match_chunks(extensions.vector, double precision, integer) to anon, authenticated, service_role;
grant execute on function kb_stats() to anon, authenticated, service_role;
