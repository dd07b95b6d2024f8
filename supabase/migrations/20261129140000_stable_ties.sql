-- Search order that does not depend on the ingestion. Both search functions broke ties in score by the chunk's
-- id, a random uuid drawn at each ingestion, and the vector candidates (order by distance, limit) had no
-- tie-breaker at all. Ties are common: reciprocal-rank scores tie whenever two chunks' ranks are mirrored
-- (vector 3 + full text 5 against vector 5 + full text 3), and chunks of the same words (repeated snippets,
-- notes, boilerplate) tie in distance and in BM25. So two ingestions of one corpus could answer one question
-- differently (the eval builds a fresh knowledge base each run). Two ingestions of Railway's docs-QA corpus
-- ordered the chat's 30 candidates differently for 98 of its 119 questions in hybrid mode (13 in the first 5),
-- 26 in keyword mode; Vite 23 and MkDocs 23 of 30 in hybrid (`npx tsx scripts/eval/order-check.ts <qa.json>`,
-- test-double embedder). With the order below: none, in any mode.
--
-- Now a tie goes to the page whose source (kb_documents.source, its path or URL, unique) sorts first in byte
-- order (collate "C", the same on every database), then to the earlier chunk of that page (kb_chunks.position),
-- everywhere an order is cut or returned: the vector candidates, the full-text candidates, the fused top k and
-- the rows returned, and search_chunks' rows with conversation context. Nothing else changes, except this: the
-- vector candidates are fetched by distance alone (what the HNSW index orders by) with ten more than asked,
-- then ordered by distance, source and position and cut, so a tie at the cut is decided by the page and not
-- by the scan; with hnsw.iterative_scan = relaxed_order this also puts the candidates the index returned
-- slightly out of order back in distance order (the order the fusion's comment assumed).
--
-- The source and position come with the rows each step already reads: the vector scan joins the chunk and its
-- document; the full-text candidates' document lookup (one primary-key lookup per candidate) returns the
-- source instead of a boolean; both lists carry them into the fusion in arrays beside the ids.
-- Left as it was: the full-text probe takes at most 1,000 chunks in the index's order (that of ingestion), not
-- by score, before scoring them; only a question whose rarest word more than 1,000 chunks hold reaches that cap.
--
-- kb_search_chunks is the function of 20261128090000 and search_chunks that of 20261128070000 with these
-- orders changed; signatures and everything else unchanged.

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
  -- Chunks fetched by distance beyond the candidates, so that ties at the cut are ordered like all others.
  c_tie_slack constant integer := 10;
  v_vector uuid[] := '{}';
  v_vector_src text[] := '{}';
  v_vector_pos integer[] := '{}';
  v_query tsquery;
  v_probe tsquery;
  v_lexemes text[] := '{}';
  v_idf double precision[] := '{}';
  v_avgdl double precision;
  v_lex_ids uuid[] := '{}';
  v_lex_bm25 double precision[] := '{}';
  v_lex_src text[] := '{}';
  v_lex_pos integer[] := '{}';
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
    -- The nearest chunks by distance alone (the order the HNSW index gives), a few more than the candidates so
    -- that a tie at the cut is decided here and not by the scan; then by distance, ties by page and position.
    if v_docs is null then
      select coalesce(array_agg(x.id order by x.distance, x.src collate "C", x.pos), '{}'),
        coalesce(array_agg(x.src order by x.distance, x.src collate "C", x.pos), '{}'),
        coalesce(array_agg(x.pos order by x.distance, x.src collate "C", x.pos), '{}')
        into v_vector, v_vector_src, v_vector_pos
      from (
        select n.* from (
          select e.chunk_id as id, e.embedding <=> query_embedding as distance, d.source as src, c.position as pos
          from kb_embeddings e
          join kb_chunks c on c.id = e.chunk_id
          join kb_documents d on d.id = c.document_id
          where d.status = 'ready' and d.enabled
          order by e.embedding <=> query_embedding
          limit v_candidates + c_tie_slack
        ) n
        -- "+ 0": a full sort. On the index's order PostgreSQL 17 plans an incremental sort, which trusts that
        -- order; hnsw.iterative_scan = relaxed_order can return rows slightly out of it (pgvector's README).
        order by n.distance + 0, n.src collate "C", n.pos
        limit v_candidates
      ) x;
    else
      select coalesce(array_agg(x.id order by x.distance, x.src collate "C", x.pos), '{}'),
        coalesce(array_agg(x.src order by x.distance, x.src collate "C", x.pos), '{}'),
        coalesce(array_agg(x.pos order by x.distance, x.src collate "C", x.pos), '{}')
        into v_vector, v_vector_src, v_vector_pos
      from (
        select n.id, n.distance, d.source as src, n.pos from (
          select e.chunk_id as id, e.embedding <=> query_embedding as distance, c.document_id, c.position as pos
          from kb_embeddings e
          join kb_chunks c on c.id = e.chunk_id
          where c.document_id = any (v_docs)
          order by e.embedding <=> query_embedding
          limit v_candidates + c_tie_slack
        ) n
        join kb_documents d on d.id = n.document_id
        order by n.distance + 0, d.source collate "C", n.pos
        limit v_candidates
      ) x;
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
    select coalesce(array_agg(x.id order by x.bm25 desc, x.src collate "C", x.pos), '{}'),
      coalesce(array_agg(x.bm25 order by x.bm25 desc, x.src collate "C", x.pos), '{}'),
      coalesce(array_agg(x.src order by x.bm25 desc, x.src collate "C", x.pos), '{}'),
      coalesce(array_agg(x.pos order by x.bm25 desc, x.src collate "C", x.pos), '{}')
      into v_lex_ids, v_lex_bm25, v_lex_src, v_lex_pos
    from (
      select c.id, s.bm25, c.src, c.pos
      from (
        select c.id, c.document_id, c.position as pos, c.fts, c.fts_length,
          -- A scalar subquery per candidate (a primary-key lookup): as a join, the planner hashed every
          -- document (a sequential scan of kb_documents, 5–7 ms at 10k documents) to filter ≤ 1,000 chunks.
          -- The page's source when it is searchable, else null.
          (select d.source from kb_documents d where d.id = c.document_id and d.status = 'ready' and d.enabled) as src
        from kb_chunks c
        where c.fts @@ v_probe and (v_query::text not like '%!%' or c.fts @@ v_query)
        limit c_lexical_cap
      ) c
      cross join lateral (
        select sum(v_idf[array_position(v_lexemes, u.lexeme)] * (tf.n * 2.2) / (tf.n + 1.2 * (0.25 + 0.75 * c.fts_length / v_avgdl))) as bm25
        from unnest(ts_filter(setweight(setweight(c.fts, 'D'), 'A', v_lexemes), '{a}')) u,
          lateral (select coalesce(array_length(u.positions, 1), 1)::double precision as n) tf
      ) s
      where c.src is not null
        and (v_docs is null or c.document_id = any (v_docs))
      order by s.bm25 desc, c.src collate "C", c.pos
      limit v_candidates
    ) x;
  end if;

  return query
  with vec as (
    select v.id, v.ord::integer as rank, v.src, v.pos
    from unnest(v_vector, v_vector_src, v_vector_pos) with ordinality v(id, src, pos, ord)
  ),
  lex as (
    select l.id, l.bm25, l.ord::integer as rank, l.src, l.pos
    from unnest(v_lex_ids, v_lex_bm25, v_lex_src, v_lex_pos) with ordinality l(id, bm25, src, pos, ord)
  ),
  fused as (
    select coalesce(v.id, l.id) as id, v.rank as vector_rank, l.rank as lexical_rank, l.bm25,
      coalesce(1.0 / (60 + v.rank), 0) + coalesce(1.0 / (60 + l.rank), 0) as rrf,
      coalesce(v.src, l.src) as src, coalesce(v.pos, l.pos) as pos
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
      end desc, fu.src collate "C", fu.pos
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
  order by r.score desc, d.source collate "C", c.position;
end;
$$;

comment on function kb_search_chunks(extensions.vector, text, integer, text, jsonb, integer) is
  'The search behind search_chunks: vector and BM25 full-text candidates fused by reciprocal rank, with the evidence signals (cosine; coverage of the question by the chunk, its section path and its page title, in every mode when there is text) that the gate reads. A question lexeme no chunk holds is weighed in coverage as one a single chunk holds (migration 20261128030000); coverage in vector mode since 20261128090000. Ties in every list and in the result go to the page whose source sorts first (byte order), then to the earlier chunk of the page (20261129140000).';

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
set search_path = public, extensions, pg_temp
as $$
#variable_conflict use_column
declare
  c_context_weight constant double precision := 0.5;
  -- Evidence a page of the last answer gains over a page off the thread (the header).
  c_thread_margin constant double precision := 0.01;
  -- Keyword mode keeps the margin of 20261127030000: measured there, a smaller one lost Railway's follow-ups.
  c_lexical_margin constant double precision := 0.1;
  c_section_prior constant double precision := 0.03;
  v_count integer := least(greatest(coalesce(match_count, 5), 1), 200);
  v_candidates integer := least(greatest(coalesce(candidate_count, 50), 1), 200);
  v_context jsonb;
  v_terms text;
  v_docs uuid[];
  v_sections text[];
  v_thread uuid[];
  v_scope uuid[];
  v_own_known boolean;
  v_points_back boolean;
  v_own_required boolean;
  -- Full text only (keyword mode, or no embedding): no embedding of the contextual text carries the topic.
  v_lexical boolean := search_mode = 'lexical' or query_embedding is null;
  v_margin double precision := case when search_mode = 'lexical' or query_embedding is null
    then c_lexical_margin else c_thread_margin end;
begin
  if char_length(coalesce(query_text, '')) > 2000
     or (filters is not null and (jsonb_typeof(filters) <> 'object' or pg_column_size(filters) > 16384))
     or (search_mode is not null and search_mode not in ('hybrid', 'vector', 'lexical')) then
    raise exception 'search_chunks: query_text at most 2000 characters, filters a JSON object of at most 16 KB, search_mode hybrid, vector or lexical'
      using errcode = 'invalid_parameter_value';
  end if;
  v_context := case when jsonb_typeof(filters -> 'context') = 'object' then filters -> 'context' end;
  if v_context is null then
    return query select * from kb_search_chunks(query_embedding, query_text, v_count, search_mode, filters, v_candidates);
    return;
  end if;

  -- ── Conversation context (20261126070000, changed in 20261126090000 and here) ──
  v_terms := nullif(btrim(left(coalesce(v_context ->> 'terms', ''), 300)), '');
  v_docs := array(
    select x::uuid from jsonb_array_elements_text(
      case when jsonb_typeof(v_context -> 'documents') = 'array' then v_context -> 'documents' else '[]'::jsonb end) x
    where x ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
    limit 10);
  v_sections := array(
    select left(x, 300) from jsonb_array_elements_text(
      case when jsonb_typeof(v_context -> 'sections') = 'array' then v_context -> 'sections' else '[]'::jsonb end) x
    limit 10);

  -- A follow-up none of whose own words the knowledge base knows is not about the earlier topic (20261127030000's header, 7.).
  if not coalesce(v_context -> 'points_back' = 'true'::jsonb, false) and exists (select 1 from unnest(tsvector_to_array(to_tsvector('english'::regconfig, coalesce(query_text, ''))))) and not exists (
    select 1 from unnest(tsvector_to_array(to_tsvector('english'::regconfig, coalesce(query_text, '')))) q
    join kb_lexemes l on l.lexeme = q where l.df > 0
  ) then
    return query select * from kb_search_chunks(null, query_text, v_count, 'lexical', filters - 'context', v_candidates);
    return;
  end if;

  -- The thread's documents: the last answer's first, then the earlier answers' (20261127030000's header, 1.).
  v_thread := array(
    select t.id from (
      select x.id, min(x.ord) as ord from (
        select d as id, o as ord from unnest(v_docs) with ordinality u(d, o)
        union all
        select x::uuid, 100 + o from jsonb_array_elements_text(
          case when jsonb_typeof(v_context -> 'thread') = 'array' then v_context -> 'thread' else '[]'::jsonb end)
          with ordinality j(x, o)
        where x ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
      ) x group by x.id
    ) t order by t.ord limit 10);
  -- A caller's own document filter still holds within the thread.
  v_scope := case when jsonb_typeof(filters -> 'document_ids') = 'array' then array(
      select t from unnest(v_thread) t
      where t::text in (select lower(x) from jsonb_array_elements_text(filters -> 'document_ids') x))
    else v_thread end;
  v_own_required := coalesce(v_context -> 'own_required' = 'true'::jsonb, false);
  v_points_back := coalesce(v_context -> 'points_back' = 'true'::jsonb, false);
  v_own_known := exists (
    select 1 from unnest(tsvector_to_array(to_tsvector('english'::regconfig, coalesce(query_text, '')))) q
    join kb_lexemes l on l.lexeme = q where l.df > 0);

  return query
  with found as (
    select s.*, 1 as pass from kb_search_chunks(
      query_embedding,
      left(concat_ws(' ', query_text, v_terms), 2000),
      v_count, search_mode, filters - 'context', v_candidates) s
    union all
    -- The extra search: the question's own words within the thread's pages (20261127030000's header, 1.).
    select s.*, 0 from kb_search_chunks(
      query_embedding,
      case when v_own_known then query_text else left(concat_ws(' ', query_text, v_terms), 2000) end,
      v_count, search_mode, (filters - 'context') || jsonb_build_object('document_ids', to_jsonb(v_scope)),
      v_candidates) s
    where cardinality(v_scope) > 0
  ),
  pool as (
    -- A chunk both searches found keeps the row of the search with the borrowed words (its ranks and score).
    select distinct on (f.chunk_id) f.chunk_id, f.content, f.meta, f.document_id, f.document_title, f.document_url,
      f.document_meta, f.cosine, f.bm25, f.coverage, f.vector_rank, f.lexical_rank, f.score
    from found f order by f.chunk_id, f.pass desc
  ),
  asked as (
    select a.lexeme, bool_or(a.own) as own from (
      select q as lexeme, true as own
      from unnest(tsvector_to_array(to_tsvector('english'::regconfig, coalesce(query_text, '')))) q
      union all
      select t, false from unnest(tsvector_to_array(to_tsvector('english'::regconfig, coalesce(v_terms, '')))) t
    ) a group by a.lexeme
  ),
  idf as (
    select a.lexeme, a.own, ln(1 + (s.chunks - greatest(coalesce(l.df, 0), 1) + 0.5) / (greatest(coalesce(l.df, 0), 1) + 0.5)) as idf
    from asked a cross join kb_corpus_stats s left join kb_lexemes l on l.lexeme = a.lexeme
    where s.id
  ),
  totals as (
    select coalesce(sum(i.idf) filter (where i.own), 0) as own, coalesce(sum(i.idf) filter (where not i.own), 0) as borrowed from idf i
  ),
  weighted as (
    -- A question without words of its own ("what about it?") is searched with the borrowed ones alone.
    select i.lexeme, i.own, i.idf * case when i.own or t.own = 0 then 1
      else least(c_context_weight, t.own / nullif(t.borrowed, 0)) end as idf
    from idf i cross join totals t
  )
  select p.chunk_id, p.content, p.meta, p.document_id, p.document_title, p.document_url, p.document_meta,
    case when p.cosine is not null then p.cosine + pr.prior end,
    p.bm25,
    case when p.coverage is null then null
      -- A chunk off the thread that holds none of the borrowed terms is about something else, whatever the
      -- follow-up's own generic word matched (20261127030000's header, 5.).
      when (v_lexical or v_points_back) and not pr.in_thread
        and exists (select 1 from weighted w where not w.own)
        and not exists (select 1 from weighted w where not w.own and c.fts @@ quote_literal(w.lexeme)::tsquery) then 0
      else least(1, coalesce((
        select sum(w.idf) filter (where c.fts @@ quote_literal(w.lexeme)::tsquery
          -- On a page of the thread the earlier topic is given (20261127030000's header, 2.); for a complete
          -- question (6. there) only in a chunk that holds one of its own words.
          or (not w.own and pr.in_thread and (not v_own_required or exists (
            select 1 from weighted o where o.own and c.fts @@ quote_literal(o.lexeme)::tsquery)))) / nullif(sum(w.idf), 0)
        from weighted w), 0) + pr.prior) end,
    p.vector_rank, p.lexical_rank, p.score
  from pool p
  join kb_chunks c on c.id = p.chunk_id
  join kb_documents d on d.id = p.document_id
  cross join lateral (
    select p.document_id = any (v_thread) as in_thread, (case
      when p.document_id = any (v_docs) and p.meta ->> 'section' = any (v_sections) then v_margin + c_section_prior
      when p.document_id = any (v_docs) then v_margin
      when p.document_id = any (v_thread) then v_margin / 2
      else 0
    end)::double precision as prior
  ) pr
  order by p.score desc, d.source collate "C", c.position;
end;
$$;

comment on function search_chunks(extensions.vector, text, integer, text, jsonb, integer) is
  'The exposed search: bounds its arguments, then kb_search_chunks. With filters.context {terms, documents, thread, sections, points_back, own_required} (a follow-up question) the thread is the scope: one search with the question plus the borrowed terms, and one with the question''s own words within the documents the conversation cited (documents: the last answer''s, then thread: earlier answers''); on those pages a borrowed lexeme counts as present (at half its IDF, all together at most the question''s own), off them only where it is (in keyword mode a chunk holding none has coverage 0); the last answer''s pages gain a margin (0.01; 0.1 in keyword mode) on cosine and coverage, earlier answers'' half of it, the cited section a little more; with own_required (a complete question retried in its thread) the topic counts only in chunks holding one of the question''s own lexemes. A follow-up that does not point back and none of whose own lexemes the knowledge base has is searched as a new question in full text. Migrations 20261126070000, 20261126090000, 20261127030000, 20261127110000, 20261128070000 and 20261129140000 (ties by page source, then chunk position).';
