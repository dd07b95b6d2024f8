-- A follow-up's next fact is usually the text right after the one the last answer quoted ("What port does the
-- dev server use?", then "Can I make it fail instead?": the section after the port's says how). search_chunks
-- gives the chunk right after a chunk the last answer cited (filters.context.chunks, its citations' chunk ids)
-- the prior of the cited section (the last answer's margin plus c_section_prior), as it gives the cited section
-- itself; chunks are stored in the page's order (kb_chunks.position), so it is what the visitor would read
-- next. Not the chunk before: that is mostly the lead-in of what was quoted (with the one before too, Railway's
-- "What if my usage is lower than that?" after the committed spend tiers' table quoted the page's
-- introduction, docs/conversation.md). The function below is the one of 20261128070000 with that condition
-- added; everything else is unchanged.

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
  v_cited uuid[];
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

  v_cited := array(
    select x::uuid from jsonb_array_elements_text(
      case when jsonb_typeof(v_context -> 'chunks') = 'array' then v_context -> 'chunks' else '[]'::jsonb end) x
    where x ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
    limit 20);

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
  cross join lateral (
    select p.document_id = any (v_thread) as in_thread, (case
      when p.document_id = any (v_docs) and (p.meta ->> 'section' = any (v_sections) or exists (
        -- The chunk right after one the last answer quoted: the next fact is usually what follows it.
        select 1 from kb_chunks k where k.id = any (v_cited) and k.document_id = c.document_id
          and c.position = k.position + 1)) then v_margin + c_section_prior
      when p.document_id = any (v_docs) then v_margin
      when p.document_id = any (v_thread) then v_margin / 2
      else 0
    end)::double precision as prior
  ) pr
  order by p.score desc, p.chunk_id;
end;
$$;

comment on function search_chunks(extensions.vector, text, integer, text, jsonb, integer) is
  'The exposed search: bounds its arguments, then kb_search_chunks. With filters.context {terms, documents, thread, sections, chunks, points_back, own_required} (a follow-up question) the thread is the scope: one search with the question plus the borrowed terms, and one with the question''s own words within the documents the conversation cited (documents: the last answer''s, then thread: earlier answers''); on those pages a borrowed lexeme counts as present (at half its IDF, all together at most the question''s own), off them only where it is (in keyword mode a chunk holding none has coverage 0); the last answer''s pages gain a margin (0.01; 0.1 in keyword mode) on cosine and coverage, earlier answers'' half of it, the cited sections and the chunk right after each cited chunk (chunks) a little more; with own_required (a complete question retried in its thread) the topic counts only in chunks holding one of the question''s own lexemes. A follow-up that does not point back and none of whose own lexemes the knowledge base has is searched as a new question in full text. Migrations 20261126070000, 20261126090000, 20261127030000, 20261127110000, 20261128070000 and 20261128100000.';
