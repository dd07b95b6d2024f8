-- Coverage in vector mode too: the question's lexemes are weighed and every returned chunk's coverage computed
-- whenever the search has text, whatever the mode, so the evidence gate (server/retrieval/gate.ts) can hold
-- a vector-mode answer to the same least coverage as a hybrid one. Before, vector rows carried no coverage
-- (null): a chunk sharing only the site's name with the question ("Who is the CEO of Railway?", cosine 0.59
-- with the test double on a page that says "Railway" throughout) passed the vector gate on its cosine alone.
--
-- Only what is returned changes in vector mode: the lexemes and their weights are looked up (one query on
-- kb_lexemes, as hybrid mode does), no full-text candidates are fetched, the order is still by cosine.
-- kb_search_chunks is the function of 20261128030000 with the lexeme step run when there is text and the
-- coverage column computed when there is text.
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
set search_path = public, extensions, pg_temp
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

  -- The question's lexemes and their weights whenever there is text: coverage is computed in every mode.
  if v_text is not null then
    -- The question as typed (websearch syntax); its AND becomes OR unless it uses negation ("-word"), which
    -- only makes sense as typed.
    select case when q::text like '%!%' then q else replace(q::text, ' & ', ' | ')::tsquery end
      into v_query
    from websearch_to_tsquery('english'::regconfig, v_text) q;
    select greatest(s.total_length::double precision / nullif(s.chunks, 0), 1),
      coalesce(array_agg(t.lexeme order by t.df, t.lexeme), '{}'),
      -- A lexeme no chunk holds is weighed as one that a single chunk holds (the header).
      coalesce(array_agg(ln(1 + (s.chunks - greatest(t.df, 1) + 0.5) / (greatest(t.df, 1) + 0.5))
        order by t.df, t.lexeme), '{}'),
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
    case when v_text is not null then (
      select sum(t.idf) filter (where c.fts @@ quote_literal(t.lexeme)::tsquery or t.lexeme = any (d.title_terms))
        / nullif(sum(t.idf), 0)
      from unnest(v_lexemes, v_idf) t(lexeme, idf)) end,
    r.vector_rank, r.lexical_rank, r.score::double precision
  from scored r
  join kb_chunks c on c.id = r.id
  join kb_documents d on d.id = c.document_id
  order by r.score desc, c.id;
end;
$$;

comment on function kb_search_chunks(extensions.vector, text, integer, text, jsonb, integer) is
  'The search behind search_chunks: vector and BM25 full-text candidates fused by reciprocal rank, with the evidence signals (cosine; coverage of the question by the chunk, its section path and its page title, in every mode when there is text) that the gate reads. A question lexeme no chunk holds is weighed in coverage as one a single chunk holds (migration 20261128030000); coverage in vector mode since 20261128090000.';
