/**
 * The Node server's uploader for the console (server/console/upload.ts): the files go into a temporary
 * folder as `uploads/<name>` and through the ingestion pipeline exactly as `npm run ingest` would take them
 * (same parsing, chunking, embedding, `ingest_document`); a URL is crawled as the CLI crawls it — public
 * addresses only (there is no --allow-private here: an admin session, or a stolen admin token, must not
 * be able to read the server's network), each page at most the size of an uploaded file, the whole crawl at most ten times
 * that. The folder is removed afterwards. The pipeline writes each document in one transaction, so a
 * failure leaves nothing.
 * With KB_SYNC_SOURCES, "Sync now" syncs those sources as `npm run ingest` would (conditional re-crawl,
 * runs recorded), and the scheduled sync (./sync-schedule.ts) runs the same function. All of them hold the
 * one ingestion slot while they run.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UPLOAD_MAX_BYTES, type UploadEvent } from '../../../protocol/index.ts';
import { IngestSlot } from '../../console/ingest-slot.ts';
import type { AdminUploader, UploadDone } from '../../console/upload.ts';
import { sync, type SourceReport } from '../../ingest/sync.ts';
import type { SyncTrigger } from '../../store/types.ts';
import { doneOf, type SyncScheduleConfig } from './sync-schedule.ts';
import type { CrawlOptions } from '../../ingest/crawl.ts';
import type { Embedder } from '../../ingest/embedder.ts';
import { ingest, type IngestProgress, type IngestSummary } from '../../ingest/pipeline.ts';
import type { IngestStore } from '../../store/types.ts';
import type { Webhooks } from '../../webhooks/dispatcher.ts';

export interface NodeUploaderOptions {
  store: IngestStore;
  model: string;
  /** The server's embedder, loaded once and shared with "try a question". */
  embedder: () => Promise<Embedder>;
  /** Tests only: the crawl's resolver and address policy (a stand-in for a public site). */
  crawlSeams?: Pick<CrawlOptions, 'resolve' | 'addressPolicy'>;
  /** The server's one ingestion slot (default: a new one); pass the scheduled sync's. */
  slot?: IngestSlot;
  /** KB_SYNC_SOURCES etc.: enables "Sync now". */
  sync?: SyncScheduleConfig;
  /** The server's webhooks: each sync run ends with `sync.finished`. */
  webhooks?: Pick<Webhooks, 'emit'>;
}

/**
 * Syncs the configured sources once (the caller holds the slot). The operator's sources are crawled like
 * the CLI crawls (its defaults; private addresses only with KB_SYNC_ALLOW_PRIVATE), not like a console URL.
 */
export function nodeSyncRunner({
  store,
  model,
  embedder,
  sync: config,
  webhooks,
}: NodeUploaderOptions & { sync: SyncScheduleConfig }) {
  return (trigger: SyncTrigger, onProgress?: (e: UploadEvent) => void): Promise<SourceReport[]> =>
    sync({
      store,
      model,
      embedder,
      sources: config.sources,
      trigger,
      // A source that disappeared from a sitemap or a folder is removed, as the console's "removed" promises.
      prune: true,
      crawl: { allowPrivate: config.allowPrivate },
      ...(webhooks ? { webhooks } : {}),
      ...(onProgress ? { onProgress: forward(onProgress) } : {}),
    });
}

/** The pipeline's events the console shows. */
function forward(onProgress: (e: UploadEvent) => void) {
  return (event: IngestProgress) => {
    if (event.type === 'start' || event.type === 'loading-model' || event.type === 'document') onProgress(event);
  };
}

/** The console's crawl: a page as large as an uploaded file at most, 10 of them in all. */
export const CONSOLE_CRAWL = { maxResponseBytes: UPLOAD_MAX_BYTES, maxTotalBytes: 10 * UPLOAD_MAX_BYTES } as const;

export function nodeUploader(options: NodeUploaderOptions): AdminUploader {
  const { store, model, embedder, crawlSeams, slot = new IngestSlot() } = options;
  const config = options.sync;
  const syncNow = config && config.sources.length > 0 ? nodeSyncRunner({ ...options, sync: config }) : null;
  const run = async (
    inputs: string[],
    cwd: string,
    onProgress: (e: UploadEvent) => void,
    maxPages?: number,
  ): Promise<UploadDone> => {
    const summary: IngestSummary = await ingest({
      store,
      model,
      embedder,
      inputs,
      cwd,
      ...(maxPages ? { crawl: { ...crawlSeams, ...CONSOLE_CRAWL, maxPages } } : {}),
      onProgress: forward(onProgress),
    });
    return {
      type: 'done',
      added: summary.added,
      updated: summary.updated,
      unchanged: summary.unchanged,
      failed: summary.failed,
      skipped: summary.skipped,
      chunks: summary.chunks,
      seconds: summary.seconds,
    };
  };
  return {
    async files(files, onProgress) {
      const dir = await mkdtemp(join(tmpdir(), 'kb-upload-'));
      try {
        await mkdir(join(dir, 'uploads'));
        for (const file of files) await writeFile(join(dir, 'uploads', file.name), file.bytes);
        return await run(
          files.map((f) => join(dir, 'uploads', f.name)),
          dir,
          onProgress,
        );
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    url: (url, maxPages, onProgress) => run([url], process.cwd(), onProgress, maxPages),
    slot,
    ...(config ? { syncSchedule: { sources: config.sources, intervalSeconds: config.intervalSeconds } } : {}),
    ...(syncNow
      ? { sync: async (onProgress: (e: UploadEvent) => void) => doneOf(await syncNow('console', onProgress)) }
      : {}),
  };
}

/** One embedder for the server's lifetime, loaded on first use; a failed load is retried on the next. */
export function sharedEmbedder(load: () => Promise<Embedder>): () => Promise<Embedder> {
  let loading: Promise<Embedder> | null = null;
  return () => {
    loading ??= load().catch((error) => {
      loading = null;
      throw error;
    });
    return loading;
  };
}
