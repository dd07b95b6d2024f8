-- Hybrid retrieval: full-text search next to the vector index, and one function that fuses
-- both by reciprocal rank fusion, with the evidence signals the chat endpoint's gate needs.

-- The text a chunk is found by: its section path (document title and headings, which the stored content
-- does not repeat) and its content. English stemming and stopwords ('english' is a regconfig constant, so
-- the expression is immutable and can be a stored generated column).
alter table kb_chunks
  add column fts tsvector generated always as (
    setweight(to_tsvector('english'::regconfig, coalesce(meta ->> 'section', '')), 'B')
    || setweight(to_tsvector('english'::regconfig, content), 'A')
  ) stored;
-- Distinct lexemes of fts: BM25's document length (kept beside it so the average is a cheap scan).
alter table kb_chunks
  add column fts_length integer generated always as (
    length(
      to_tsvector('english'::regconfig, coalesce(meta ->> 'section', ''))
      || to_tsvector('english'::regconfig, content)
    )
  ) stored;
create index kb_chunks_fts on kb_chunks using gin (fts);

-- search_chunks: the retrieval contract for chat and search.
--
--   search_mode  'hybrid' (default): vector top-k and full-text top-k fused by reciprocal rank fusion,
--                score = Σ 1 / (rrf_k + rank) over the lists a chunk is in (rrf_k = 60);
--                'vector': cosine similarity order, score = cosine;
--                'lexical': BM25 order, score = BM25. Without an embedding every mode is lexical;
--                without text every mode is vector.
--   filters      {"document_ids": [uuid], "source_types": [text], "tags": [text] (any of them),
--                 "languages": [text], "date_from": timestamptz, "date_to": timestamptz}. The date is
--                meta.published_at when the document has one, else its updated_at.
--
-- Full text: websearch_to_tsquery on the question, with its AND turned into OR (a question's words are
-- not all in the answer: "What year did …" rarely says "year"), unless the text uses negation ("-word"),
-- which only makes sense as typed. Ranked by BM25 (k1 = 1.2, b = 0.75) with IDF over all chunks, because
-- ts_rank has no notion of how rare a word is.
--
-- Per row it also returns the gate's signals: cosine (null without an embedding) and coverage, the
-- IDF-weighted share of the question's distinct lexemes the chunk contains (0…1; null without text).
-- A lexeme the knowledge base has never seen weighs the most, so a question about something absent
-- covers little.
--
-- Vector candidates: order + limit on the HNSW index with the document filters in the same scan and
-- hnsw.iterative_scan on, so pgvector keeps scanning until enough rows pass them (filters are applied
-- after the scan otherwise, and silently under-retrieve).
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
language sql stable security definer
set search_path = public, extensions
set hnsw.iterative_scan = relaxed_order
as $$
  with params as (
    select
      case
        when query_embedding is null or nullif(btrim(query_text), '') is null then
          case when query_embedding is null then 'lexical' else 'vector' end
        when search_mode in ('vector', 'lexical') then search_mode
        else 'hybrid'
      end as mode,
      nullif(btrim(query_text), '') as text,
      least(greatest(match_count, 1), 200) as k,
      least(greatest(candidate_count, match_count, 1), 1000) as candidates,
      coalesce(filters, '{}'::jsonb) as f
  ),
  docs as not materialized (
    select d.id, d.name, d.meta
    from kb_documents d, params p
    where d.status = 'ready' and d.enabled
      and (jsonb_typeof(p.f -> 'document_ids') is distinct from 'array'
        or d.id::text in (select jsonb_array_elements_text(p.f -> 'document_ids')))
      and (jsonb_typeof(p.f -> 'source_types') is distinct from 'array'
        or d.meta ->> 'source_type' in (select jsonb_array_elements_text(p.f -> 'source_types')))
      and (jsonb_typeof(p.f -> 'tags') is distinct from 'array'
        or (jsonb_typeof(d.meta -> 'tags') = 'array'
          and d.meta -> 'tags' ?| array(select jsonb_array_elements_text(p.f -> 'tags'))))
      and (jsonb_typeof(p.f -> 'languages') is distinct from 'array'
        or d.meta ->> 'language' in (select jsonb_array_elements_text(p.f -> 'languages')))
      and (p.f ->> 'date_from' is null or coalesce(
        case when d.meta ->> 'published_at' ~ '^\d{4}-\d{2}-\d{2}' then (d.meta ->> 'published_at')::timestamptz end,
        d.updated_at) >= (p.f ->> 'date_from')::timestamptz)
      and (p.f ->> 'date_to' is null or coalesce(
        case when d.meta ->> 'published_at' ~ '^\d{4}-\d{2}-\d{2}' then (d.meta ->> 'published_at')::timestamptz end,
        d.updated_at) <= (p.f ->> 'date_to')::timestamptz)
  ),
  vec as (
    select top.chunk_id, row_number() over (order by top.distance)::integer as rank
    from (
      select e.chunk_id, e.embedding <=> query_embedding as distance
      from kb_embeddings e
      join kb_chunks c on c.id = e.chunk_id
      join docs d on d.id = c.document_id
      where (select mode from params) in ('hybrid', 'vector')
      order by e.embedding <=> query_embedding
      limit (select candidates from params)
    ) top
  ),
  tsq as (
    select
      case when q::text like '%!%' then q else replace(q::text, ' & ', ' | ')::tsquery end as q,
      p.text
    from params p, websearch_to_tsquery('english'::regconfig, p.text) q
    where p.mode in ('hybrid', 'lexical')
  ),
  corpus as (
    select count(*)::double precision as n, greatest(avg(fts_length), 1)::double precision as avgdl
    from kb_chunks
    where exists (select 1 from tsq)
  ),
  terms as (
    select t.lexeme,
      ln(1 + (corpus.n - t.df + 0.5) / (t.df + 0.5)) as idf
    from (
      select distinct lexeme,
        (select count(*) from kb_chunks c where c.fts @@ quote_literal(lexeme)::tsquery)::double precision as df
      from tsq, unnest(tsvector_to_array(to_tsvector('english'::regconfig, tsq.text))) lexeme
    ) t, corpus
  ),
  lex as (
    select scored.chunk_id, scored.bm25, row_number() over (order by scored.bm25 desc, scored.chunk_id)::integer as rank
    from (
      select c.id as chunk_id,
        sum(t.idf * (tf.n * 2.2) / (tf.n + 1.2 * (0.25 + 0.75 * c.fts_length / corpus.avgdl))) as bm25
      from tsq
      join kb_chunks c on c.fts @@ tsq.q
      join docs d on d.id = c.document_id
      cross join corpus
      cross join lateral unnest(c.fts) u
      join terms t on t.lexeme = u.lexeme
      cross join lateral (select coalesce(array_length(u.positions, 1), 1)::double precision as n) tf
      group by c.id
      order by bm25 desc, c.id
      limit (select candidates from params)
    ) scored
  ),
  fused as (
    select coalesce(v.chunk_id, l.chunk_id) as chunk_id, v.rank as vector_rank, l.rank as lexical_rank, l.bm25,
      coalesce(1.0 / (60 + v.rank), 0) + coalesce(1.0 / (60 + l.rank), 0) as rrf
    from vec v full join lex l on l.chunk_id = v.chunk_id
  ),
  ranked as (
    select f.*,
      case (select mode from params)
        when 'vector' then 1 - (e.embedding <=> query_embedding)
        when 'lexical' then f.bm25
        else f.rrf
      end as score,
      case when query_embedding is not null then 1 - (e.embedding <=> query_embedding) end as cosine
    from fused f
    left join kb_embeddings e on e.chunk_id = f.chunk_id
    order by score desc, f.chunk_id
    limit (select k from params)
  )
  select
    c.id, c.content, c.meta, d.id, d.name, d.meta ->> 'url', d.meta,
    r.cosine, r.bm25,
    (select sum(t.idf) filter (where c.fts @@ quote_literal(t.lexeme)::tsquery) / nullif(sum(t.idf), 0) from terms t),
    r.vector_rank, r.lexical_rank, r.score
  from ranked r
  join kb_chunks c on c.id = r.chunk_id
  join docs d on d.id = c.document_id
  order by r.score desc, c.id;
$$;

grant execute on function search_chunks(extensions.vector, text, integer, text, jsonb, integer)
  to anon, authenticated, service_role;
