-- Retrieval fields: the page title and the section path weigh more than body text in full-text ranking,
-- words as typed tell stemming collisions apart, and one page's many chunks cannot fill the candidates.
--
-- Before, a chunk's full text was its section path and its content in one tsvector, both counted as body
-- text by BM25, and the page title (kb_documents.name) was not searched at all. A question about logging
-- in ("log in", lexeme "log") scored the "Logging" page's chunks as high as the login section, and a
-- page that mentions a feature in passing scored like the feature's own page.
--
-- The fields are stored beside the text as lexeme arrays, generated from the columns they come from (so
-- every row that already exists is filled by this migration, and a re-ingestion or rename keeps them):
--   kb_documents.title_terms / title_words   the title, English lexemes / words as typed ('simple')
--   kb_chunks.section_terms / section_words  the section path, the same two ways
-- Arrays rather than tsvectors: they are only ever intersected with the question's few words, per
-- candidate, after the GIN index found the candidates.

alter table kb_documents
  add column title_terms text[] generated always as (
    tsvector_to_array(to_tsvector('english'::regconfig, coalesce(name, '')))) stored,
  add column title_words text[] generated always as (
    tsvector_to_array(to_tsvector('simple'::regconfig, coalesce(name, '')))) stored;

alter table kb_chunks
  add column section_terms text[] generated always as (
    tsvector_to_array(to_tsvector('english'::regconfig, coalesce(meta ->> 'section', '')))) stored,
  add column section_words text[] generated always as (
    tsvector_to_array(to_tsvector('simple'::regconfig, coalesce(meta ->> 'section', '')))) stored;

