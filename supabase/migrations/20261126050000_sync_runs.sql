-- Keeping the knowledge base fresh: a re-crawl asks each page "changed since?" (If-None-Match /
-- If-Modified-Since) and a 304 costs no download, parse or embedding; each run of `npm run ingest` (or the
-- Node server's schedule, or the console's "Sync now") is recorded per source, so the console can show when
-- each source was last synced, what changed and what failed.

-- ── The HTTP validators of the page a document was crawled from ─────────────────────────────────────────
-- {url, etag, last_modified, checksum, chunking, model, links}: `url` is the URL requested (the document's
-- source is its canonical URL, which may differ); `checksum` is the document's checksum when the validators
-- were stored — the validators are trusted only while it still matches (a document re-ingested from other
-- bytes, e.g. by a console upload, is fetched again); `chunking` and `model` say which chunker and embedding
-- model made the stored version, so a new version of either re-reads the page; `links` are the page's
-- same-origin links, followed on a 304 when the page was reached by following links. Written by the
-- ingester after the document itself, so a failed write never leaves validators newer than the content.
alter table kb_documents add column http_cache jsonb
  check (http_cache is null or (jsonb_typeof(http_cache) = 'object' and pg_column_size(http_cache) <= 262144));

-- ── Sync runs ────────────────────────────────────────────────────────────────────────────────────────────
-- One row per source (a sitemap or page URL, a folder or file path) per run. finished_at is null while the
-- run goes on, or forever when it was killed. counts: {added, updated, unchanged, removed, failed, chunks,
-- bytes}; errors: [{source, error}] (at most 100, each error at most 500 characters).
create table kb_sync_runs (
  id uuid primary key default gen_random_uuid(),
  source text not null check (char_length(source) between 1 and 2000),
  -- cli: `npm run ingest` (also the scheduled GitHub workflow); schedule: the Node server's KB_SYNC_INTERVAL;
  -- console: "Sync now".
  trigger text not null check (trigger in ('cli', 'schedule', 'console')),
  started_at timestamptz not null default now(),
  finished_at timestamptz,
  counts jsonb not null default '{}'::jsonb
    check (jsonb_typeof(counts) = 'object' and pg_column_size(counts) <= 4096),
  errors jsonb not null default '[]'::jsonb
    check (jsonb_typeof(errors) = 'array' and jsonb_array_length(errors) <= 100 and pg_column_size(errors) <= 131072)
);
alter table kb_sync_runs enable row level security;
-- Supabase grants anon and authenticated every privilege on a new table by default; nobody but the service
-- role touches this one directly (the console reads it through admin_sync_status).
revoke all on kb_sync_runs from anon, authenticated;
create index kb_sync_runs_source_started on kb_sync_runs (source, started_at desc);

-- The validators of the documents under a prefix (an origin, `https://site/`) that are still worth trusting:
-- the document is ready and its checksum is the one the validators were stored with.
create function kb_http_cache(p_prefix text)
returns table (source text, http_cache jsonb)
language sql stable
set search_path = public, extensions, pg_temp
as $$
  select d.source, d.http_cache
  from kb_documents d
  where d.http_cache is not null
    and d.status = 'ready'
    and d.checksum = d.http_cache ->> 'checksum'
    and left(d.source, char_length(p_prefix)) = p_prefix;
$$;

-- Stores a document's validators (null clears them); false when there is no such document.
create function kb_set_http_cache(p_source text, p_http_cache jsonb)
returns boolean
language sql
set search_path = public, extensions, pg_temp
as $$
  update kb_documents set http_cache = p_http_cache where source = p_source returning true;
$$;

create function kb_sync_run_start(p_source text, p_trigger text)
returns uuid
language sql
set search_path = public, extensions, pg_temp
as $$
  insert into kb_sync_runs (source, trigger) values (p_source, p_trigger) returning id;
$$;

-- Errors beyond the first 100 are dropped and each is cut to 500 characters here, so a run with many failing
-- pages still records its counts.
create function kb_sync_run_finish(p_id uuid, p_counts jsonb, p_errors jsonb)
returns boolean
language sql
set search_path = public, extensions, pg_temp
as $$
  update kb_sync_runs
  set finished_at = now(),
      counts = p_counts,
      errors = coalesce((
        select jsonb_agg(jsonb_build_object('source', left(e ->> 'source', 2000), 'error', left(e ->> 'error', 500)) order by n)
        from jsonb_array_elements(coalesce(p_errors, '[]'::jsonb)) with ordinality as x (e, n)
        where n <= 100
      ), '[]'::jsonb)
  where id = p_id
  returning true;
$$;

-- The console's Documents view: per source, its latest run, and when it last finished without a failed page.
create function admin_sync_status()
returns table (
  source text, trigger text, started_at timestamptz, finished_at timestamptz, counts jsonb, errors jsonb,
  last_success_at timestamptz
)
language plpgsql stable security definer
set search_path = public, extensions, pg_temp
as $$
begin
  perform kb_assert_admin();
  return query
    select latest.source, latest.trigger, latest.started_at, latest.finished_at, latest.counts, latest.errors,
      (select max(ok.finished_at) from kb_sync_runs ok
       where ok.source = latest.source and ok.finished_at is not null and jsonb_array_length(ok.errors) = 0)
    from (
      select distinct on (r.source) r.*
      from kb_sync_runs r
      order by r.source, r.started_at desc
    ) latest
    order by latest.started_at desc
    limit 200;
end;
$$;

revoke all on function kb_http_cache(text) from public, anon, authenticated;
revoke all on function kb_set_http_cache(text, jsonb) from public, anon, authenticated;
revoke all on function kb_sync_run_start(text, text) from public, anon, authenticated;
revoke all on function kb_sync_run_finish(uuid, jsonb, jsonb) from public, anon, authenticated;
revoke all on function admin_sync_status() from public, anon, authenticated;
grant execute on function kb_http_cache(text) to service_role;
grant execute on function kb_set_http_cache(text, jsonb) to service_role;
grant execute on function kb_sync_run_start(text, text) to service_role;
grant execute on function kb_sync_run_finish(uuid, jsonb, jsonb) to service_role;
grant execute on function admin_sync_status() to authenticated, service_role;
