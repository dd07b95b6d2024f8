/**
 * `POST /api/admin/documents/upload` (multipart, field `file`) and `POST /api/admin/documents/url`
 * (`{url, max_pages?}`): add documents from the console by running the ingestion pipeline — on the Node
 * server only (the uploader is server/node/upload.ts); a Worker answers 501 and the console says to use
 * the CLI. The request is checked before anything runs: admin (in SQL too), one upload at a time, size
 * (≤ 5 MB), type by extension and by content (a PDF starts with `%PDF-`, text is valid UTF-8). Progress is
 * streamed as NDJSON (`UploadEvent`, one per line). Each document is written by one `ingest_document`
 * call — one transaction — so a failure leaves nothing half-written.
 */
import { Hono } from 'hono';
import { stream } from 'hono/streaming';
import { UPLOAD_EXTENSIONS, UPLOAD_MAX_BYTES, UrlUploadSchema, type UploadEvent } from '../../protocol/index.ts';
import type { AuthVariables } from '../auth/jwt.ts';
import { parseBody, readJson } from '../chat/request.ts';
import { AppError, fromStoreError } from '../http/errors.ts';
import { StoreError, type ChatStore } from '../store/types.ts';

export type UploadDone = Extract<UploadEvent, { type: 'done' }>;

export interface AdminUploader {
  /** Ingests the files (already validated); calls `onProgress` as the pipeline goes. */
  files(files: { name: string; bytes: Uint8Array }[], onProgress: (event: UploadEvent) => void): Promise<UploadDone>;
  /** Crawls a page or sitemap (robots.txt obeyed, at most `maxPages`) and ingests what it finds. */
  url(url: string, maxPages: number, onProgress: (event: UploadEvent) => void): Promise<UploadDone>;
}

const TEXT_EXTENSIONS = new Set(['.md', '.mdx', '.markdown', '.html', '.htm', '.txt']);

/** A file's name as stored (its source id is `uploads/<name>`): no folders, no odd characters. */
export function safeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  return base.normalize('NFKC').replace(/[^\p{L}\p{N}._ -]/gu, '_').replace(/^[.\s]+/, '').slice(-120);
}

/** Why a file cannot be ingested, or null when it can. */
export function uploadProblem(name: string, bytes: Uint8Array): string | null {
  const ext = /\.[^.]+$/.exec(name.toLowerCase())?.[0] ?? '';
  if (!(UPLOAD_EXTENSIONS as readonly string[]).includes(ext)) return `file: must be one of ${UPLOAD_EXTENSIONS.join(', ')}`;
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
  let busy = false;

  /**
   * Takes the one upload slot, or throws 409. The check and the claim happen together, before any await:
   * checked after an await (the admin check, reading the body), two requests arriving together could both
   * see the slot free and both run. Returns the slot's release, which must be called exactly once.
   */
  const claim = (): (() => void) => {
    if (!uploader) {
      throw new AppError(501, 'unavailable', 'Uploads run on the Node server. Here, add documents with the CLI: npm run ingest -- <files|urls> (see the README).');
    }
    if (busy) throw new AppError(409, 'conflict', 'Another upload is running. Please wait for it to finish.');
    busy = true;
    let held = true;
    return () => {
      if (held) busy = held = false;
    };
  };

  const checkAdmin = async (claims: AuthVariables['claims']) => {
    await store.adminWhoami(claims).catch((error) => {
      if (error instanceof StoreError && error.kind === 'forbidden') throw new AppError(403, 'forbidden', 'Only administrators can add documents.');
      throw fromStoreError(error);
    });
  };

  /** Runs `handle` holding the upload slot: released when it throws (a 4xx before the stream), else by the stream. */
  const exclusive = async (handle: (release: () => void) => Promise<Response>): Promise<Response> => {
    const release = claim();
    try {
      return await handle(release);
    } catch (error) {
      release();
      throw error;
    }
  };

  /** Streams the pipeline's progress as NDJSON; the last line is `done` or `error`. */
  const progress = (c: Parameters<typeof stream>[0], release: () => void, run: (onProgress: (e: UploadEvent) => void) => Promise<UploadDone>) => {
    c.header('Content-Type', 'application/x-ndjson; charset=utf-8');
    c.header('Cache-Control', 'no-store');
    return stream(c, async (out) => {
      const write = (event: UploadEvent) => out.write(`${JSON.stringify(event)}\n`);
      try {
        await write(await run((event) => void write(event)));
      } catch (error) {
        // The pipeline's own message (a model that cannot load, an unreachable URL) helps the owner; a
        // database failure's does not leave the server.
        const message = error instanceof StoreError || !(error instanceof Error) ? 'The knowledge base is unavailable.' : error.message;
        await write({ type: 'error', code: 'ingest_failed', message });
      } finally {
        release();
      }
    });
  };

  app.post('/upload', (c) =>
    exclusive(async function uploadFile(release) {
      await checkAdmin(c.get('claims'));
      const type = c.req.header('Content-Type') ?? '';
      if (!type.startsWith('multipart/form-data')) throw new AppError(400, 'invalid_request', 'body: must be multipart/form-data with a file field.');
      const form = await c.req.formData().catch(() => {
        throw new AppError(400, 'invalid_request', 'body: is not valid multipart/form-data.');
      });
      const file = form.get('file');
      if (!(file instanceof File)) throw new AppError(400, 'invalid_request', 'file: is required.');
      const name = safeFileName(file.name);
      if (!name) throw new AppError(400, 'invalid_request', 'file: needs a name.');
      const bytes = new Uint8Array(await file.arrayBuffer());
      const problem = uploadProblem(name, bytes);
      if (problem) throw new AppError(problem.includes('at most') ? 413 : 400, problem.includes('at most') ? 'payload_too_large' : 'invalid_request', `${problem}.`);
      return progress(c, release, (onProgress) => uploader!.files([{ name, bytes }], onProgress));
    }),
  );

  app.post('/url', (c) =>
    exclusive(async function uploadUrl(release) {
      await checkAdmin(c.get('claims'));
      const { url, max_pages } = parseBody(UrlUploadSchema, await readJson(c.req.raw));
      return progress(c, release, (onProgress) => uploader!.url(url, max_pages, onProgress));
    }),
  );

  return app;
}