-- kb_search_chunks (the search behind the exposed search_chunks; same arguments, same result columns, see
-- 20261123000000_search_at_scale.sql for the probe, the BM25 and the vector scan). What changed:
--   BM25 over fields: each full-text candidate's BM25 gains c_field_weight × IDF for every question lexeme
--     in its page title or section path, and c_exact_weight × IDF for every question word found there as
--     typed; the result's bm25 column is that score.
--   Diversity: at most c_per_document chunks of one document among the full-text candidates and in the
--     fused pool.
--   Coverage (the evidence of the gate) counts a question lexeme found in the page title, as it already
--     counted one in the section path.
create or replace function kb_search_chunks(
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
  -- A question lexeme in the page title or the section path adds this many times its IDF to BM25: a
  -- page about the thing asked names it in its title or headings, a page that mentions it in passing
  -- does not (one full-weight occurrence in the body adds at most 2.2 × IDF, a short chunk's BM25 ceiling).
  c_field_weight constant double precision := 1.0;
  -- A question word found as typed (no stemming) in the title or section path adds this many times its
  -- IDF again: stemming makes "log in" and "Logging" the same lexeme, the exact word tells them apart.
  c_exact_weight constant double precision := 0.5;
  -- Chunks of one document at most, in the full-text candidates and in the fused pool: a long page whose
  -- every chunk shares the question's words must not push the answering page out of the candidates.
  c_per_document constant integer := 4;
  -- The page title counts towards coverage (the evidence signal) as the section path already does.
  c_title_coverage constant boolean := true;
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
  v_words text[] := '{}';
  v_word_idf double precision[] := '{}';
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
    -- The question's words as typed (lowercased, 'simple' configuration), each with the IDF of its
    -- English lexeme; stopwords have none and are left out.
    select coalesce(array_agg(w.word order by w.word), '{}'), coalesce(array_agg(i.idf order by w.word), '{}')
      into v_words, v_word_idf
    from (select distinct word from unnest(tsvector_to_array(to_tsvector('simple'::regconfig, v_text))) word) w
    cross join lateral (
      select v_idf[array_position(v_lexemes, x)] as idf
      from unnest(tsvector_to_array(to_tsvector('english'::regconfig, w.word))) x
      limit 1
    ) i
    where i.idf is not null;
  end if;

  if v_mode in ('hybrid', 'lexical') and v_probe is not null then
    select coalesce(array_agg(x.id order by x.bm25 desc, x.id), '{}'), coalesce(array_agg(x.bm25 order by x.bm25 desc, x.id), '{}')
      into v_lex_ids, v_lex_bm25
    from (
      select s.id, s.bm25
      from (
        select c.id, b.bm25 + c_field_weight * f.field + c_exact_weight * f.exact as bm25,
          row_number() over (partition by c.document_id
            order by b.bm25 + c_field_weight * f.field + c_exact_weight * f.exact desc, c.id) as in_document
        from (
          select c.id, c.document_id, c.fts, c.fts_length, c.section_terms, c.section_words from kb_chunks c
          where c.fts @@ v_probe and (v_query::text not like '%!%' or c.fts @@ v_query)
          limit c_lexical_cap
        ) c
        -- A primary-key lookup per candidate, kept from being flattened into a join (offset 0): as a join,
        -- the planner hashed every document (a sequential scan of kb_documents, 5–7 ms at 10k documents)
        -- to filter ≤ 1,000 chunks.
        cross join lateral (
          select d.status = 'ready' and d.enabled as searchable, d.title_terms, d.title_words
          from kb_documents d where d.id = c.document_id offset 0
        ) d
        cross join lateral (
          select sum(v_idf[array_position(v_lexemes, u.lexeme)] * (tf.n * 2.2) / (tf.n + 1.2 * (0.25 + 0.75 * c.fts_length / v_avgdl))) as bm25
          from unnest(ts_filter(setweight(setweight(c.fts, 'D'), 'A', v_lexemes), '{a}')) u,
            lateral (select coalesce(array_length(u.positions, 1), 1)::double precision as n) tf
        ) b
        -- The title and section fields: lexemes (stemmed) and words as typed, each counted once.
        cross join lateral (
          select
            coalesce((select sum(t.idf) from unnest(v_lexemes, v_idf) t(lexeme, idf)
              where t.lexeme = any (c.section_terms) or t.lexeme = any (d.title_terms)), 0) as field,
            coalesce((select sum(t.idf) from unnest(v_words, v_word_idf) t(word, idf)
              where t.word = any (c.section_words) or t.word = any (d.title_words)), 0) as exact
        ) f
        where d.searchable
          and (v_docs is null or c.document_id = any (v_docs))
      ) s
      where s.in_document <= c_per_document
      order by s.bm25 desc, s.id
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
  -- At most c_per_document chunks of one document, the best by the mode's order (the full-text list is
  -- capped already; the vector list is not, it is ordered by the index).
  diverse as (
    select fu.* from (
      select fu.*, row_number() over (partition by c.document_id
        order by case v_mode when 'vector' then -fu.vector_rank when 'lexical' then fu.bm25 else fu.rrf end desc, fu.id) as in_document
      from fused fu join kb_chunks c on c.id = fu.id
    ) fu
    where fu.in_document <= c_per_document
  ),
  -- The best k by the mode's order first (the vector list is already in distance order), then the
  -- embedding of those k only, for their cosine: not of every fused candidate.
  top as (
    select fu.id, fu.vector_rank, fu.lexical_rank, fu.bm25, fu.rrf from diverse fu
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
      select sum(t.idf) filter (where c.fts @@ quote_literal(t.lexeme)::tsquery
          or (c_title_coverage and t.lexeme = any (d.title_terms))) / nullif(sum(t.idf), 0)
      from unnest(v_lexemes, v_idf) t(lexeme, idf)) end,
    r.vector_rank, r.lexical_rank, r.score::double precision
  from scored r
  join kb_chunks c on c.id = r.id
  join kb_documents d on d.id = c.document_id
  order by r.score desc, c.id;
end;
$$;

comment on function kb_search_chunks(extensions.vector, text, integer, text, jsonb, integer) is
  'The search behind search_chunks: vector and full-text candidates (BM25 with the page title and section path weighted above body text, at most 4 chunks per document) fused by reciprocal rank, with the evidence signals the gate reads.';
