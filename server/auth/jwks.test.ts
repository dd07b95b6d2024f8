/**
 * The JWKS cache against a real HTTP key server that counts its requests, fails, hangs or rotates keys on
 * demand: tokens must not turn into requests to the key server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAILURE_TTL_MS, JwksCache, REFETCH_MIN_MS, TTL_MS } from './jwks.ts';

let server: Server;
let url: string;
let requests = 0;
let mode: 'ok' | 'fail' | 'hang' = 'ok';
let kids = ['k1'];
let delayMs = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    requests += 1;
    if (mode === 'hang') return; // never answers
    setTimeout(() => {
      if (mode === 'fail') {
        res.writeHead(503).end();
        return;
      }
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ keys: kids.map((kid) => ({ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid })) }));
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
beforeEach(() => {
  requests = 0;
  mode = 'ok';
  kids = ['k1'];
  delayMs = 0;
});

/** A cache on a clock the test moves. */
function cache(timeoutMs = 3000) {
  const clock = { t: 1_000_000 };
  return { clock, jwks: new JwksCache({ now: () => clock.t, timeoutMs }) };
}

describe('JwksCache', () => {
  it('fetches once for a burst of tokens (single flight), then serves from the cache until the TTL', async () => {
    const { clock, jwks } = cache();
    delayMs = 50;
    const all = await Promise.all(Array.from({ length: 20 }, () => jwks.keys(url, 'k1')));
    expect(all.every((keys) => keys[0]!.kid === 'k1')).toBe(true);
    expect(requests).toBe(1);
    clock.t += TTL_MS - 1;
    await jwks.keys(url, 'k1');
    expect(requests).toBe(1);
    clock.t += 2;
    await jwks.keys(url, 'k1');
    expect(requests).toBe(2);
  });

  it('refetches for an unknown kid (rotated keys), at most once per REFETCH_MIN_MS', async () => {
    const { clock, jwks } = cache();
    await jwks.keys(url, 'k1');
    // Right after a fetch, a made-up kid costs nothing.
    for (let i = 0; i < 10; i++) await jwks.keys(url, `made-up-${i}`);
    expect(requests).toBe(1);
    kids = ['k1', 'k2'];
    clock.t += REFETCH_MIN_MS;
    expect((await jwks.keys(url, 'k2')).map((k) => k.kid)).toEqual(['k1', 'k2']);
    expect(requests).toBe(2);
    for (let i = 0; i < 10; i++) await jwks.keys(url, `made-up-${i}`);
    expect(requests).toBe(2);
  });

  it('remembers a failure for FAILURE_TTL_MS: tokens meanwhile fail at once, without a request', async () => {
    const { clock, jwks } = cache();
    mode = 'fail';
    await expect(jwks.keys(url, 'k1')).rejects.toThrow(/answered 503/);
    for (let i = 0; i < 10; i++) await expect(jwks.keys(url, 'k1')).rejects.toThrow(/answered 503/);
    expect(requests).toBe(1);
    mode = 'ok';
    clock.t += FAILURE_TTL_MS;
    expect((await jwks.keys(url, 'k1'))[0]!.kid).toBe('k1');
    expect(requests).toBe(2);
  });

  it('keeps using the keys it has while the key server fails (stale if error)', async () => {
    const { clock, jwks } = cache();
    await jwks.keys(url, 'k1');
    mode = 'fail';
    clock.t += TTL_MS;
    expect((await jwks.keys(url, 'k1'))[0]!.kid).toBe('k1');
    expect((await jwks.keys(url, 'k1'))[0]!.kid).toBe('k1');
    expect(requests).toBe(2);
  });

  it('gives up on a key server that does not answer after its timeout', async () => {
    const { jwks } = cache(200);
    mode = 'hang';
    await expect(jwks.keys(url, 'k1')).rejects.toThrow(/timeout|aborted/i);
    expect(requests).toBe(1);
  });
});
