/**
 * `Cache-Control: no-store` on everything under /api/admin (successes, refusals, errors, not-found) and on
 * the sign-in and refresh answers that carry tokens: no browser or shared cache keeps an admin's data or a
 * visitor's token.
 */
import { sign } from 'hono/jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnonymousAuth } from '../protocol/index.ts';
import { createLinkToken } from './console/session.ts';
import { createTestApi, TEST_SECRET, type TestApi } from './testing/api.ts';

let api: TestApi;
let admin: string;
let visitor: AnonymousAuth;
beforeAll(async () => {
  api = await createTestApi();
  const now = Math.floor(Date.now() / 1000);
  admin = await sign(
    {
      sub: await api.store.createAnonymousUser(),
      role: 'authenticated',
      aud: 'authenticated',
      app_metadata: { role: 'admin' },
      iat: now,
      exp: now + 600,
    },
    TEST_SECRET,
    'HS256',
  );
  visitor = (await (await api.app.request('/api/auth/anonymous', { method: 'POST' })).json()) as AnonymousAuth;
});
afterAll(() => api?.close());

const request = (method: string, path: string, token: string | null, body?: string) =>
  api.app.request(path, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body }),
  });

describe('Cache-Control: no-store', () => {
  it('on every admin response: success, 400, 401, 403, 404, 413 and sign-in', async () => {
    const cases: [string, string, string | null, string | undefined, number][] = [
      ['GET', '/api/admin/me', admin, undefined, 200],
      ['GET', '/api/admin/gaps?status=open', admin, undefined, 200],
      ['GET', '/api/admin/settings', admin, undefined, 200],
      ['PUT', '/api/admin/gaps', admin, '{}', 400],
      ['GET', '/api/admin/conversations', null, undefined, 401],
      ['GET', '/api/admin/documents', visitor.access_token, undefined, 403],
      ['GET', '/api/admin/nope', admin, undefined, 404],
      ['PUT', '/api/admin/settings', admin, JSON.stringify({ greeting: 'x'.repeat(70_000) }), 413],
      ['POST', '/api/admin/session', null, JSON.stringify({ link_token: await createLinkToken(TEST_SECRET) }), 200],
      ['POST', '/api/admin/session', null, JSON.stringify({ link_token: 'forged' }), 401],
      ['POST', '/api/admin/password', null, JSON.stringify({ email: 'a@b.co', password: 'x' }), 404],
    ];
    for (const [method, path, token, body, status] of cases) {
      const res = await request(method, path, token, body);
      expect([method, path, res.status]).toEqual([method, path, status]);
      expect([method, path, res.headers.get('Cache-Control')]).toEqual([method, path, 'no-store']);
    }
  });

  it('on the token answers of sign-up and refresh, and their refusals', async () => {
    const responses = [
      await request('POST', '/api/auth/anonymous', null),
      await request('POST', '/api/auth/refresh', null, JSON.stringify({ refresh_token: visitor.refresh_token })),
      await request('POST', '/api/auth/refresh', null, JSON.stringify({ refresh_token: 'unknown' })),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 200, 401]);
    for (const res of responses) expect(res.headers.get('Cache-Control')).toBe('no-store');
  });
});
