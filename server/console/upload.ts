/**
 * `POST /api/admin/documents/upload` (multipart, field `file`) and `POST /api/admin/documents/url`
 * (`{url, max_pages?}`): add documents from the console by running the ingestion pipeline — on the Node
 * server only (the uploader is server/runtime/node/upload.ts); a Worker answers 501 and the console says to use
 * the CLI. The request is checked before anything runs: admin (in SQL too), one upload at a time, size
 * (≤ 5 MB), type by extension and by content (a PDF starts with `%PDF-`, text is valid UTF-8). Progress is
 * streamed as NDJSON (`UploadEvent`, one per line). Each document is written by one `ingest_document`
 * call — one transaction — so a failure leaves nothing half-written.
 * `POST /api/admin/documents/sync` ("Sync now", Node only, when KB_SYNC_SOURCES is set) re-syncs the
 * configured sources the same way, streaming the same events. Uploads, "Sync now" and the scheduled sync
 * share one slot (./ingest-slot.ts): one ingestion at a time.
 */
import { Hono } from 'hono';
import { stream } from 'hono/streaming';
import {
  ADMIN_PATHS,
  pathUnder,
  UPLOAD_EXTENSIONS,
  UPLOAD_MAX_BYTES,
  UrlUploadSchema,
  type SyncOverview,
  type UploadEvent,
} from '../../protocol/index.ts';
import type { AuthVariables } from '../auth/jwt.ts';
import { parseBody, readJson } from '../http/body.ts';
import { AppError, fromStoreError } from '../http/errors.ts';
import { StoreError, type ChatStore } from '../store/types.ts';
import { IngestSlot } from './ingest-slot.ts';

export type UploadDone = Extract<UploadEvent, { type: 'done' }>;

export interface AdminUploader {
  /** Ingests the files (already validated); calls `onProgress` as the pipeline goes. */
  files(files: { name: string; bytes: Uint8Array }[], onProgress: (event: UploadEvent) => void): Promise<UploadDone>;
  /** Crawls a page or sitemap (robots.txt obeyed, at most `maxPages`) and ingests what it finds. */
  url(url: string, maxPages: number, onProgress: (event: UploadEvent) => void): Promise<UploadDone>;
  /** Re-syncs the configured sources (KB_SYNC_SOURCES); absent when none are configured. */
  sync?(onProgress: (event: UploadEvent) => void): Promise<UploadDone>;
  /** The server's one ingestion slot, shared with its scheduled sync. */
  slot?: IngestSlot;
  /** KB_SYNC_SOURCES and KB_SYNC_INTERVAL (seconds, null: no schedule), shown in the console. */
  syncSchedule?: { sources: string[]; intervalSeconds: number | null };
}

const TEXT_EXTENSIONS = new Set(['.md', '.mdx', '.markdown', '.html', '.htm', '.txt']);

/** A file's name as stored (its source id is `uploads/<name>`): no folders, no odd characters. */
export function safeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  return base
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}._ -]/gu, '_')
    .replace(/^[.\s]+/, '')
    .slice(-120);
}

/** Why a file cannot be ingested, or null when it can. */
export function uploadProblem(name: string, bytes: Uint8Array): string | null {
  const ext = /\.[^.]+$/.exec(name.toLowerCase())?.[0] ?? '';
  if (!(UPLOAD_EXTENSIONS as readonly string[]).includes(ext))
    return `file: must be one of ${UPLOAD_EXTENSIONS.join(', ')}`;
  if (bytes.length === 0) return 'file: is empty';
  if (bytes.length > UPLOAD_MAX_BYTES) return `file: must be at most ${UPLOAD_MAX_BYTES / 1024 / 1024} MB`;
  if (ext === '.pdf' && new TextDecoder().decode(bytes.subarray(0, 5)) !== '%PDF-') return 'file: is not a PDF';
  if (TEXT_EXTENSIONS.has(ext)) {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return 'file: must be UTF-8 text';
    }
  }
  return null;
}

