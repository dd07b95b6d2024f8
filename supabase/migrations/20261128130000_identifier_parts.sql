-- Identifiers found by their words too. PostgreSQL's default parser reads a dotted or slashed identifier as
-- one token (`select alias, token, lexemes from ts_debug('english', 'server.port build.outDir')`: two
-- `host` tokens, lexemes `server.port` and `build.outdir`; `docs/guide.md` is one `file` token), so a
-- heading `server.port` gave full-text search neither `server` nor `port`, and "how do I change the port of
-- the dev server" could not meet it. Hyphenated words already give the whole and its parts (`dev-server`:
-- `dev-serv`, `dev`, `server`), and underscores already split (`site_url`: `site`, `url`).
--
-- kb_identifier_parts returns the words inside the parser's host tokens, and kb_chunk_fts
-- adds them to a chunk's vector beside the whole token: `server.port` now gives `server.port`, `server` and
-- `port`, so a question naming the identifier whole still meets it, and one naming its words meets it too.
-- Section path weight B, content weight A, as before. Left as they were: versions (`5.0.1`), e-mail
-- addresses, URLs (the parser follows a `url` token with its host and path as tokens of their own: a link's
-- `railway.com` is not split) and path tokens (`file`: `/deployments/serverless`, `docs/guide.md`), which in
-- the corpora are mostly link targets: splitting them too (measured first) gave chunks their links' words,
-- and fact in answer fell by one question on each of the three sites.

-- 3722 is the built-in default parser (`select oid from pg_ts_parser where prsname = 'default'`), the one the
-- 'english' configuration uses; ts_parse by oid is immutable (by name it is only stable), so the function
-- can feed a stored generated column. Token types (`select * from ts_token_type(3722)`): 5 URL, 6 host.
create or replace function kb_identifier_parts(p_text text)
returns text
language sql immutable parallel safe
set search_path = public, extensions, pg_temp
as $$
  select coalesce(string_agg(regexp_replace(t.token, '[^[:alnum:]]+', ' ', 'g'), ' ' order by t.n), '')
  from (
    select p.tokid, p.token, p.n, lag(p.tokid) over (order by p.n) as previous
    from ts_parse(3722::oid, coalesce(p_text, '')) with ordinality p(tokid, token, n)
  ) t
  where t.tokid = 6 and t.previous is distinct from 5;
$$;

create or replace function kb_chunk_fts(p_section text, p_content text)
returns tsvector
language sql immutable parallel safe
set search_path = public, extensions, pg_temp
as $$
  select setweight(
      to_tsvector('english'::regconfig, coalesce(p_section, ''))
      || to_tsvector('english'::regconfig, kb_identifier_parts(p_section)), 'B')
    || setweight(
      to_tsvector('english'::regconfig, coalesce(p_content, ''))
      || to_tsvector('english'::regconfig, kb_identifier_parts(p_content)), 'A');
$$;

comment on function kb_identifier_parts(text) is
  'The words inside the dotted identifiers of a text (the default parser''s host tokens outside URLs: `server.port` gives "server port"), for kb_chunk_fts. Added by migration 20261128130000.';
comment on function kb_chunk_fts(text, text) is
  'A chunk''s full-text vector (the stored column kb_chunks.fts): its section path (weight B) and content (weight A), each with the words of its dotted identifiers beside the whole identifier (kb_identifier_parts). Added by migration 20261128130000.';

-- PostgreSQL 15 cannot change a generated column's expression: the columns are dropped (with the GIN index
-- on fts) and added again, which computes them for every chunk; the index is rebuilt with the pending-list
-- limit of 20261123000000, and BM25's statistics (kb_lexemes, kb_corpus_stats) are recounted from the new
-- vectors. fts_length stays the number of distinct lexemes of fts.
alter table kb_chunks drop column fts, drop column fts_length;
alter table kb_chunks
  add column fts tsvector generated always as (kb_chunk_fts(meta ->> 'section', content)) stored,
  add column fts_length integer generated always as (length(kb_chunk_fts(meta ->> 'section', content))) stored;
create index kb_chunks_fts on kb_chunks using gin (fts) with (gin_pending_list_limit = 256);
select kb_recount_statistics();

revoke execute on function kb_identifier_parts(text) from public, anon, authenticated;
revoke execute on function kb_chunk_fts(text, text) from public, anon, authenticated;
grant execute on function kb_identifier_parts(text) to service_role;
grant execute on function kb_chunk_fts(text, text) to service_role;
