/**
 * `npm run ingest -- <files|dirs|urls…> [options]`: index Markdown, HTML, PDF and text files, web pages and
 * sitemaps into the knowledge base (Supabase with the service-role key, else KB_DATA_DIR), embedding with
 * KB_EMBED_MODEL (from KB_MODEL_DIR when set) in a worker pool. Each input is a source synced on its own
 * and recorded in kb_sync_runs (server/ingest/sync.ts); crawled pages are re-read with conditional requests.
 * Exit code 1 when a source failed, the model could not be loaded, or no inputs were given.
 */
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { readConfig } from '../server/config/index.ts';
import { createEmbedder, EmbedderLoadError } from '../server/ingest/embedder.ts';
import { SUPPORTED_EXTENSIONS } from '../server/ingest/files.ts';
import { openCliStore } from '../server/ingest/open-store.ts';
import type { IngestProgress, IngestSummary } from '../server/ingest/pipeline.ts';
import { sync, totalOf, type SourceReport } from '../server/ingest/sync.ts';
import { createWorkerPool, inProcessPreparer, type Preparer } from '../server/ingest/pool.ts';
import { nodeWebhooks } from '../server/runtime/node/webhooks.ts';
import type { Webhooks } from '../server/webhooks/dispatcher.ts';

const USAGE = `Usage: npm run ingest -- <files|dirs|urls…> [options]

Indexes ${Object.keys(SUPPORTED_EXTENSIONS).join(', ')} files (folders are walked recursively), web pages
(same-origin links followed) and sitemaps (https://site/sitemap.xml) into the knowledge base.
A crawl reads public addresses only, at most 5 redirects, 10 MiB per response, 200 MiB in all.
Unchanged documents are skipped; changed ones are replaced atomically. A page crawled before is asked
for with If-None-Match / If-Modified-Since: a 304 downloads nothing. Each input is a source: its run
(added, updated, unchanged, removed, failed) is recorded for the console's Documents view.

  --base-url <url>     citation link for files without a \`url\` in their front matter:
                       <url>/<path relative to the given folder, without extension>
  --dry-run            report what would be added, updated, pruned; write nothing
  --prune              delete documents that disappeared from the given folders / crawled sites
  --max-pages <n>      crawl at most n pages (default 500)
  --concurrency <n>    requests in flight while crawling (default 4)
  --allow-private      crawl loopback and private addresses too, for the hosts of the URLs given here
                       only (refused by default; a redirect to another internal host, link-local and
                       metadata addresses stay refused; only on a trusted network: what is crawled is
                       served as public answers)
  --workers <n>        embedding worker threads (default: number of cores; 0 = main thread)
  --words-only         store chunks without embeddings, for keyword search only (no model is loaded:
                       for a machine that cannot load it); a later run without this flag embeds them
  --json               print the summary as JSON on stdout (progress goes to stderr)

Environment: KB_EMBED_MODEL, KB_MODEL_DIR, KB_DATA_DIR; SUPABASE_URL + SUPABASE_SERVICE_ROLE_KEY to
write to Supabase instead (see docs/ingestion.md).`;

