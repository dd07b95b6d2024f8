// Long file: the ingestion run as named steps of one class (files, sites, check, write, index), kept in order of execution.
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
import { resolveInputs, type InputFile } from './files.ts';
import { lazyEmbedder, missingEmbedder } from './lazy-embedder.ts';
import { inProcessPreparer, type Preparer } from './pool.ts';
import { parseSource, type PreparedDocument, type PrepareTask } from './prepare.ts';
import { Semaphore } from './semaphore.ts';
import { wordsOnlyPreparer } from './words-only.ts';

/**
 * Part of every document's checksum: bump it when parsing or chunking changes what gets stored, so the next
 * run re-chunks documents whose bytes did not change. 2: callouts become notes. 3: tables lose their
 * alignment padding (table.ts).
 */
export const CHUNKING_VERSION = 'chunks-3';

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
  /**
   * Store chunks without embeddings, for keyword search only (no model is loaded; `embedder` and `preparer`
   * are not used). A stored document whose bytes did not change counts as unchanged even though it lacks
   * embeddings; an ingestion without this option embeds it.
   */
  wordsOnly?: boolean;
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
  const { store, onProgress, dryRun = false } = options;
  const urls = options.inputs.filter((i) => /^https?:\/\//i.test(i));
  const paths = options.inputs.filter((i) => !/^https?:\/\//i.test(i));
  // Made before anything is awaited: a rejected embedder promise is handled from here on.
  const preparer = options.wordsOnly
    ? wordsOnlyPreparer()
    : (options.preparer ??
      inProcessPreparer(
        lazyEmbedder(options.embedder ?? missingEmbedder, () => onProgress?.({ type: 'loading-model' })),
      ));

  const { files, invalid, skipped, roots } = await resolveInputs(paths, options.cwd ?? process.cwd());
  const total = files.length + invalid.length + urls.length;
  const run = new IngestRun(options, preparer, skipped, total);
  onProgress?.({ type: 'start', total });
  for (const failure of invalid) run.report(failure.source, 'failed', 0, failure.error);
  await run.openStore();
  let crawlResult: CrawlResult | null = null;
  try {
    await run.files(files);
    if (urls.length > 0 && !run.fatal) crawlResult = await run.sites(urls);
    await run.writes;
  } finally {
    await run.rebuildIndex();
  }
  if (run.fatal) throw run.fatal;

  const { summary } = run;
  if (options.prune)
    await prune(
      options,
      summary,
      files.map((f) => f.source),
      roots,
      crawlResult,
    );
  if (!dryRun && summary.added + summary.updated + summary.pruned.length > 0) await store.optimize();
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

type Checked = { outcome: Outcome; checksum: string };

/**
 * One ingestion's steps and state. Sources are checked against the store, prepared concurrently (at most
 * `parallelism + 1` at once) and written one at a time in the order they were submitted (`writes`).
 */
class IngestRun {
  readonly summary: IngestSummary;
  /** A model that cannot load: the run stops (every other document would fail the same way). */
  fatal: unknown = null;
  /** The writes submitted so far, in order. */
  writes: Promise<void> = Promise.resolve();
  private readonly store: IngestStore;
  private readonly model: string;
  private readonly dryRun: boolean;
  private readonly slots: Semaphore;
  private done = 0;
  /** Documents in the store before the run, and documents this run found changed: the index decision. */
  private existing = 0;
  private changed = 0;
  private deferred = false;

  constructor(
    private readonly options: IngestOptions,
    private readonly preparer: Preparer,
    skipped: string[],
    /** Sources known so far; a crawl adds its pages as it finds them. */
    private total: number,
  ) {
    this.store = options.store;
    this.model = options.model;
    this.dryRun = options.dryRun ?? false;
    this.slots = new Semaphore(Math.max(1, preparer.parallelism + 1));
    this.summary = {
      added: 0,
      updated: 0,
      unchanged: 0,
      failed: [],
      skipped,
      pruned: [],
      chunks: 0,
      bytes: 0,
      seconds: 0,
      dry_run: this.dryRun,
    };
  }

  report(source: string, outcome: Outcome, chunks: number, error?: string): void {
    const { summary } = this;
    if (outcome === 'failed') summary.failed.push({ source, error: error ?? 'failed' });
    else summary[outcome] += 1;
    summary.chunks += chunks;
    const done = ++this.done;
    this.options.onProgress?.({
      type: 'document',
      source,
      outcome,
      chunks,
      done,
      total: Math.max(this.total, done),
      ...(error ? { error } : {}),
    });
  }

  /** Repairs a bulk load that was killed half-way, and counts the documents stored (nothing in a dry run). */
  async openStore(): Promise<void> {
    if (this.dryRun) return;
    await this.store.restoreIndexes?.();
    this.existing = (await this.store.listDocuments()).length;
  }

  /**
   * Files are all checked first, so the index decision sees the whole run; the bytes of unchanged files are
   * not kept.
   */
  async files(files: InputFile[]): Promise<void> {
    const checked: { item: Item | null; source: string; state: Checked | null; error?: string }[] = [];
    for (const file of files) {
      try {
        const item: Item = {
          source: file.source,
          format: file.format,
          bytes: await readFile(file.file),
          defaults: {
            fileTitle: path.basename(file.file, path.extname(file.file)),
            url: this.options.baseUrl ? joinUrl(this.options.baseUrl, file.urlPath) : null,
          },
          origin: { file_name: path.basename(file.file) },
        };
        const state = await this.check(item);
        checked.push({ item: state.outcome === 'unchanged' ? null : item, source: file.source, state });
      } catch (error) {
        checked.push({ item: null, source: file.source, state: null, error: errorMessage(error) });
      }
    }
    for (const { item, source, state, error } of checked) {
      if (this.fatal) break;
      if (!state) this.afterWrites(() => this.report(source, 'failed', 0, error));
      else if (!item) this.afterWrites(() => this.report(source, 'unchanged', 0));
      else await this.submit(item, state);
    }
  }

  /** Crawls the URLs, submitting each page as it arrives (a 304 is unchanged without a download). */
  async sites(urls: string[]): Promise<CrawlResult> {
    const { options, summary } = this;
    this.total -= urls.length;
    const cached = options.conditional === false ? undefined : await cachedPages(this.store, urls, this.model);
    const result = await crawl(urls, { ...options.crawl, ...(cached ? { cached } : {}) }, async (page) => {
      this.total += 1;
      if (page.notModified) return this.afterWrites(() => this.report(page.url, 'unchanged', 0));
      const item: Item = {
        source: page.url,
        format: page.format,
        bytes: page.bytes,
        defaults: { fileTitle: page.url, url: page.url },
        origin: { fetched_url: page.fetchedUrl },
        cache: {
          url: page.requestedUrl,
          etag: page.etag,
          last_modified: page.lastModified,
          ...(page.links ? { links: page.links } : {}),
        },
      };
      await this.submit(item, await this.check(item));
    });
    summary.bytes = result.bytes;
    this.total += result.failed.length;
    for (const failure of result.failed)
      this.afterWrites(() => this.report(failure.source, 'failed', 0, failure.error));
    summary.skipped.push(...result.disallowed.map((u) => `${u} (robots.txt)`));
    summary.skipped.push(...result.skipped.map((s) => `${s.source} (${s.reason})`));
    return result;
  }

  /** After a large run into a store that dropped its HNSW index: rebuild it. */
  async rebuildIndex(): Promise<void> {
    if (!this.deferred) return;
    this.options.onProgress?.({ type: 'indexing' });
    await this.store.restoreIndexes?.();
  }

  /** Queue a step after the writes submitted before it. */
  private afterWrites(step: () => void | Promise<void>): void {
    this.writes = this.writes.then(step);
  }

  /** Whether a source changed since it was stored: 'unchanged' or the outcome of writing it. */
  private async check(item: Item): Promise<Checked> {
    const checksum = createHash('sha256').update(CHUNKING_VERSION).update(item.bytes).digest('hex');
    const state = await this.store.documentState(item.source, this.model);
    const embedded = state?.stale_embeddings === 0 || this.options.wordsOnly;
    if (state?.status === 'ready' && state.checksum === checksum && embedded) {
      return { outcome: 'unchanged', checksum };
    }
    this.changed += 1;
    return { outcome: state ? 'updated' : 'added', checksum };
  }

  /** Prepares a changed source now and writes it after the ones submitted before it. */
  private async submit(item: Item, { outcome, checksum }: Checked): Promise<void> {
    if (this.fatal) return;
    if (outcome === 'unchanged') {
      return this.afterWrites(async () => {
        await this.remember(item, checksum);
        this.report(item.source, 'unchanged', 0);
      });
    }
    if (this.dryRun) {
      const parsed = parseSource(item).then(
        () => this.report(item.source, outcome, 0),
        (error: unknown) => this.report(item.source, 'failed', 0, errorMessage(error)),
      );
      return this.afterWrites(() => parsed);
    }
    await this.slots.acquire();
    const task: PrepareTask = { bytes: item.bytes, format: item.format, defaults: item.defaults, origin: item.origin };
    const prepared: Promise<PreparedDocument> = this.preparer.prepare(task);
    prepared.catch(() => {}).finally(() => this.slots.release());
    this.afterWrites(() => this.write(item, outcome, checksum, prepared));
  }

  /** One prepared document into the store (`ingest_document`, atomic), then its validators. */
  private async write(
    item: Item,
    outcome: Outcome,
    checksum: string,
    prepared: Promise<PreparedDocument>,
  ): Promise<void> {
    if (this.fatal) return;
    try {
      const doc = await prepared;
      await this.deferIndexIfLarge();
      await this.store.ingestDocument({
        source: item.source,
        name: doc.name,
        meta: doc.meta,
        checksum,
        model: this.model,
        chunks: doc.chunks,
      });
      await this.remember(item, checksum);
      this.report(item.source, outcome, doc.chunks.length);
    } catch (error) {
      if (error instanceof Error && error.name === 'EmbedderLoadError') this.fatal = error;
      else this.report(item.source, 'failed', 0, errorMessage(error));
    }
  }

  /** Before the first write: drop the HNSW index when the run is large against what is stored (or when asked). */
  private async deferIndexIfLarge(): Promise<void> {
    const { deferIndex } = this.options;
    if (this.deferred || deferIndex === false || !this.store.deferEmbeddingIndex) return;
    const large = this.changed >= DEFER_INDEX_MIN_DOCUMENTS && this.changed * 4 >= this.existing;
    if (deferIndex === true || large) this.deferred = await this.store.deferEmbeddingIndex();
  }

  /**
   * After a page is stored (or found unchanged): its validators, for a conditional request next time. A
   * failure here costs only a download next time, so it is not the page's failure.
   */
  private async remember(item: Item, checksum: string): Promise<void> {
    if (this.dryRun || !item.cache || (item.cache.etag === null && item.cache.last_modified === null)) return;
    await this.store
      .setHttpCache(item.source, { ...item.cache, checksum, chunking: CHUNKING_VERSION, model: this.model })
      .catch(() => {});
  }
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
      cached.set(c.url, {
        source,
        etag: c.etag,
        lastModified: c.last_modified,
        ...(c.links ? { links: c.links } : {}),
      });
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

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function joinUrl(base: string, urlPath: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return urlPath ? `${trimmed}/${urlPath}` : trimmed;
}
