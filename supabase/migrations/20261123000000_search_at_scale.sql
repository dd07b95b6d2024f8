-- Retrieval that does not scan the corpus per question.
--
-- Before: every question counted the chunks and their average length, counted each query lexeme's
-- document frequency with a full-text query of its own, and unnested the tsvector of every chunk matching
-- *any* query word (common words reach most of the corpus) — ≈ 0.6 s per question at 12k chunks.
--
-- Now BM25's statistics are data kept with the documents, and the full-text candidates come from the GIN
-- index under a bound:
--   kb_lexemes       per lexeme, how many searchable chunks contain it (document frequency);
--   kb_corpus_stats  one row: searchable chunks and their total length (for the average).
-- "Searchable" is what search_chunks can return: chunks of ready, enabled documents. Triggers keep both in
-- the transaction that changes a document (ingest_document, delete, prune, enable/disable), so a question
-- never reads statistics that disagree with the chunks it can see.

create table kb_lexemes (
  lexeme text primary key,
  df integer not null check (df >= 0)
);
alter table kb_lexemes enable row level security;

create table kb_corpus_stats (
  id boolean primary key default true check (id),
  chunks bigint not null default 0 check (chunks >= 0),
  total_length bigint not null default 0 check (total_length >= 0)
);
alter table kb_corpus_stats enable row level security;
insert into kb_corpus_stats (id) values (true);

-- Adds (p_sign = 1) or removes (-1) chunks, given by their tsvectors and total length, to the statistics.
-- Lexemes are upserted in sorted order so that two ingestions running at once (Supabase has real parallel
-- connections) lock rows in the same order instead of deadlocking; a lexeme whose count reaches 0 goes.
-- Removing only ever meets lexemes that adding counted, so the insert branch of the upsert is for adding.
create or replace function kb_count_chunks(p_fts tsvector[], p_total_length bigint, p_sign integer)
returns void
language plpgsql
set search_path = public, extensions
as $$
begin
  if coalesce(cardinality(p_fts), 0) = 0 then
    return;
  end if;
  insert into kb_lexemes as l (lexeme, df)
  select lexeme, count(*)::integer
  from unnest(p_fts) f, unnest(tsvector_to_array(f)) lexeme
  group by lexeme
  order by lexeme
  on conflict (lexeme) do update set df = l.df + p_sign * excluded.df;
  if p_sign < 0 then
    delete from kb_lexemes l
    where l.df <= 0 and l.lexeme in (select lexeme from unnest(p_fts) f, unnest(tsvector_to_array(f)) lexeme);
  end if;
  update kb_corpus_stats s set
    chunks = s.chunks + p_sign * cardinality(p_fts),
    total_length = s.total_length + p_sign * coalesce(p_total_length, 0)
  where s.id;
end;
$$;

-- Recounts everything from the chunks: for a database that was loaded before this migration, and as a
-- repair should the statistics ever be doubted (`select kb_recount_statistics()`).
create or replace function kb_recount_statistics()
returns void
language plpgsql
set search_path = public, extensions
as $$
begin
  delete from kb_lexemes;
  insert into kb_lexemes (lexeme, df)
  select lexeme, count(*)::integer
  from kb_chunks c
  join kb_documents d on d.id = c.document_id and d.status = 'ready' and d.enabled,
  unnest(tsvector_to_array(c.fts)) lexeme
  group by lexeme;
  update kb_corpus_stats s set chunks = x.n, total_length = x.len
  from (
    select count(*) as n, coalesce(sum(c.fts_length), 0) as len
    from kb_chunks c join kb_documents d on d.id = c.document_id and d.status = 'ready' and d.enabled
  ) x
  where s.id;
end;
$$;

-- Bulk loading. Counting per document costs ≈ 0.9 ms of every document's write (an upsert per lexeme;
-- measured 3.6 vs 2.7 ms per ingest_document in the embedded database); one recount at the end of a large
-- run costs a fraction of that (155 ms for 600 chunks). So a bulk load (kb_defer_embedding_index, which already defers the HNSW index) also defers the
-- statistics: it records them in kb_deferred_indexes with the statement that rebuilds them, the triggers
-- skip while that row exists, and kb_restore_indexes — at the end of the run, or at the next run after a
-- crash — executes it like an index definition and removes the row, in one transaction.
create or replace function kb_statistics_deferred()
returns boolean
language sql stable
set search_path = public, extensions
as $$
  select exists (select 1 from kb_deferred_indexes where name = 'kb_statistics');
