/**
 * Ingestion: files, folders and URLs → documents → chunks → embeddings → `ingest_document` (one atomic call
 * per document).
 *
 * Re-running is cheap and safe. A document whose stored checksum matches the source's bytes, with every
 * chunk embedded by the configured model, is skipped before it is even parsed; the model is loaded only when
 * some document needs embedding. A document interrupted half-way has no checksum (the SQL function writes
 * it last), so the next run does it again.
 *
 * Documents are prepared (parsed, chunked, embedded) concurrently — in a worker pool when one is given —
 * and written one at a time in input order. A large run into the embedded database drops the HNSW index
 * and rebuilds it at the end, several times faster than inserting into it row by row.
 *
 * A crawled page is re-read conditionally: the validators (ETag, Last-Modified) of the response it was
 * stored from are kept with the document (`kb_set_http_cache`), and the next crawl sends them; a 304 is
 * `unchanged` without a download, a parse or a database write. The validators are stored only after the
 * document is, and are trusted only while the document's checksum, the chunker version and the model are
 * the ones they were stored with.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { HttpCache, IngestStore } from '../store/types.ts';
import { crawl, type CachedPage, type CrawlOptions, type CrawlResult } from './crawl.ts';
import type { DocumentDefaults, SourceType } from './document.ts';
import type { Embedder } from './embedder.ts';
import { resolveInputs } from './files.ts';
import { inProcessPreparer, type Preparer } from './pool.ts';
import { parseSource, type PreparedDocument, type PrepareTask } from './prepare.ts';

/**
 * Part of every document's checksum: bump it when parsing or chunking changes what gets stored, so the next
 * run re-chunks documents whose bytes did not change. 2: callouts become notes.
 */
export const CHUNKING_VERSION = 'chunks-2';

export type Outcome = 'added' | 'updated' | 'unchanged' | 'failed';

export type IngestProgress =
  | { type: 'start'; total: number }
  | { type: 'loading-model' }
  | { type: 'indexing' }
  | { type: 'document'; source: string; outcome: Outcome; chunks: number; error?: string; done: number; total: number }
  | { type: 'pruned'; source: string; dryRun: boolean };

export interface IngestOptions {
  store: IngestStore;
  /** The embedder, a promise of it, or a function creating it: a function is called only when needed. */
  embedder?: Embedder | Promise<Embedder> | (() => Promise<Embedder>);
  /** Prepares documents instead of `embedder` (e.g. createWorkerPool()). Not closed by ingest(). */
  preparer?: Preparer;
  /** Model id recorded with each embedding (KB_EMBED_MODEL). */
  model: string;
  /** Files, folders, page URLs and sitemap URLs. */
  inputs: string[];
  /** Builds citation links for files without a `url` in their front matter. */
  baseUrl?: string | null;
  onProgress?: (event: IngestProgress) => void;
  /** Source ids of files are relative to this folder. Default: process.cwd(). */
  cwd?: string;
  /** Report what would change; write nothing, load no model. */
  dryRun?: boolean;
  /** Delete documents that disappeared from the given folders or crawled sites. */
  prune?: boolean;
  crawl?: CrawlOptions;
  /** Drop and rebuild the HNSW index around a large run: 'auto' (default) decides by size. */
  deferIndex?: boolean | 'auto';
  /** Send the stored validators when re-crawling (default true); false downloads every page. */
  conditional?: boolean;
}

export interface IngestSummary {
  added: number;
  updated: number;
  unchanged: number;
  failed: { source: string; error: string }[];
  /** Files inside the given folders skipped for their extension; pages robots.txt disallows; sitemap entries on another origin. */
  skipped: string[];
  /** Sources deleted by --prune (or that would be, with --dry-run). */
  pruned: string[];
  /** Chunks written by this run (with --dry-run: chunks of the documents that would be written: 0). */
  chunks: number;
  /** Body bytes the crawl downloaded (0 for files). */
  bytes: number;
  seconds: number;
  dry_run: boolean;
}

interface Item {
  source: string;
  format: SourceType;
  bytes: Uint8Array;
  defaults: DocumentDefaults;
  origin: Record<string, unknown>;
  /** A crawled page's validators, stored once the document is (a 304 next time). */
  cache?: Pick<HttpCache, 'url' | 'etag' | 'last_modified' | 'links'>;
}

/** Below this many changed documents the index is kept (rebuilding costs more than it saves). */
const DEFER_INDEX_MIN_DOCUMENTS = 20;

/**
 * Ingests. Per-source problems (unreadable, unsupported, unreachable, a database error) are reported in
 * `failed` and the other sources continue; a model that cannot be loaded throws (EmbedderLoadError),
 * since every remaining document would fail the same way.
 *
 * @example
 * const summary = await ingest({ store, model, inputs: ['docs', 'https://example.com/sitemap.xml'], embedder: () => createEmbedder({ model, modelDir }) });
 */
