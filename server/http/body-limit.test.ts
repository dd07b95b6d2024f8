import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredBodyLimit } from './body-limit.ts';

const LIMIT = 100;

function app() {
  const a = new Hono();
  a.use('*', declaredBodyLimit({ maxSize: LIMIT, onError: (c) => c.json({ error: 'too large' }, 413) }));
  a.post('/', async (c) => {
    const built = webRequestBuilt(c.req.raw);
    return c.json({ got: (await c.req.raw.text()).length, built });
  });
  a.get('/', (c) => c.json({ ok: true }));
  return a;
}

/**
 * Whether @hono/node-server has built the web Request behind its lightweight one (it keeps it under a
 * symbol named `requestCache`): what reading `.body` does, and what this middleware avoids.
 */
function webRequestBuilt(request: Request): boolean {
  const key = Object.getOwnPropertySymbols(request).find((s) => s.description === 'requestCache');
  return key !== undefined && (request as unknown as Record<symbol, unknown>)[key] !== undefined;
}

/** A body of undeclared length: a stream, so neither fetch nor Hono knows its size in advance. */
function streamed(text: string): RequestInit {
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.subarray(0, 10));
      controller.enqueue(bytes.subarray(10));
      controller.close();
    },
  });
  return { method: 'POST', body, duplex: 'half' } as RequestInit;
}

describe('declaredBodyLimit', () => {
  it('compares a declared length with the limit, as Hono does', async () => {
    const ok = await app().request('/', { method: 'POST', body: 'x'.repeat(LIMIT) });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ got: LIMIT });
    const tooLarge = await app().request('/', { method: 'POST', body: 'x'.repeat(LIMIT + 1) });
    expect(tooLarge.status).toBe(413);
  });

  it('counts the bytes of a body of undeclared length', async () => {
    expect((await app().request('/', streamed('y'.repeat(LIMIT)))).status).toBe(200);
    expect((await app().request('/', streamed('y'.repeat(LIMIT + 1)))).status).toBe(413);
  });

  it('lets a request without a body through', async () => {
    expect((await app().request('/')).status).toBe(200);
  });
});

describe('declaredBodyLimit on @hono/node-server', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer(getRequestListener(app().fetch));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (body: string, headers: Record<string, string>) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/', headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });

  it('leaves a declared body to the route, unread, and refuses one declared too large', async () => {
    const ok = await post('z'.repeat(LIMIT), { 'Content-Length': String(LIMIT) });
    // Hono's own middleware builds the web Request here (built: true); read directly, the body costs less.
    expect(ok).toEqual({ status: 200, body: JSON.stringify({ got: LIMIT, built: false }) });
    expect((await post('z'.repeat(LIMIT + 1), { 'Content-Length': String(LIMIT + 1) })).status).toBe(413);
  });

  it('counts a chunked body on the socket', async () => {
    expect((await post('z'.repeat(LIMIT), { 'Transfer-Encoding': 'chunked' })).status).toBe(200);
    expect((await post('z'.repeat(LIMIT + 1), { 'Transfer-Encoding': 'chunked' })).status).toBe(413);
  });
});