$$;

create or replace function kb_defer_embedding_index()
returns boolean
language plpgsql security definer
set search_path = public, extensions
as $$
declare
  v_definition text;
begin
  insert into kb_deferred_indexes (name, definition) values ('kb_statistics', 'select kb_recount_statistics()')
  on conflict (name) do nothing;
  select indexdef into v_definition from pg_indexes
  where schemaname = 'public' and indexname = 'kb_embeddings_embedding_hnsw';
  if v_definition is not null then
    insert into kb_deferred_indexes (name, definition) values ('kb_embeddings_embedding_hnsw', v_definition)
    on conflict (name) do nothing;
    drop index public.kb_embeddings_embedding_hnsw;
  end if;
  -- Something is deferred either way (the statistics): the caller must restore at the end.
  return true;
end;
$$;

-- A document becomes searchable or stops being searchable: ingest_document sets 'processing' before it
-- replaces the chunks and 'ready' after, so an ingestion subtracts the old chunks and adds the new ones;
-- enable/disable does the same without touching the chunks.
create or replace function kb_documents_count_trigger()
returns trigger
language plpgsql
set search_path = public, extensions
as $$
declare
  v_was boolean := tg_op in ('UPDATE', 'DELETE') and old.status = 'ready' and old.enabled;
  v_is boolean := tg_op = 'UPDATE' and new.status = 'ready' and new.enabled;
begin
  if v_was <> v_is and not kb_statistics_deferred() then
    perform kb_count_chunks(array_agg(c.fts), sum(c.fts_length), case when v_is then 1 else -1 end)
    from kb_chunks c where c.document_id = old.id;
  end if;
  return case when tg_op = 'DELETE' then old else new end;
end;
$$;

create trigger kb_documents_count_update
  after update of status, enabled on kb_documents
  for each row execute function kb_documents_count_trigger();
-- Before the delete: its chunks (removed by the cascade) are still there to be subtracted.
create trigger kb_documents_count_delete
  before delete on kb_documents
  for each row execute function kb_documents_count_trigger();

-- Chunks written or removed by anything else than the document's own state change (a chunk inserted into a
-- ready document directly): counted when their document is searchable. During ingest_document the document
-- is 'processing', so these find nothing to do; during a document's delete it is already gone.
create or replace function kb_chunks_count_trigger()
returns trigger
language plpgsql
set search_path = public, extensions
as $$
begin
  if kb_statistics_deferred() then
    return null;
  end if;
  if tg_op in ('DELETE', 'UPDATE') then
    perform kb_count_chunks(array_agg(o.fts), sum(o.fts_length), -1)
    from old_chunks o join kb_documents d on d.id = o.document_id and d.status = 'ready' and d.enabled;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    perform kb_count_chunks(array_agg(n.fts), sum(n.fts_length), 1)
    from new_chunks n join kb_documents d on d.id = n.document_id and d.status = 'ready' and d.enabled;
  end if;
  return null;
end;
$$;

create trigger kb_chunks_count_insert
  after insert on kb_chunks referencing new table as new_chunks
  for each statement execute function kb_chunks_count_trigger();
create trigger kb_chunks_count_delete
  after delete on kb_chunks referencing old table as old_chunks
  for each statement execute function kb_chunks_count_trigger();
create trigger kb_chunks_count_update
  after update on kb_chunks referencing old table as old_chunks new table as new_chunks
  for each statement execute function kb_chunks_count_trigger();

select kb_recount_statistics();

-- Run by the service role's writes (ingestion), as the service role: no security definer needed.
revoke execute on function kb_count_chunks(tsvector[], bigint, integer) from public, anon, authenticated;
revoke execute on function kb_statistics_deferred() from public, anon, authenticated;
revoke execute on function kb_recount_statistics() from public, anon, authenticated;
revoke execute on function kb_documents_count_trigger() from public, anon, authenticated;
revoke execute on function kb_chunks_count_trigger() from public, anon, authenticated;
grant execute on function kb_recount_statistics() to service_role;

