-- Follow-up questions answered in the context of the turn before them ("What is the evidence threshold?"
-- then "How do I change it?"). Two additions, both self-contained:
--
-- 1. get_recent_chat_messages: the last few messages of one of the caller's sessions, newest first. Security
--    invoker, so row-level security decides: another visitor's session has no rows, exactly like a new one.
--    Bounded in SQL (at most 20 rows, through chat_messages_session_created) so a session with hundreds of
--    turns costs the same as a short one.
--
-- 2. search_chunks (the exposed entry of 20261125000000) gains an optional `context` key in `filters`:
--      {"context": {"terms": "evidence threshold", "documents": ["<uuid>", …], "sections": ["Evidence threshold", …]}}
--    Without it the call is exactly the earlier one: the bounds, then kb_search_chunks. With it:
--    - the candidate pool is searched with the question followed by the borrowed terms, so chunks about the
--      earlier topic are candidates in full text too (the widget embeds the same text for the vector list);
--    - each candidate's coverage is recomputed with the question's own lexemes at full weight and each
--      borrowed one at half its IDF (c_context_weight), all of them together at most as much as the
--      question's own: the question asked now counts at least as much, however long the earlier one was;
--    - a prior toward what the earlier answer cited: a candidate from a cited document gains 0.03 in cosine
--      and coverage, one from a cited section of it 0.06. Small against the gate's thresholds (0.35 cosine,
--      0.39 hybrid): it orders close candidates, it does not let an unrelated one pass.
--    Only the result columns are changed (cosine, coverage) and only after kb_search_chunks returns, so the
--    addition stays valid whatever that body does with ranking.

create or replace function get_recent_chat_messages(p_session_id uuid, p_limit integer default 6)
returns setof chat_messages
language sql stable security invoker
set search_path = public, extensions, pg_temp
as $$
  select * from chat_messages where session_id = p_session_id
  order by created_at desc, case role when 'user' then 1 else 0 end
  limit least(greatest(coalesce(p_limit, 6), 1), 20);
$$;
revoke all on function get_recent_chat_messages(uuid, integer) from public, anon, authenticated;
grant execute on function get_recent_chat_messages(uuid, integer) to authenticated, service_role;

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

  -- ── Conversation context (20261126070000) ──
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
    select i.lexeme, i.idf * case when i.own or t.own = 0 then 1
      else least(c_context_weight, t.own / nullif(t.borrowed, 0)) end as idf
    from idf i cross join totals t
  )
  select p.chunk_id, p.content, p.meta, p.document_id, p.document_title, p.document_url, p.document_meta,
    case when p.cosine is not null then p.cosine + pr.prior end,
    p.bm25,
    case when p.coverage is not null then least(1, coalesce((
      select sum(w.idf) filter (where c.fts @@ quote_literal(w.lexeme)::tsquery) / nullif(sum(w.idf), 0)
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
