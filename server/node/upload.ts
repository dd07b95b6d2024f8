/**
 * The Node server's uploader for the console (server/admin/upload.ts): the files go into a temporary
 * folder as `uploads/<name>` and through the ingestion pipeline exactly as `npm run ingest` would take them
 * (same parsing, chunking, embedding, `ingest_document`); a URL is crawled as the CLI crawls it — public
 * addresses only (there is no --allow-private here: an admin session, or a stolen admin token, must not
 * be able to read the server's network), each page at most the size of an uploaded file, the whole crawl at most ten times
 * that. The folder is removed afterwards. The pipeline writes each document in one transaction, so a
 * failure leaves nothing.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UPLOAD_MAX_BYTES, type UploadEvent } from '../../protocol/index.ts';
import type { AdminUploader, UploadDone } from '../admin/upload.ts';
import type { CrawlOptions } from '../ingest/crawl.ts';
import type { Embedder } from '../ingest/embedder.ts';
import { ingest, type IngestProgress, type IngestSummary } from '../ingest/pipeline.ts';
import type { IngestStore } from '../store/types.ts';

export interface NodeUploaderOptions {
  store: IngestStore;
  model: string;
  /** The server's embedder, loaded once and shared with "try a question". */
  embedder: () => Promise<Embedder>;
  /** Tests only: the crawl's resolver and address policy (a stand-in for a public site). */
  crawlSeams?: Pick<CrawlOptions, 'resolve' | 'addressPolicy'>;
}

/** The console's crawl: a page as large as an uploaded file at most, 10 of them in all. */
export const CONSOLE_CRAWL = { maxResponseBytes: UPLOAD_MAX_BYTES, maxTotalBytes: 10 * UPLOAD_MAX_BYTES } as const;

export function nodeUploader({ store, model, embedder, crawlSeams }: NodeUploaderOptions): AdminUploader {
  const run = async (inputs: string[], cwd: string, onProgress: (e: UploadEvent) => void, maxPages?: number): Promise<UploadDone> => {
    const summary: IngestSummary = await ingest({
      store,
      model,
      embedder,
      inputs,
      cwd,
      ...(maxPages ? { crawl: { ...crawlSeams, ...CONSOLE_CRAWL, maxPages } } : {}),
      onProgress: (event: IngestProgress) => {
        if (event.type === 'start' || event.type === 'loading-model') onProgress(event);
        else if (event.type === 'document') onProgress(event);
      },
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
        return await run(files.map((f) => join(dir, 'uploads', f.name)), dir, onProgress);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    url: (url, maxPages, onProgress) => run([url], process.cwd(), onProgress, maxPages),
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