let args;
try {
  args = parseArgs({
    allowPositionals: true,
    options: {
      'base-url': { type: 'string' },
      json: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      prune: { type: 'boolean' },
      'max-pages': { type: 'string' },
      concurrency: { type: 'string' },
      'allow-private': { type: 'boolean' },
      workers: { type: 'string' },
      'words-only': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
} catch (error) {
  console.error(`${error instanceof Error ? error.message : error}\n\n${USAGE}`);
  process.exit(1);
}
if (args.values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (args.positionals.length === 0) {
  console.error(USAGE);
  process.exit(1);
}

const json = args.values.json === true;
const dryRun = args.values['dry-run'] === true;
const wordsOnly = args.values['words-only'] === true;
const config = readConfig(process.env);
const count = (name: 'max-pages' | 'concurrency' | 'workers', min: number): number | undefined => {
  const raw = args.values[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    console.error(`--${name} must be a whole number ≥ ${min}, got "${raw}"`);
    process.exit(1);
  }
  return value;
};
const maxPages = count('max-pages', 1);
const concurrency = count('concurrency', 1);
const workers = count('workers', 0);

const out = json ? process.stderr : process.stdout;
let exitCode = 0;
let cli: Awaited<ReturnType<typeof openCliStore>> | null = null;
let preparer: Preparer | null = null;
let webhooks: Webhooks | null = null;
/** How long the CLI waits, before it exits, for `sync.finished` deliveries still retrying. */
const WEBHOOK_EXIT_WAIT_MS = 15_000;
const progress = createProgress(out);
try {
  cli = await openCliStore(process.env, config.dataDir);
  // `sync.finished` per source to the webhook an admin set (read with this store's own credentials), else
  // KB_WEBHOOK_URL; delivered before the process exits.
  webhooks = nodeWebhooks(cli.store, config.webhook);
  const embedderOptions = { model: config.embedModel, modelDir: config.modelDir };
  let pool: Promise<Preparer> | null = null;
  let loadSeconds = 0;
  // The pool (and so the model) starts only when a document needs embedding.
  const lazyPool: Preparer = {
    parallelism: Math.max(1, workers ?? 2),
    prepare: (task) => {
      if (!pool) {
        progress.update({ type: 'loading-model' });
        const loading = performance.now();
        pool = (
          workers === 0
            ? createEmbedder(embedderOptions).then((e) => inProcessPreparer(async () => e))
            : createWorkerPool({ ...embedderOptions, ...(workers ? { size: workers } : {}) })
        ).finally(() => (loadSeconds = (performance.now() - loading) / 1000));
      }
      return pool.then((p) => ((preparer = p), p.prepare(task)));
    },
    close: async () => {},
  };
  const reports = await sync({
    store: cli.store,
    model: config.embedModel,
    preparer: lazyPool,
    webhooks,
    sources: args.positionals,
    trigger: 'cli',
    onSource: progress.nextSource,
    baseUrl: args.values['base-url'] ?? null,
    onProgress: progress.update,
    dryRun,
    wordsOnly,
    prune: args.values.prune === true,
    crawl: {
      ...(maxPages ? { maxPages } : {}),
      ...(concurrency ? { concurrency } : {}),
      allowPrivate: args.values['allow-private'] === true,
    },
  });
  progress.stop();
  const summary = totalOf(reports, dryRun);
  report({ ...summary, model_load_seconds: loadSeconds }, reports);
  if (summary.failed.length > 0) exitCode = 1;
} catch (error) {
  progress.stop();
  console.error(error instanceof Error ? error.message : String(error));
  // Keyword search needs no model: say so to an owner whose machine cannot load it.
  if (error instanceof EmbedderLoadError) {
    console.error('Or store the documents for keyword search only, without the model: add --words-only');
  }
  exitCode = 1;
} finally {
  await webhooks?.settle(WEBHOOK_EXIT_WAIT_MS);
  await (preparer as Preparer | null)?.close();
  await cli?.close();
}
process.exit(exitCode);

function report(summary: IngestSummary & { model_load_seconds: number }, reports: SourceReport[]): void {
  const documents = summary.added + summary.updated + summary.unchanged + summary.failed.length;
  for (const failure of summary.failed) console.error(`✗ ${failure.source}: ${failure.error}`);
  if (summary.skipped.length > 0) console.error(`Skipped ${summary.skipped.length}: ${summary.skipped.join(', ')}`);
  const would = dryRun ? 'Would ingest' : 'Ingested';
  // Throughput without the model load (workers start only when something needs embedding).
  const working = summary.seconds - summary.model_load_seconds;
  const rate =
    summary.chunks > 0 && working > 0
      ? ` (${Math.round(summary.chunks / working)} chunks/s ${wordsOnly ? 'without a model' : `after a ${summary.model_load_seconds.toFixed(1)} s model load`})`
      : '';
  let line =
    `${would} ${documents} document${documents === 1 ? '' : 's'} (${summary.added} added, ${summary.updated} updated, ` +
    `${summary.unchanged} unchanged, ${summary.failed.length} failed), ${summary.chunks} chunk${summary.chunks === 1 ? '' : 's'} in ` +
    `${summary.seconds.toFixed(1)} s${rate}`;
  if (summary.pruned.length > 0) line += `; ${dryRun ? 'would prune' : 'pruned'} ${summary.pruned.length}`;
  const perSource = reports.map(
    ({ source, counts: c, summary: s }) =>
      `${source}: ${c.added} added, ${c.updated} updated, ${c.unchanged} unchanged, ${s.pruned.length} ${dryRun ? 'would be ' : ''}removed, ` +
      `${c.failed} failed${c.bytes > 0 ? `, ${formatBytes(c.bytes)} downloaded` : ''}`,
  );
  const sources = reports.map(({ source, counts }) => ({ source, ...counts }));
  if (json) {
    for (const l of perSource) console.error(l);
    console.error(line);
    console.log(JSON.stringify({ ...summary, sources }, null, 2));
  } else {
    for (const l of perSource) console.log(l);
    console.log(line);
  }
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/** A progress bar on a terminal, one plain line per document otherwise (CI logs, pipes). */
function createProgress(stream: NodeJS.WriteStream): {
  update: (event: IngestProgress) => void;
  stop: () => void;
  nextSource: () => void;
} {
  // Documents are numbered across sources: [n/total] counts every document this command has seen.
  let before = 0;
  let last = 0;
  const nextSource = () => {
    before += last;
    last = 0;
  };
  const numbered = (event: IngestProgress): IngestProgress => {
    if (event.type === 'start') return { ...event, total: event.total + before };
    if (event.type !== 'document') return event;
    last = event.done;
    return { ...event, done: event.done + before, total: event.total + before };
  };
  const inner = createBarOrLines(stream);
  return { update: (event) => inner.update(numbered(event)), stop: inner.stop, nextSource };
}

function createBarOrLines(stream: NodeJS.WriteStream): { update: (event: IngestProgress) => void; stop: () => void } {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      { stream, format: '{bar} {value}/{total} {status}', hideCursor: true, clearOnComplete: true },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(event) {
        if (event.type === 'start') {
          // One bar for the whole command: the next source's start only widens it.
          if (started) bar.setTotal(event.total);
          else bar.start(event.total, 0, { status: '' });
          started = true;
        } else if (!started) return;
        else if (event.type === 'loading-model') bar.update({ status: `loading ${config.embedModel} …` });
        else if (event.type === 'indexing') bar.update({ status: 'rebuilding the vector index …' });
        else if (event.type === 'document') {
          bar.setTotal(event.total);
          bar.update(event.done, { status: `${event.outcome} ${event.source}` });
        }
      },
      stop: () => {
        if (started) bar.stop();
        started = false;
      },
    };
  }
  return {
    update(event) {
      if (event.type === 'loading-model') stream.write(`Loading embedding model ${config.embedModel} …\n`);
      if (event.type === 'indexing') stream.write('Rebuilding the vector index …\n');
      if (event.type === 'pruned') stream.write(`${event.dryRun ? 'would prune' : 'pruned'} ${event.source}\n`);
      if (event.type !== 'document') return;
      const detail = event.error ? `: ${event.error}` : event.chunks > 0 ? ` (${event.chunks} chunks)` : '';
      stream.write(`[${event.done}/${event.total}] ${event.outcome} ${event.source}${detail}\n`);
    },
    stop: () => {},
  };
}
