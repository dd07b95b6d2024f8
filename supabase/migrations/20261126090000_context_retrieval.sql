-- Follow-ups, second pass: two changes to the context branch of the wrapper search_chunks (20261126070000).
-- Only that wrapper is redefined; kb_search_chunks, which it calls, is untouched. Without `filters.context`
-- the call is exactly the earlier one.
--
-- 1. In keyword mode (full text only), a borrowed term counts as present in every chunk of a page the earlier
--    answer cited. The earlier answer
--    established what that page is about; the chunk that answers the follow-up is often another section of
--    it, which does not repeat the topic's words ("Can I install it with Homebrew?" after an answer from the
--    CLI page: the Homebrew paragraph never says "CLI"). Counted only where present, a follow-up's coverage
--    on such a chunk was at most about half (the borrowed words weigh up to as much as the question's own),
--    under the keyword gate (0.65): in keyword mode 31 of the 54 Railway follow-ups were refused. Chunks of
--    other pages still count a borrowed term only where they hold it, so a page that shares only the
--    follow-up's own word ("change") does not pass on it. With an embedding, the contextual text's embedding
--    carries the topic instead, and counting the topic on the whole cited page there put the earlier page
--    ahead of the one that answers ("How do I change it?" after the evidence threshold).
--
-- 2. A follow-up none of whose own words the knowledge base has ever seen and that does not point back with
--    a pronoun ("And lunch?" after a question about refunds; `context.points_back` false or absent) is not
--    read in context: the earlier topic's words and the contextual embedding would find
--    the earlier page and answer the new question with it. It is searched as a new question in full text (the
--    embedding the browser sent is of the contextual text), which finds nothing for a word no chunk has, as
--    asking it alone would. Full text cannot tell "And lunch?" from "What about PDFs?" after a question
--    about file types (a word the docs lack, asked about their topic): both are read as new questions. One
--    that points back ("How big is it?") names the earlier topic itself and keeps its context.
--
-- 3. In keyword mode, a chunk that is not on a cited page and holds none of the borrowed terms has coverage 0:
--    with no embedding to carry the topic, such a chunk passed on the follow-up's own generic word alone
--    ("How do I change it?" after the evidence threshold quoted "Only the ingest command can change the
--    knowledge base", the one section that says "change").

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
  c_document_prior constant double precision := 0.03;
  c_section_prior constant double precision := 0.06;
  v_count integer := least(greatest(coalesce(match_count, 5), 1), 200);
  v_candidates integer := least(greatest(coalesce(candidate_count, 50), 1), 200);
  v_context jsonb;
  v_terms text;
  v_docs uuid[];
  v_sections text[];
  -- Full text only (keyword mode, or no embedding): no embedding of the contextual text carries the topic.
  v_lexical boolean := search_mode = 'lexical' or query_embedding is null;
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

  -- ── Conversation context (20261126070000, changed in 20261126090000) ──
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

  -- A follow-up none of whose own words the knowledge base knows is not about the earlier topic (2. above).
  if not coalesce(v_context -> 'points_back' = 'true'::jsonb, false) and exists (select 1 from unnest(tsvector_to_array(to_tsvector('english'::regconfig, coalesce(query_text, ''))))) and not exists (
    select 1 from unnest(tsvector_to_array(to_tsvector('english'::regconfig, coalesce(query_text, '')))) q
    join kb_lexemes l on l.lexeme = q where l.df > 0
  ) then
    return query select * from kb_search_chunks(null, query_text, v_count, 'lexical', filters - 'context', v_candidates);
    return;
  end if;

  return query
  with pool as (
    select * from kb_search_chunks(
      query_embedding,
      left(concat_ws(' ', query_text, v_terms), 2000),
      v_count, search_mode, filters - 'context', v_candidates)
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
    select a.lexeme, a.own, ln(1 + (s.chunks - coalesce(l.df, 0) + 0.5) / (coalesce(l.df, 0) + 0.5)) as idf
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
      -- Keyword mode, a chunk off the cited pages that holds none of the borrowed terms (3. above): about
      -- something else, whatever the follow-up's own generic word matched.
      when v_lexical and not (p.document_id = any (v_docs))
        and exists (select 1 from weighted w where not w.own)
        and not exists (select 1 from weighted w where not w.own and c.fts @@ quote_literal(w.lexeme)::tsquery) then 0
      else least(1, coalesce((
        select sum(w.idf) filter (where c.fts @@ quote_literal(w.lexeme)::tsquery
          -- A borrowed term is present in every chunk of a cited page (1. above).
          or (v_lexical and not w.own and p.document_id = any (v_docs))) / nullif(sum(w.idf), 0)
        from weighted w), 0) + pr.prior) end,
    p.vector_rank, p.lexical_rank, p.score
  from pool p
  join kb_chunks c on c.id = p.chunk_id
  cross join lateral (
    select case
      when p.document_id = any (v_docs) and p.meta ->> 'section' = any (v_sections) then c_section_prior
      when p.document_id = any (v_docs) then c_document_prior
      else 0
    end::double precision as prior
  ) pr
  order by p.score desc, p.chunk_id;
end;
$$;

comment on function search_chunks(extensions.vector, text, integer, text, jsonb, integer) is
  'The exposed search: bounds its arguments, then kb_search_chunks. With filters.context {terms, documents, sections, points_back} (a follow-up question): the candidates are searched with the question plus the borrowed terms; coverage counts each borrowed lexeme at half its IDF (all together at most the question''s own), in keyword mode present in every chunk of a cited document; cited documents and sections gain a small prior. A follow-up that does not point back (context.points_back) and none of whose own lexemes the knowledge base has is searched as a new question in full text. Migrations 20261126070000 and 20261126090000.';