-- The full-text index's pending list. GIN's fast update appends new entries to an unsorted list that every
-- search reads in full until (auto)vacuum merges it into the index; the embedded database has no
-- autovacuum, and a list at its 4 MB default made each full-text search read ≈ 350 pages (lexical search
-- 34 ms → 7 ms at 12k chunks once merged). A 256 kB limit bounds what a search can meet between merges.
alter index kb_chunks_fts set (gin_pending_list_limit = 256);

-- After ingestion: merge the full-text pending list and refresh the planner's statistics. Without
-- statistics Postgres takes "ready and enabled" for a rare condition and sorts every embedding instead of
-- walking the HNSW index (EXPLAIN ANALYZE at 12k chunks, cold: 279 ms sorting 11,881 rows vs 35 ms). Supabase's autovacuum does both
-- eventually; the ingester calls this at the end of every run that wrote something, so the first
-- questions after it are fast too.
create or replace function kb_optimize()
returns void
language plpgsql security definer
set search_path = public, extensions
as $$
begin
  perform gin_clean_pending_list('kb_chunks_fts'::regclass);
  analyze kb_documents, kb_chunks, kb_embeddings, kb_lexemes;
end;
$$;
revoke execute on function kb_optimize() from public, anon, authenticated;
grant execute on function kb_optimize() to service_role;
-- Existing knowledge bases only: ANALYZE of empty tables would tell the planner they stay empty (it then
-- scanned kb_chunks on every write of a growing first ingestion: 2 → 7 ms per document by 4,000).
select kb_optimize() where exists (select 1 from kb_chunks);

