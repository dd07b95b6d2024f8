/**
 * Static files for the Node server — the widget, the ONNX Runtime wasm, the model — served compressed and
 * cacheable. Hono's serveStatic sends neither Cache-Control nor an ETag and never compresses: a
 * first visit paid 14.3 MB for the wasm that brotli makes 2.7 MB.
 *
 * - **Compression**: `<file>.br` / `<file>.gz` written by `npm run build` are sent when the browser accepts
 *   them; other compressible files (the model, whose folder is only known at run time) are compressed once
 *   on first request and kept in memory (`OnTheFly`). Compressible responses say `Vary: Accept-Encoding`.
 *   API responses never pass through here: SSE must never be compressed (proxies would buffer it).
 * - **Caching**: each caller gives the Cache-Control; every file has an ETag (size and mtime, per encoding)
 *   and `If-None-Match` gets 304.
 */
import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip as gzipCallback } from 'node:zlib';
import type { Context, MiddlewareHandler } from 'hono';

/** A year, and never revalidated: for names that change whenever their content does. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Cached, but revalidated on every use (a 304 when unchanged): for the loader, whose name sites paste. */
export const REVALIDATE = 'public, no-cache';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.txt': 'text/plain; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};
/** Worth compressing: text, and wasm/ONNX (the wasm shrinks to 19 %, a quantized model only a little). */
const COMPRESSIBLE = new Set(['.js', '.mjs', '.map', '.json', '.wasm', '.onnx', '.txt', '.html', '.css']);

export type Encoding = 'br' | 'gzip';

/**
 * The encoding to send for an `Accept-Encoding` header: brotli if accepted, else gzip, else none. A
 * coding with `q=0` is refused (RFC 9110 §12.5.3); `*` accepts both.
 */
export function negotiateEncoding(header: string | undefined | null): Encoding | null {
  const accepted = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
    accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (ok('br')) return 'br';
  if (ok('gzip')) return 'gzip';
  return null;
}

export interface ServeFilesOptions {
  /** Folder the files come from. */
  root: string;
  /** Maps the request path to a path inside `root` (e.g. strips a prefix), or null for a 404. */
  rewrite: (path: string) => string | null;
  /** Cache-Control for that path. */
  cacheControl: (path: string) => string;
  /** Compresses files that have no `.br`/`.gz` beside them (default: only precompressed files are). */
  onTheFly?: OnTheFly;
}

/** Serves GET and HEAD from `root`; anything not found falls through to the next handler. */
export function serveFiles({ root, rewrite, cacheControl, onTheFly }: ServeFilesOptions): MiddlewareHandler {
  const base = resolve(root);
  return async function serveFile(c, next) {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
    let decoded: string;
    try {
      decoded = decodeURIComponent(c.req.path);
    } catch {
      return next(); // malformed %-escapes name no file
    }
    const relative = rewrite(decoded);
    if (relative === null) return next();
    const file = resolve(base, `.${relative.startsWith('/') ? '' : '/'}${relative}`);
    // Never outside the folder (`..`, encoded or not).
    if (file !== base && !file.startsWith(base + sep)) return next();
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) return next();

    const ext = extname(file);
    const compressible = COMPRESSIBLE.has(ext);
    const encoding = compressible ? negotiateEncoding(c.req.header('accept-encoding')) : null;
    const headers: Record<string, string> = {
      'Content-Type': TYPES[ext] ?? 'application/octet-stream',
      'Cache-Control': cacheControl(c.req.path),
    };
    if (compressible) headers.Vary = 'Accept-Encoding';

    let body: Readable | Buffer;
    let size = info.size;
    let tag = `${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}`;
    const found = encoding ? await stat(`${file}.${encoding === 'br' ? 'br' : 'gz'}`).catch(() => null) : null;
    // A .br/.gz older than its file was left by an earlier build (e.g. one run without precompression): its
    // bytes are not this file's.
    const pre = found?.isFile() && found.mtimeMs >= info.mtimeMs ? found : null;
    const cached = encoding && !pre && onTheFly ? await onTheFly.get(file, info, encoding) : null;
    if (encoding && pre) {
      headers['Content-Encoding'] = encoding;
      size = pre.size;
      tag += `-${encoding}`;
      body = createReadStream(`${file}.${encoding === 'br' ? 'br' : 'gz'}`);
    } else if (encoding && cached) {
      headers['Content-Encoding'] = encoding;
      size = cached.length;
      tag += `-${encoding}`;
      body = cached;
    } else {
      body = createReadStream(file);
    }
    headers.ETag = `"${tag}"`;
    if (matches(c.req.header('if-none-match'), headers.ETag)) {
      if (body instanceof Readable) body.destroy();
      return notModified(c, headers);
    }
    headers['Content-Length'] = String(size);
    if (c.req.method === 'HEAD') {
      if (body instanceof Readable) body.destroy();
      return c.body(null, 200, headers);
    }
    const stream = body instanceof Readable ? (Readable.toWeb(body) as ReadableStream) : new Uint8Array(body);
    return c.body(stream, 200, headers);
  };
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  // Weak comparison (RFC 9110 §13.1.2): W/"x" matches "x".
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

function notModified(c: Context, headers: Record<string, string>): Response {
  // A 304 repeats the validators and caching headers of the 200, never the body's own.
  const { 'Content-Type': _type, 'Content-Encoding': _encoding, ...rest } = headers;
  return c.body(null, 304, rest);
}

const brotli = promisify(brotliCompress);
const SAMPLE_BYTES = 64 * 1024;

/** The first `bytes` of a file. */
async function sample(file: string, bytes: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
const gzip = promisify(gzipCallback);

/**
 * Compression of files that were not compressed at build time (model files: their folder is configured at
 * run time), once per file version, kept in memory. A file that compresses by less than 10 % is not kept
 * (sent as is): a quantized model is mostly random bytes — so its first 64 KB are tried first, and a file
 * whose sample does not compress is not read whole (the real model is 23 MB). Brotli at quality 5: ≈ 0.5 s
 * for 14 MB here, and within a few % of quality 9 on these files.
 */
export class OnTheFly {
  private readonly entries = new Map<string, Promise<Buffer | null>>();

  get(file: string, info: { size: number; mtimeMs: number }, encoding: Encoding): Promise<Buffer | null> {
    const key = `${encoding}:${file}:${info.size}:${info.mtimeMs}`;
    let entry = this.entries.get(key);
    if (!entry) {
      const pack = (data: Buffer) =>
        encoding === 'br'
          ? brotli(data, {
              params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
            })
          : gzip(data, { level: 6 });
      const worthIt = (data: Buffer, packed: Buffer) => packed.length < data.length * 0.9;
      entry = sample(file, SAMPLE_BYTES)
        .then(async (head) => {
          if (head.length === SAMPLE_BYTES && !worthIt(head, await pack(head))) return null;
          const data = await readFile(file);
          const packed = await pack(data);
          return worthIt(data, packed) ? packed : null;
        })
        .catch(() => null);
      // An older version of the same file is dropped.
      for (const old of this.entries.keys()) if (old.startsWith(`${encoding}:${file}:`)) this.entries.delete(old);
      this.entries.set(key, entry);
    }
    return entry;
  }
}
