-- The knowledge base: documents, their chunks, and one embedding per chunk.
-- Visitors never read these tables directly: RLS is on with no visitor policies, and retrieval goes
-- through security-definer functions (match_chunks) that only ever return ready, enabled documents.
-- Ingestion writes with the service role, which bypasses RLS.

create table kb_documents (
  id uuid primary key default gen_random_uuid(),
  -- Where the document came from (a path relative to the ingestion root, or a URL): its identity on re-ingest.
  source text not null unique,
  name text not null,
  status text not null default 'pending' check (status in ('pending', 'processing', 'ready', 'error')),
  enabled boolean not null default true,
  -- meta.url is the citation link; meta.description, meta.source_type, … as the ingester knows them.
  meta jsonb not null default '{}'::jsonb,
  -- sha256 of the source content; written only together with status 'ready', after every chunk is stored.
  checksum text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table kb_documents enable row level security;

create table kb_chunks (
  id uuid primary key default gen_random_uuid(),
  document_id uuid not null references kb_documents (id) on delete cascade,
  position integer not null,
  content text not null,
  -- meta.section (heading path joined with " › "), meta.heading_path (array), meta.page, meta.anchor, meta.url
  meta jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  unique (document_id, position)
);
alter table kb_chunks enable row level security;

create table kb_embeddings (
  chunk_id uuid primary key references kb_chunks (id) on delete cascade,
  embedding extensions.vector(384) not null,
  -- The model that produced the vector; rows whose model differs from the configured one are stale.
  model text not null,
  created_at timestamptz not null default now()
);
alter table kb_embeddings enable row level security;

-- Cosine distance (<=>) because the model's vectors are normalised sentence embeddings; HNSW with
-- pgvector's defaults (m=16, ef_construction=64).
create index kb_embeddings_embedding_hnsw on kb_embeddings using hnsw (embedding extensions.vector_cosine_ops);
create index kb_chunks_document_id on kb_chunks (document_id);
