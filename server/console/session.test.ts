/**
 * The one-time sign-in link is one-time however it is spelled. An HS256 signature is 32 bytes: 43 base64url
 * characters whose last one carries 4 bits of the signature and 2 spare bits the decoder ignores, and the
 * decoder also accepts a trailing `=`. So one signed link has 4 × 2 = 8 spellings that all verify.
 */
import { verify } from 'hono/jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody } from '../../protocol/index.ts';
import { MemoryClientLimiter } from '../http/client-limit.ts';
import { startNodeServer } from '../runtime/node/server.ts';
import { createTestApi, TEST_SECRET, type TestApi } from '../testing/api.ts';
import { createLinkToken } from './session.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Every spelling of `token`'s signature: the 4 values of the last character's spare bits, each with and without `=`. */
function reencodings(token: string): string[] {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  expect(signature).toHaveLength(43);
  const last = ALPHABET.indexOf(signature.at(-1)!);
  const spellings: string[] = [];
  for (let spare = 0; spare < 4; spare++) {
    const body = `${signature.slice(0, -1)}${ALPHABET[(last & ~3) | spare]}`;
    for (const padding of ['', '=']) spellings.push(`${header}.${payload}.${body}${padding}`);
  }
  return spellings;
}

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api?.close());

const exchange = (link_token: string) =>
  api.app.request('/api/admin/session', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ link_token }),
  });

describe('POST /api/admin/session: a link signs in once, whichever of its spellings is used', () => {
  it('has 8 spellings that all verify (so the test below is not vacuous)', async () => {
    const link = await createLinkToken(TEST_SECRET);
    const spellings = reencodings(link);
    expect(new Set(spellings).size).toBe(8);
    expect(spellings).toContain(link);
    for (const spelling of spellings)
      await expect(verify(spelling, TEST_SECRET, { alg: 'HS256', aud: 'kb-chat-admin-link' })).resolves.toBeTruthy();
  });

  it('the first use signs in; then all 8 spellings of that link are refused', async () => {
    const link = await createLinkToken(TEST_SECRET);
    const first = await exchange(link);
    expect(first.status).toBe(200);
    expect(((await first.json()) as { access_token: string }).access_token).toBeTruthy();
    const statuses = [];
    for (const spelling of reencodings(link)) statuses.push((await exchange(spelling)).status);
    expect(statuses).toEqual(Array(8).fill(401));
  });

  it('a re-spelled link used first uses up the original too', async () => {
    const link = await createLinkToken(TEST_SECRET);
    const padded = `${link}=`;
    expect((await exchange(padded)).status).toBe(200);
    expect((await exchange(link)).status).toBe(401);
    const { rows } = await api.store.db.query<{ jti: string }>('select jti from auth.admin_link_uses');
    const { jti } = JSON.parse(Buffer.from(link.split('.')[1]!, 'base64url').toString()) as { jti: string };
    expect(rows.map((r) => r.jti)).toContain(jti);
  });
});

describe('sign-in attempts per client network (both routes, one budget)', () => {
  it('answers 429 rate_limited with Retry-After past the limit, before the link is looked at; another client is not affected', async () => {
    const app = api.instance({
      admin: {
        signInLimiter: new MemoryClientLimiter(3, 60),
        passwordSignIn: async () => ({ access_token: 'x', expires_in: 1 }),
      },
      clientIp: (c) => c.req.header('X-Test-Client') ?? null,
    });
    const attempt = (path: string, body: unknown, ip: string) =>
      app.request(`/api/admin/${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Test-Client': ip },
        body: JSON.stringify(body),
      });
    const statuses = [
      (await attempt('session', { link_token: 'forged' }, '2001:db8:9:9::1')).status,
      (await attempt('password', { email: 'a@b.co', password: 'guess' }, '2001:db8:9:9::2')).status,
      (await attempt('session', { link_token: 'forged' }, '2001:db8:9:9::3')).status,
    ];
    expect(statuses).toEqual([401, 200, 401]);
    // A valid, unused link is refused too once the client is over its budget (and stays unused).
    const link = await createLinkToken(TEST_SECRET);
    for (const [path, body] of [
      ['session', { link_token: link }],
      ['password', { email: 'a@b.co', password: 'guess' }],
    ] as const) {
      const refused = await attempt(path, body, '2001:db8:9:9::4');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
      expect(Number(refused.headers.get('Retry-After'))).toBeLessThanOrEqual(60);
      expect(((await refused.json()) as ErrorBody).error.code).toBe('rate_limited');
    }
    expect((await attempt('session', { link_token: link }, '2001:db8:9:10::1')).status).toBe(200);
  });

  it('on a real Node server, counts the socket address whatever X-Forwarded-For says', async () => {
    const { url, shutdown } = await startNodeServer({
      store: api.store,
      localAuth: api.store,
      jwtSecret: TEST_SECRET,
      evidenceThreshold: 0.35,
      embedModel: 'test-model',
      admin: { signInLimiter: new MemoryClientLimiter(2, 60) },
      modelDir: '/nonexistent',
      port: 0,
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await fetch(`${url}api/admin/session`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': `203.0.113.${i}` },
          body: JSON.stringify({ link_token: 'forged' }),
        });
        statuses.push(res.status);
        expect(res.headers.get('Cache-Control')).toBe('no-store');
        await res.arrayBuffer();
      }
      expect(statuses).toEqual([401, 401, 429, 429]);
    } finally {
      await shutdown(0);
    }
  });
});