export async function ingest(options: IngestOptions): Promise<IngestSummary> {
  const started = performance.now();
  const { store, model, onProgress, dryRun = false } = options;
  const cwd = options.cwd ?? process.cwd();
  const urls = options.inputs.filter((i) => /^https?:\/\//i.test(i));
  const paths = options.inputs.filter((i) => !/^https?:\/\//i.test(i));
  const preparer =
    options.preparer ??
    inProcessPreparer(lazyEmbedder(options.embedder ?? missingEmbedder, () => onProgress?.({ type: 'loading-model' })));

  const { files, invalid, skipped, roots } = await resolveInputs(paths, cwd);
  const summary: IngestSummary = {
    added: 0, updated: 0, unchanged: 0, failed: [], skipped, pruned: [], chunks: 0, bytes: 0, seconds: 0, dry_run: dryRun,
  };
  let total = files.length + invalid.length + urls.length;
  let done = 0;
  const report = (source: string, outcome: Outcome, chunks: number, error?: string): void => {
    if (outcome === 'failed') summary.failed.push({ source, error: error ?? 'failed' });
    else summary[outcome] += 1;
    summary.chunks += chunks;
    onProgress?.({ type: 'document', source, outcome, chunks, done: ++done, total: Math.max(total, done), ...(error ? { error } : {}) });
  };
  onProgress?.({ type: 'start', total });
  for (const failure of invalid) report(failure.source, 'failed', 0, failure.error);

  if (!dryRun) await store.restoreIndexes?.(); // repairs a bulk load that was killed half-way
  const existing = dryRun ? 0 : (await store.listDocuments()).length;
  let changed = 0;
  let deferred = false;
  let fatal: unknown = null;
  let writes: Promise<void> = Promise.resolve();
  const slots = new Semaphore(Math.max(1, preparer.parallelism + 1));

  /** Whether a source changed since it was stored: 'unchanged' or the outcome of writing it. */
  const check = async (item: Item): Promise<{ outcome: Outcome; checksum: string }> => {
    const checksum = createHash('sha256').update(CHUNKING_VERSION).update(item.bytes).digest('hex');
    const state = await store.documentState(item.source, model);
    if (state?.status === 'ready' && state.checksum === checksum && state.stale_embeddings === 0) {
      return { outcome: 'unchanged', checksum };
    }
    changed += 1;
    return { outcome: state ? 'updated' : 'added', checksum };
  };

  /**
   * After a page is stored (or found unchanged): its validators, for a conditional request next time. A
   * failure here costs only a download next time, so it is not the page's failure.
   */
  const remember = async (item: Item, checksum: string): Promise<void> => {
    if (dryRun || !item.cache || (item.cache.etag === null && item.cache.last_modified === null)) return;
    await store.setHttpCache(item.source, { ...item.cache, checksum, chunking: CHUNKING_VERSION, model }).catch(() => {});
  };

  /** Prepares a changed source now and writes it after the ones submitted before it. */
  const submit = async (item: Item, { outcome, checksum }: { outcome: Outcome; checksum: string }): Promise<void> => {
    if (fatal) return;
    if (outcome === 'unchanged') {
      writes = writes.then(async () => {
        await remember(item, checksum);
        report(item.source, 'unchanged', 0);
      });
      return;
    }
    if (dryRun) {
      const parsed = parseSource(item).then(
        () => report(item.source, outcome, 0),
        (error: unknown) => report(item.source, 'failed', 0, errorMessage(error)),
      );
      writes = writes.then(() => parsed);
      return;
    }
    await slots.acquire();
    const task: PrepareTask = { bytes: item.bytes, format: item.format, defaults: item.defaults, origin: item.origin };
    const prepared: Promise<PreparedDocument> = preparer.prepare(task);
    prepared.catch(() => {}).finally(() => slots.release());
    writes = writes.then(async () => {
      if (fatal) return;
      try {
        const doc = await prepared;
        if (!deferred && options.deferIndex !== false && store.deferEmbeddingIndex) {
          const large = changed >= DEFER_INDEX_MIN_DOCUMENTS && changed * 4 >= existing;
          if (options.deferIndex === true || large) deferred = await store.deferEmbeddingIndex();
        }
        await store.ingestDocument({ source: item.source, name: doc.name, meta: doc.meta, checksum, model, chunks: doc.chunks });
        await remember(item, checksum);
        report(item.source, outcome, doc.chunks.length);
      } catch (error) {
        if (error instanceof Error && error.name === 'EmbedderLoadError') fatal = error;
        else report(item.source, 'failed', 0, errorMessage(error));
      }
    });
  };

  let crawlResult: CrawlResult | null = null;
  try {
    // Files are all checked first, so the index decision sees the whole run; the bytes of unchanged
    // files are not kept.
    const checked: { item: Item | null; source: string; state: { outcome: Outcome; checksum: string } | null; error?: string }[] = [];
    for (const file of files) {
      try {
        const item: Item = {
          source: file.source,
          format: file.format,
          bytes: await readFile(file.file),
          defaults: { fileTitle: path.basename(file.file, path.extname(file.file)), url: options.baseUrl ? joinUrl(options.baseUrl, file.urlPath) : null },
          origin: { file_name: path.basename(file.file) },
        };
        const state = await check(item);
        checked.push({ item: state.outcome === 'unchanged' ? null : item, source: file.source, state });
      } catch (error) {
        checked.push({ item: null, source: file.source, state: null, error: errorMessage(error) });
      }
    }
    for (const { item, source, state, error } of checked) {
      if (fatal) break;
      if (!state) writes = writes.then(() => report(source, 'failed', 0, error));
      else if (!item) writes = writes.then(() => report(source, 'unchanged', 0));
      else await submit(item, state);
    }
    if (urls.length > 0 && !fatal) {
      total -= urls.length;
      const cached = options.conditional === false ? undefined : await cachedPages(store, urls, model);
      crawlResult = await crawl(urls, { ...options.crawl, ...(cached ? { cached } : {}) }, async (page) => {
        total += 1;
        if (page.notModified) {
          writes = writes.then(() => report(page.url, 'unchanged', 0));
          return;
        }
        const item: Item = {
          source: page.url,
          format: page.format,
          bytes: page.bytes,
          defaults: { fileTitle: page.url, url: page.url },
          origin: { fetched_url: page.fetchedUrl },
          cache: { url: page.requestedUrl, etag: page.etag, last_modified: page.lastModified, ...(page.links ? { links: page.links } : {}) },
        };
        await submit(item, await check(item));
      });
      summary.bytes = crawlResult.bytes;
      total += crawlResult.failed.length;
      for (const failure of crawlResult.failed) writes = writes.then(() => report(failure.source, 'failed', 0, failure.error));
      summary.skipped.push(...crawlResult.disallowed.map((u) => `${u} (robots.txt)`));
      summary.skipped.push(...crawlResult.skipped.map((s) => `${s.source} (${s.reason})`));
    }
    await writes;
  } finally {
    if (deferred) {
      onProgress?.({ type: 'indexing' });
      await store.restoreIndexes?.();
    }
  }
  if (fatal) throw fatal;

  if (options.prune) await prune(options, summary, files.map((f) => f.source), roots, crawlResult);
  if (!dryRun && summary.added + summary.updated + summary.pruned.length > 0) await store.optimize();
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

/**
 * The validators stored for pages on the start URLs' origins, by the URL requested, that still describe
 * what is stored: made by this chunker version and this model (the SQL function checks the checksum).
 */
async function cachedPages(store: IngestStore, urls: string[], model: string): Promise<Map<string, CachedPage>> {
  const cached = new Map<string, CachedPage>();
  const origins = new Set(urls.map((u) => `${new URL(u).origin}/`));
  for (const origin of origins) {
    for (const { source, http_cache: c } of await store.httpCache(origin)) {
      if (c.chunking !== CHUNKING_VERSION || c.model !== model) continue;
      cached.set(c.url, { source, etag: c.etag, lastModified: c.last_modified, ...(c.links ? { links: c.links } : {}) });
    }
  }
  return cached;
}

/**
 * Deletes documents under the given folders and crawled origins that this run did not see. A crawl that
 * hit its page limit or failed on a start URL prunes nothing (the missing pages may just be unvisited); a
 * page answering 404 or 410 is gone.
 */
async function prune(
  options: IngestOptions,
  summary: IngestSummary,
  fileSources: string[],
  roots: string[],
  crawlResult: CrawlResult | null,
): Promise<void> {
  const dryRun = options.dryRun ?? false;
  const failedSources = summary.failed.map((f) => f.source);
  const scopes: { prefix: string; keep: string[] }[] = roots
    .filter((root) => root !== '')
    .map((prefix) => ({ prefix, keep: [...fileSources, ...failedSources].filter((s) => s.startsWith(prefix)) }));
  if (crawlResult && !crawlResult.limitReached && !crawlResult.failed.some((f) => options.inputs.includes(f.source))) {
    const keep = [...crawlResult.seen, ...crawlResult.failed.filter((f) => !f.gone).map((f) => f.source)];
    for (const prefix of crawlResult.origins) scopes.push({ prefix, keep: keep.filter((s) => s.startsWith(prefix)) });
  }
  for (const { prefix, keep } of scopes) {
    for (const { source } of await options.store.pruneDocuments(prefix, keep, dryRun)) {
      summary.pruned.push(source);
      options.onProgress?.({ type: 'pruned', source, dryRun });
    }
  }
}

/** Bounds how many documents are being prepared at once (memory, and the writer keeping up). */
class Semaphore {
  private waiting: (() => void)[] = [];
  constructor(private free: number) {}
  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free += 1;
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function joinUrl(base: string, urlPath: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return urlPath ? `${trimmed}/${urlPath}` : trimmed;
}

async function missingEmbedder(): Promise<Embedder> {
  throw new Error('ingest() needs an embedder or a preparer');
}

/** Memoised embedder; a function is only called on first use, a rejected promise never goes unhandled. */
function lazyEmbedder(source: NonNullable<IngestOptions['embedder']>, onLoad: () => void): () => Promise<Embedder> {
  if (source instanceof Promise) source.catch(() => {});
  let loading: Promise<Embedder> | null = null;
  return () => {
    if (!loading) {
      onLoad();
      loading = typeof source === 'function' ? source() : Promise.resolve(source);
    }
    return loading;
  };
}
