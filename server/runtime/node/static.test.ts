import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMMUTABLE, OnTheFly, REVALIDATE, negotiateEncoding, serveFiles } from './static.ts';

describe('negotiateEncoding', () => {
  it('prefers brotli, falls back to gzip, and honours q=0 and *', () => {
    expect(negotiateEncoding('gzip, deflate, br, zstd')).toBe('br');
    expect(negotiateEncoding('gzip')).toBe('gzip');
    expect(negotiateEncoding('br;q=0, gzip;q=0.5')).toBe('gzip');
    expect(negotiateEncoding('*')).toBe('br');
    expect(negotiateEncoding('*, br;q=0')).toBe('gzip');
    expect(negotiateEncoding('identity')).toBe(null);
    expect(negotiateEncoding('')).toBe(null);
    expect(negotiateEncoding(undefined)).toBe(null);
  });
});

describe('serveFiles', () => {
  /** The served folder is `<outer>/public`; `<outer>/secret.txt` is what a `..` must never reach. */
  let outer: string;
  let root: string;
  let app: Hono;
  const js = 'export const answer = 42;\n'.repeat(200);
  const noise = randomBytes(64 * 1024);

  beforeAll(async () => {
    outer = await mkdtemp(join(tmpdir(), 'kb-static-'));
    root = join(outer, 'public');
    await writeFile(join(outer, 'secret.txt'), 'top secret');
    await mkdir(join(root, 'sub'), { recursive: true });
    // A .br left by an earlier build: older than the file it once compressed.
    await writeFile(join(root, 'stale.js.br'), brotliCompressSync('old bytes'));
    await writeFile(join(root, 'stale.js'), js);
    await utimes(join(root, 'stale.js.br'), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    await writeFile(join(root, 'app.js'), js);
    // Precompressed by "the build": marked so the test can tell them from on-the-fly output.
    await writeFile(join(root, 'app.js.br'), brotliCompressSync(`${js}// br\n`));
    await writeFile(join(root, 'app.js.gz'), gzipSync(`${js}// gz\n`));
    await writeFile(
      join(root, 'sub', 'tokenizer.json'),
      JSON.stringify({ vocab: Array.from({ length: 500 }, (_, i) => `word${i}`) }),
    );
    await writeFile(join(root, 'sub', 'model.onnx'), noise);
    await writeFile(join(root, 'picture.png'), 'not compressible by type');
    app = new Hono();
    app.use(
      '/files/*',
      serveFiles({
        root,
        rewrite: (path) => path.slice('/files'.length),
        cacheControl: (path) => (path.endsWith('.js') ? REVALIDATE : IMMUTABLE),
        onTheFly: new OnTheFly(),
      }),
    );
    app.use('/files/*', async (c) => c.text('fell through', 404));
  });
  afterAll(() => rm(outer, { recursive: true, force: true }));

  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    app.request(path, { method, headers });

  it("sends the build's .br or .gz when accepted, with Vary, ETag, length and the caller's Cache-Control", async () => {
    const br = await get('/files/app.js', { 'Accept-Encoding': 'gzip, br' });
    expect(br.status).toBe(200);
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toBe('Accept-Encoding');
    expect(br.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(br.headers.get('cache-control')).toBe(REVALIDATE);
    const body = Buffer.from(await br.arrayBuffer());
    expect(br.headers.get('content-length')).toBe(String(body.length));
    expect(brotliDecompressSync(body).toString()).toBe(`${js}// br\n`);

    const gz = await get('/files/app.js', { 'Accept-Encoding': 'gzip' });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString()).toBe(`${js}// gz\n`);
    // One ETag per representation: a cache must not answer a gzip request with the brotli bytes.
    expect(gz.headers.get('etag')).not.toBe(br.headers.get('etag'));

    const plain = await get('/files/app.js');
    expect(plain.headers.get('content-encoding')).toBe(null);
    expect(plain.headers.get('vary')).toBe('Accept-Encoding');
    expect(await plain.text()).toBe(js);
  });

  it('answers a matching If-None-Match with 304 and no body', async () => {
    const first = await get('/files/app.js', { 'Accept-Encoding': 'br' });
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+-br"$/);
    const again = await get('/files/app.js', { 'Accept-Encoding': 'br', 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe(REVALIDATE);
    expect((await get('/files/app.js', { 'Accept-Encoding': 'br', 'If-None-Match': `W/${etag}` })).status).toBe(304);
    expect((await get('/files/app.js', { 'Accept-Encoding': 'br', 'If-None-Match': '"other"' })).status).toBe(200);
    // The gzip representation has another tag: the brotli one does not validate it.
    expect((await get('/files/app.js', { 'Accept-Encoding': 'gzip', 'If-None-Match': etag })).status).toBe(200);
  });

  it('compresses other files once on request, and sends incompressible ones as they are', async () => {
    const json = await get('/files/sub/tokenizer.json', { 'Accept-Encoding': 'br' });
    expect(json.headers.get('content-encoding')).toBe('br');
    expect(json.headers.get('cache-control')).toBe(IMMUTABLE);
    const text = brotliDecompressSync(Buffer.from(await json.arrayBuffer())).toString();
    expect(JSON.parse(text).vocab).toHaveLength(500);

    const model = await get('/files/sub/model.onnx', { 'Accept-Encoding': 'br, gzip' });
    expect(model.headers.get('content-encoding')).toBe(null);
    expect(model.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await model.arrayBuffer()).equals(noise)).toBe(true);

    const png = await get('/files/picture.png', { 'Accept-Encoding': 'br' });
    expect(png.headers.get('content-encoding')).toBe(null);
    expect(png.headers.get('vary')).toBe(null);
  });

  it("ignores a precompressed file older than the file itself (an earlier build's), compressing the current bytes", async () => {
    const res = await get('/files/stale.js', { 'Accept-Encoding': 'br' });
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(brotliDecompressSync(Buffer.from(await res.arrayBuffer())).toString()).toBe(js);
  });

  it('answers HEAD with the headers only, and never serves outside its folder', async () => {
    const head = await get('/files/app.js', { 'Accept-Encoding': 'br' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-encoding')).toBe('br');
    expect(await head.text()).toBe('');
    // Encoded slashes survive URL parsing and reach the file lookup as `..`: the folder's guard refuses them.
    for (const path of [
      '/files/..%2fsecret.txt',
      '/files/sub/..%2f..%2fsecret.txt',
      '/files/%2e%2e%2fsecret.txt',
      '/files/missing.js',
      '/files/sub',
      '/files/%E0%A4%A',
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).toBe('fell through');
      expect(res.headers.get('cache-control'), path).toBe(null);
    }
    expect((await app.request('/files/app.js', { method: 'POST' })).status).toBe(404);
  });
});
