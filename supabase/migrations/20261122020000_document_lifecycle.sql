-- Managing ingested documents after the fact (`npm run docs`, `npm run ingest -- --prune`,
-- `npm run reindex`). Like ingest_document, every function here is for the service role only: visitors
-- never list, toggle or delete documents.

-- Every document with its size and state, newest change first.
create or replace function kb_list_documents()
returns table (
  id uuid,
  source text,
  name text,
  status text,
  enabled boolean,
  chunks bigint,
  meta jsonb,
  updated_at timestamptz
)
language sql stable
set search_path = public, extensions
as $$
  select d.id, d.source, d.name, d.status, d.enabled,
    (select count(*) from kb_chunks c where c.document_id = d.id),
    d.meta, d.updated_at
  from kb_documents d
  order by d.source;
$$;

-- A disabled document keeps its chunks but is never retrieved (match_chunks and search_chunks only read
-- enabled documents); re-ingesting it keeps it disabled. Returns false when no document has that id.
create or replace function kb_set_document_enabled(p_id uuid, p_enabled boolean)
returns boolean
language sql
set search_path = public, extensions
as $$
  with changed as (
    update kb_documents set enabled = p_enabled, updated_at = now() where id = p_id returning 1
  )
  select exists (select 1 from changed);
$$;

-- Deletes a document; its chunks and embeddings go with it (on delete cascade). False when not found.
create or replace function kb_delete_document(p_id uuid)
returns boolean
language sql
set search_path = public, extensions
as $$
  with deleted as (delete from kb_documents where id = p_id returning 1)
  select exists (select 1 from deleted);
$$;

-- Documents that disappeared from a crawled site or an ingested folder: every source starting with
-- p_prefix (e.g. 'docs/' or 'https://example.com/') that is not in p_keep. With p_dry_run nothing is
-- deleted. The prefix is compared with left(), not LIKE, so '_' and '%' in paths are literal.
create or replace function kb_prune_documents(p_prefix text, p_keep text[], p_dry_run boolean default false)
returns table (id uuid, source text)
language plpgsql
set search_path = public, extensions
as $$
begin
  if coalesce(p_prefix, '') = '' then
    raise exception 'kb_prune_documents needs a non-empty prefix';
  end if;
  if p_dry_run then
    return query
      select d.id, d.source from kb_documents d
      where left(d.source, length(p_prefix)) = p_prefix and not (d.source = any (coalesce(p_keep, '{}')))
      order by d.source;
  else
    return query
      delete from kb_documents d
      where left(d.source, length(p_prefix)) = p_prefix and not (d.source = any (coalesce(p_keep, '{}')))
      returning d.id, d.source;
  end if;
end;
$$;

-- Documents with at least one chunk not embedded by p_model (another model, or no embedding at all):
-- what `npm run reindex` re-embeds.
create or replace function kb_stale_documents(p_model text)
returns table (id uuid, source text, name text, stale bigint)
language sql stable
set search_path = public, extensions
as $$
  select d.id, d.source, d.name, count(*)
  from kb_documents d
  join kb_chunks c on c.document_id = d.id
  left join kb_embeddings e on e.chunk_id = c.id
  where e.model is distinct from p_model
  group by d.id
  order by d.source;
$$;

-- The stored chunks of one document in reading order (reindex re-embeds them as they are stored).
create or replace function kb_document_chunks(p_document_id uuid)
returns table (chunk_id uuid, chunk_position integer, content text, meta jsonb)
language sql stable
set search_path = public, extensions
as $$
  select c.id, c.position, c.content, c.meta from kb_chunks c
  where c.document_id = p_document_id
  order by c.position;
$$;

-- Replaces the embeddings of the given chunks (one document per call: one transaction, so a document is
-- never half old model, half new when the call fails). p_embeddings: [{"chunk_id", "embedding": [384]}].
-- Returns how many rows were written; chunks deleted in the meantime are skipped.
create or replace function kb_set_embeddings(p_model text, p_embeddings jsonb)
returns integer
language plpgsql
set search_path = public, extensions
as $$
declare
  v_count integer;
begin
  insert into kb_embeddings (chunk_id, embedding, model)
  select c.id, (x.value -> 'embedding')::text::vector, p_model
  from jsonb_array_elements(p_embeddings) x
  join kb_chunks c on c.id = (x.value ->> 'chunk_id')::uuid
  on conflict (chunk_id) do update set embedding = excluded.embedding, model = excluded.model, created_at = now();
  get diagnostics v_count = row_count;
  return v_count;
end;
$$;

-- Bulk loading. Inserting into an HNSW index one row at a time costs several times more than building
-- the index once over all rows (measured in the embedded database: ≈ 7 ms vs ≈ 1.3 ms per 384-d row), so
-- a large ingestion run drops the index, writes, and rebuilds it. The definition is kept in a table in
-- the same transaction as the drop, so a run killed half-way leaves a record that the next run (or
-- kb_restore_indexes on start-up) uses to rebuild it; meanwhile retrieval is an exact scan, still correct.
create table if not exists kb_deferred_indexes (
  name text primary key,
  definition text not null,
  deferred_at timestamptz not null default now()
);
alter table kb_deferred_indexes enable row level security;

-- Security definer: dropping and creating an index needs its owner, and only service_role may call these.
create or replace function kb_defer_embedding_index()
returns boolean
language plpgsql security definer
set search_path = public, extensions
as $$
declare
  v_definition text;
begin
  select indexdef into v_definition from pg_indexes
  where schemaname = 'public' and indexname = 'kb_embeddings_embedding_hnsw';
  if v_definition is null then
    return false;
  end if;
  insert into kb_deferred_indexes (name, definition) values ('kb_embeddings_embedding_hnsw', v_definition)
  on conflict (name) do nothing;
  drop index public.kb_embeddings_embedding_hnsw;
  return true;
end;
$$;

create or replace function kb_restore_indexes()
returns integer
language plpgsql security definer
set search_path = public, extensions
as $$
declare
  v_row record;
  v_count integer := 0;
begin
  for v_row in select name, definition from kb_deferred_indexes order by name for update loop
    if not exists (select 1 from pg_indexes where schemaname = 'public' and indexname = v_row.name) then
      execute v_row.definition;
      v_count := v_count + 1;
    end if;
    delete from kb_deferred_indexes where name = v_row.name;
  end loop;
  return v_count;
end;
$$;

revoke execute on function kb_list_documents() from public, anon, authenticated;
revoke execute on function kb_set_document_enabled(uuid, boolean) from public, anon, authenticated;
revoke execute on function kb_delete_document(uuid) from public, anon, authenticated;
revoke execute on function kb_prune_documents(text, text[], boolean) from public, anon, authenticated;
revoke execute on function kb_stale_documents(text) from public, anon, authenticated;
revoke execute on function kb_document_chunks(uuid) from public, anon, authenticated;
revoke execute on function kb_set_embeddings(text, jsonb) from public, anon, authenticated;
revoke execute on function kb_defer_embedding_index() from public, anon, authenticated;
revoke execute on function kb_restore_indexes() from public, anon, authenticated;
grant execute on function kb_list_documents() to service_role;
grant execute on function kb_set_document_enabled(uuid, boolean) to service_role;
grant execute on function kb_delete_document(uuid) to service_role;
grant execute on function kb_prune_documents(text, text[], boolean) to service_role;
grant execute on function kb_stale_documents(text) to service_role;
grant execute on function kb_document_chunks(uuid) to service_role;
grant execute on function kb_set_embeddings(text, jsonb) to service_role;
grant execute on function kb_defer_embedding_index() to service_role;
grant execute on function kb_restore_indexes() to service_role;