-- search_chunks: same contract as before (see 20261122030000_hybrid_search.sql for the modes, the filters
-- and the signals it returns); what changed is how the two candidate lists are found. PL/pgSQL, in steps,
-- so that each step is one small statement with a predictable plan (and a cached one, on every Postgres).
--
-- Full text, bounded: the question's lexemes are looked up in kb_lexemes (document frequency → BM25's
-- IDF) and sorted rarest first. Candidates are the chunks containing any of the rarest lexemes whose
-- document frequencies add up to at most 300 (always at least the rarest one), found through the GIN
-- index and never more than 1,000, and only they are scored with BM25 over *all* the question's lexemes.
-- A common word still adds its (small) IDF to a candidate's score; it just does not bring in candidates of
-- its own, so a question with "cells" in it no longer scores a third of a biology corpus. Term frequencies
-- come from the candidate's tsvector cut down to the question's lexemes (setweight + ts_filter, in C)
-- instead of unnesting all of it.
--
-- Vector, through HNSW: order by distance + limit over the embeddings of searchable chunks, with
-- hnsw.iterative_scan on so that a filter does not under-retrieve, and ef_search 200: recall@10 against
-- an exact scan at 10k chunks is 0.976 with 100 and 0.997 with 200, for 3.9 → 5.5 ms per scan
-- (bench-results/2026-11-23; `npm run bench` measures 40 / 100 / 200 / 400 at every scale). With filters, the allowed documents are listed first and
-- the same scan keeps only their chunks.
create or replace function search_chunks(
  query_embedding extensions.vector(384) default null,
  query_text text default null,
  match_count integer default 5,
  search_mode text default 'hybrid',
  filters jsonb default '{}'::jsonb,
  candidate_count integer default 50
)
returns table (
  chunk_id uuid,
  content text,
  meta jsonb,
  document_id uuid,
  document_title text,
  document_url text,
  document_meta jsonb,
  cosine double precision,
  bm25 double precision,
  coverage double precision,
  vector_rank integer,
  lexical_rank integer,
  score double precision
)
language plpgsql stable security definer
set search_path = public, extensions
set hnsw.iterative_scan = relaxed_order
set hnsw.ef_search = 200
as $$
#variable_conflict use_column
declare
  -- The lexical probe: lexemes rarest first until their document frequencies add up to this many chunks.
  c_probe_budget constant integer := 300;
  -- Candidates scored with BM25 at most (the probe's rarest lexeme alone may be in more chunks).
  c_lexical_cap constant integer := 1000;
  v_text text := nullif(btrim(query_text), '');
  v_mode text;
  v_k integer := least(greatest(match_count, 1), 200);
  v_candidates integer := least(greatest(candidate_count, match_count, 1), 1000);
  f jsonb := coalesce(filters, '{}'::jsonb);
  v_docs uuid[];
  v_vector uuid[] := '{}';
  v_query tsquery;
  v_probe tsquery;
  v_lexemes text[] := '{}';
  v_idf double precision[] := '{}';
  v_avgdl double precision;
  v_lex_ids uuid[] := '{}';
  v_lex_bm25 double precision[] := '{}';
begin
  v_mode := case
    when query_embedding is null then 'lexical'
    when v_text is null then 'vector'
    when search_mode in ('vector', 'lexical') then search_mode
    else 'hybrid'
  end;
  if v_mode = 'lexical' and v_text is null then
    return;
  end if;

  -- Filters → the list of documents they allow (null: no filter, every ready and enabled document).
  if f ?| array['document_ids', 'source_types', 'tags', 'languages', 'date_from', 'date_to'] then
    v_docs := array(
      select d.id from kb_documents d
      where d.status = 'ready' and d.enabled
        -- Compared as uuid (the API validates them as uuids) so the primary key finds them; an id that is
        -- not a uuid matches nothing, as before, instead of failing the cast.
        and (jsonb_typeof(f -> 'document_ids') is distinct from 'array'
          or d.id = any (array(
            select x::uuid from jsonb_array_elements_text(f -> 'document_ids') x
            where x ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')))
        and (jsonb_typeof(f -> 'source_types') is distinct from 'array'
          or d.meta ->> 'source_type' in (select jsonb_array_elements_text(f -> 'source_types')))
        and (jsonb_typeof(f -> 'tags') is distinct from 'array'
          or (jsonb_typeof(d.meta -> 'tags') = 'array'
            and d.meta -> 'tags' ?| array(select jsonb_array_elements_text(f -> 'tags'))))
        and (jsonb_typeof(f -> 'languages') is distinct from 'array'
          or d.meta ->> 'language' in (select jsonb_array_elements_text(f -> 'languages')))
        and (f ->> 'date_from' is null or coalesce(
          case when d.meta ->> 'published_at' ~ '^\d{4}-\d{2}-\d{2}' then (d.meta ->> 'published_at')::timestamptz end,
          d.updated_at) >= (f ->> 'date_from')::timestamptz)
        and (f ->> 'date_to' is null or coalesce(
          case when d.meta ->> 'published_at' ~ '^\d{4}-\d{2}-\d{2}' then (d.meta ->> 'published_at')::timestamptz end,
          d.updated_at) <= (f ->> 'date_to')::timestamptz));
  end if;

  if v_mode in ('hybrid', 'vector') then
    if v_docs is null then
      v_vector := array(
        select e.chunk_id
        from kb_embeddings e
        join kb_chunks c on c.id = e.chunk_id
        join kb_documents d on d.id = c.document_id
        where d.status = 'ready' and d.enabled
        order by e.embedding <=> query_embedding
        limit v_candidates);
    else
      v_vector := array(
        select e.chunk_id
        from kb_embeddings e
        join kb_chunks c on c.id = e.chunk_id
        where c.document_id = any (v_docs)
        order by e.embedding <=> query_embedding
        limit v_candidates);
    end if;
  end if;

  if v_mode in ('hybrid', 'lexical') then
    -- The question as typed (websearch syntax); its AND becomes OR unless it uses negation ("-word"), which
    -- only makes sense as typed.
    select case when q::text like '%!%' then q else replace(q::text, ' & ', ' | ')::tsquery end
      into v_query
    from websearch_to_tsquery('english'::regconfig, v_text) q;
    select greatest(s.total_length::double precision / nullif(s.chunks, 0), 1),
      coalesce(array_agg(t.lexeme order by t.df, t.lexeme), '{}'),
      coalesce(array_agg(ln(1 + (s.chunks - t.df + 0.5) / (t.df + 0.5)) order by t.df, t.lexeme), '{}'),
      string_agg(quote_literal(t.lexeme), ' | ' order by t.df, t.lexeme)
        filter (where t.rarity = 1 or t.cumulative_df <= c_probe_budget)::tsquery
      into v_avgdl, v_lexemes, v_idf, v_probe
    from kb_corpus_stats s,
      lateral (
        select q.lexeme, coalesce(l.df, 0) as df,
          sum(coalesce(l.df, 0)) over (order by coalesce(l.df, 0), q.lexeme) as cumulative_df,
          row_number() over (order by coalesce(l.df, 0), q.lexeme) as rarity
        from (select distinct lexeme from unnest(tsvector_to_array(to_tsvector('english'::regconfig, v_text))) lexeme) q
        left join kb_lexemes l on l.lexeme = q.lexeme
      ) t
    where s.id
    group by s.chunks, s.total_length;
    if v_query::text like '%!%' then
      v_probe := v_query;
    end if;
  end if;

  if v_mode in ('hybrid', 'lexical') and v_probe is not null then
    select coalesce(array_agg(x.id order by x.bm25 desc, x.id), '{}'), coalesce(array_agg(x.bm25 order by x.bm25 desc, x.id), '{}')
      into v_lex_ids, v_lex_bm25
    from (
      select c.id, s.bm25
      from (
        select c.id, c.document_id, c.fts, c.fts_length from kb_chunks c
        where c.fts @@ v_probe and (v_query::text not like '%!%' or c.fts @@ v_query)
        limit c_lexical_cap
      ) c
      cross join lateral (
        select sum(v_idf[array_position(v_lexemes, u.lexeme)] * (tf.n * 2.2) / (tf.n + 1.2 * (0.25 + 0.75 * c.fts_length / v_avgdl))) as bm25
        from unnest(ts_filter(setweight(setweight(c.fts, 'D'), 'A', v_lexemes), '{a}')) u,
          lateral (select coalesce(array_length(u.positions, 1), 1)::double precision as n) tf
      ) s
      -- A scalar subquery per candidate (a primary-key lookup): as a join, the planner hashed every
      -- document (a sequential scan of kb_documents, 5–7 ms at 10k documents) to filter ≤ 1,000 chunks.
      where (select d.status = 'ready' and d.enabled from kb_documents d where d.id = c.document_id)
        and (v_docs is null or c.document_id = any (v_docs))
      order by s.bm25 desc, c.id
      limit v_candidates
    ) x;
  end if;

  return query
  with vec as (
    select v.id, v.ord::integer as rank from unnest(v_vector) with ordinality v(id, ord)
  ),
  lex as (
    select l.id, l.bm25, l.ord::integer as rank from unnest(v_lex_ids, v_lex_bm25) with ordinality l(id, bm25, ord)
  ),
  fused as (
    select coalesce(v.id, l.id) as id, v.rank as vector_rank, l.rank as lexical_rank, l.bm25,
      coalesce(1.0 / (60 + v.rank), 0) + coalesce(1.0 / (60 + l.rank), 0) as rrf
    from vec v full join lex l on l.id = v.id
  ),
  -- The best k by the mode's order first (the vector list is already in distance order), then the
  -- embedding of those k only, for their cosine: not of every fused candidate.
  top as (
    select fu.* from fused fu
    order by case v_mode
        when 'vector' then -fu.vector_rank
        when 'lexical' then fu.bm25
        else fu.rrf
      end desc, fu.id
    limit v_k
  ),
  ranked as (
    select t.*,
      case when query_embedding is not null then 1 - (e.embedding <=> query_embedding) end as cosine
    from top t
    left join kb_embeddings e on e.chunk_id = t.id
  ),
  scored as (
    select r.*,
      case v_mode when 'vector' then r.cosine when 'lexical' then r.bm25 else r.rrf end as score
    from ranked r
  )
  select
    c.id, c.content, c.meta, d.id, d.name, d.meta ->> 'url', d.meta,
    r.cosine, r.bm25,
    case when v_mode in ('hybrid', 'lexical') then (
      select sum(t.idf) filter (where c.fts @@ quote_literal(t.lexeme)::tsquery) / nullif(sum(t.idf), 0)
      from unnest(v_lexemes, v_idf) t(lexeme, idf)) end,
    r.vector_rank, r.lexical_rank, r.score::double precision
  from scored r
  join kb_chunks c on c.id = r.id
  join kb_documents d on d.id = c.document_id
  order by r.score desc, c.id;
end;
$$;

-- Whether anything can be searched at all: what a refusal needs to tell "the knowledge base is empty" from
-- "nothing matched". kb_stats counts every chunk (≈ 300 ms at 100k chunks, on every refusal); this stops at
-- the first searchable document.
create or replace function kb_has_documents()
returns boolean
language sql stable security definer
set search_path = public, extensions
as $$
  select exists (select 1 from kb_documents where status = 'ready' and enabled);
$$;
grant execute on function kb_has_documents() to anon, authenticated, service_role;