export function uploadRoute({ store, uploader }: { store: ChatStore; uploader?: AdminUploader }) {
  const app = new Hono<{ Variables: AuthVariables }>();
  const slot = uploader?.slot ?? new IngestSlot();

  /**
   * Checks the caller and takes the slot; returns its release. The check and the claim are one synchronous
   * step (tryAcquire), so two requests that both passed the admin check cannot both see the slot free; an
   * upload takes it before its body is read.
   */
  const start = async (claims: AuthVariables['claims'], what = 'an upload'): Promise<() => void> => {
    if (!uploader) {
      throw new AppError(
        501,
        'unavailable',
        'Uploads run on the Node server. Here, add documents with the CLI: npm run ingest -- <files|urls> (see docs/ingestion.md).',
      );
    }
    await store.adminWhoami(claims).catch((error) => {
      if (error instanceof StoreError && error.kind === 'forbidden')
        throw new AppError(403, 'forbidden', 'Only administrators can add documents.');
      throw fromStoreError(error);
    });
    const release = await slot.acquire(what);
    if (!release) {
      const holder = slot.busy ?? what;
      const running = holder === what ? `Another ${what.replace(/^an? /, '')}` : capitalise(holder);
      throw new AppError(409, 'conflict', `${running} is running. Please wait for it to finish.`);
    }
    return release;
  };

  /** Streams the pipeline's progress as NDJSON; the last line is `done` or `error`. Releases the slot at the end. */
  const progress = (
    c: Parameters<typeof stream>[0],
    release: () => void,
    run: (onProgress: (e: UploadEvent) => void) => Promise<UploadDone>,
  ) => {
    c.header('Content-Type', 'application/x-ndjson; charset=utf-8');
    c.header('Cache-Control', 'no-store');
    return stream(c, async (out) => {
      const write = (event: UploadEvent) => out.write(`${JSON.stringify(event)}\n`);
      try {
        await write(await run((event) => void write(event)));
      } catch (error) {
        // The pipeline's own message (a model that cannot load, an unreachable URL) helps the owner; a
        // database failure's does not leave the server.
        const message =
          error instanceof StoreError || !(error instanceof Error)
            ? 'The knowledge base is unavailable.'
            : error.message;
        await write({ type: 'error', code: 'ingest_failed', message });
      } finally {
        release();
      }
    });
  };

  app.post(pathUnder(ADMIN_PATHS.documents, ADMIN_PATHS.uploads), async function uploadFile(c) {
    const release = await start(c.get('claims'));
    try {
      const type = c.req.header('Content-Type') ?? '';
      if (!type.startsWith('multipart/form-data'))
        throw new AppError(400, 'invalid_request', 'body: must be multipart/form-data with a file field.');
      const form = await c.req.formData().catch(() => {
        throw new AppError(400, 'invalid_request', 'body: is not valid multipart/form-data.');
      });
      const file = form.get('file');
      if (!(file instanceof File)) throw new AppError(400, 'invalid_request', 'file: is required.');
      const name = safeFileName(file.name);
      if (!name) throw new AppError(400, 'invalid_request', 'file: needs a name.');
      const bytes = new Uint8Array(await file.arrayBuffer());
      const problem = uploadProblem(name, bytes);
      if (problem)
        throw new AppError(
          problem.includes('at most') ? 413 : 400,
          problem.includes('at most') ? 'payload_too_large' : 'invalid_request',
          `${problem}.`,
        );
      return progress(c, release, (onProgress) => uploader!.files([{ name, bytes }], onProgress));
    } catch (error) {
      release();
      throw error;
    }
  });

  app.post(pathUnder(ADMIN_PATHS.documents, ADMIN_PATHS.url), async function uploadUrl(c) {
    const { url, max_pages } = parseBody(UrlUploadSchema, await readJson(c.req.raw));
    const release = await start(c.get('claims'));
    return progress(c, release, (onProgress) => uploader!.url(url, max_pages, onProgress));
  });

  // Per source, its latest run (from kb_sync_runs, written by every sync wherever it ran: the CLI, a GitHub
  // workflow, this server), plus this server's schedule and what holds its ingestion slot right now.
  app.get(pathUnder(ADMIN_PATHS.documents, ADMIN_PATHS.sync), async function syncStatus(c) {
    const sources = await store.adminSyncStatus(c.get('claims')).catch((error) => {
      if (error instanceof StoreError && error.kind === 'forbidden')
        throw new AppError(403, 'forbidden', 'Only administrators can see sync runs.');
      throw fromStoreError(error);
    });
    return c.json<SyncOverview>({
      sources,
      schedule: uploader?.syncSchedule ?? null,
      sync_now: !!uploader?.sync,
      running: uploader ? slot.busy : null,
    });
  });

  app.post(pathUnder(ADMIN_PATHS.documents, ADMIN_PATHS.sync), async function syncNow(c) {
    if (!uploader) {
      throw new AppError(
        501,
        'unavailable',
        'Syncing runs on the Node server. Here, sync with the CLI (npm run ingest -- <sources>) or the scheduled workflow (see docs/deploy.md).',
      );
    }
    if (!uploader.sync) {
      throw new AppError(
        501,
        'unavailable',
        'No sources to sync: set KB_SYNC_SOURCES on the server (see docs/configuration.md), or run npm run ingest -- <sources>.',
      );
    }
    const release = await start(c.get('claims'), 'a sync');
    return progress(c, release, (onProgress) => uploader!.sync!(onProgress));
  });

  return app;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
