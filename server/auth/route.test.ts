/**
 * Sign-up and refresh on the embedded path: the refresh keeps the user (so their history), is used once, and
 * is validated like every body; sign-ups are limited per client address — the socket's, on a real Node
 * server, whatever X-Forwarded-For or CF-Connecting-IP a client writes.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnonymousAuth, ErrorBody } from '../../protocol/index.ts';
import { startNodeServer } from '../runtime/node/server.ts';
import { createTestApi, TEST_SECRET, type TestApi } from '../testing/api.ts';
import { turnstileConfig, turnstileVerifier } from './captcha.ts';
import { MemoryClientLimiter } from '../http/client-limit.ts';
import { TOKEN_TTL_SECONDS, verifyAccessToken } from './jwt.ts';

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api?.close());

const post = (path: string, body?: unknown) =>
  api.app.request(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });

describe('POST /api/auth/refresh (embedded)', () => {
  it('renews the token for the same user, who still sees their sessions; the refresh token works once', async () => {
    const first = (await (await post('/api/auth/anonymous')).json()) as AnonymousAuth;
    expect(first.expires_in).toBe(TOKEN_TTL_SECONDS);
    expect(first.refresh_token).toMatch(/^[\w-]{43}$/);
    const claims = await verifyAccessToken(first.access_token, TEST_SECRET);
    await api.store.beginTurn(claims, { message_id: crypto.randomUUID(), content: 'hello', title: 'hello' });

    const renewed = await post('/api/auth/refresh', { refresh_token: first.refresh_token });
    expect(renewed.status).toBe(200);
    const second = (await renewed.json()) as AnonymousAuth;
    expect(second.user_id).toBe(first.user_id);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const sessions = await api.app.request('/api/sessions', {
      headers: { Authorization: `Bearer ${second.access_token}` },
    });
    expect(((await sessions.json()) as { sessions: { title: string }[] }).sessions.map((s) => s.title)).toEqual([
      'hello',
    ]);

    const again = await post('/api/auth/refresh', { refresh_token: first.refresh_token });
    expect(again.status).toBe(401);
    expect(((await again.json()) as ErrorBody).error.code).toBe('unauthorized');
    // Stored hashed: the database holds no usable token.
    const { rows } = await api.store.db.query<{ token_hash: string }>('select token_hash from auth.refresh_tokens');
    expect(rows.map((r) => r.token_hash)).not.toContain(second.refresh_token);
  });

  it.each([
    ['no body', undefined, 'body: must be JSON.'],
    ['no token', {}, 'refresh_token: '],
    ['a number', { refresh_token: 42 }, 'refresh_token: '],
    ['an empty token', { refresh_token: '' }, 'refresh_token: must not be empty'],
    ['a huge token', { refresh_token: 'x'.repeat(513) }, 'refresh_token: must be at most 512 characters'],
  ])('answers 400 naming the field for %s', async (_, body, message) => {
    const res = await post('/api/auth/refresh', body);
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as ErrorBody;
    expect(error.code).toBe('invalid_request');
    expect(error.message.startsWith(message)).toBe(true);
  });

  it('answers 401 for an unknown refresh token', async () => {
    expect((await post('/api/auth/refresh', { refresh_token: 'made-up-token' })).status).toBe(401);
  });
});

describe('anonymous sign-ups per client address (a real Node server)', () => {
  it('counts the socket address, not X-Forwarded-For or CF-Connecting-IP, and answers 429 with Retry-After', async () => {
    const { url, shutdown } = await startNodeServer({
      store: api.store,
      localAuth: api.store,
      jwtSecret: TEST_SECRET,
      evidenceThreshold: 0.35,
      embedModel: 'test-model',
      signupLimiter: new MemoryClientLimiter(2, 3600),
      modelDir: '/nonexistent',
      port: 0,
    });
    try {
      const users = (await api.store.db.query('select 1 from auth.users')).rows.length;
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await fetch(`${url}api/auth/anonymous`, {
          method: 'POST',
          headers: {
            'X-Forwarded-For': `203.0.113.${i}`,
            'CF-Connecting-IP': `198.51.100.${i}`,
            'X-Real-IP': `192.0.2.${i}`,
          },
        });
        statuses.push(res.status);
        if (res.status === 429) {
          expect(Number(res.headers.get('Retry-After'))).toBeGreaterThan(0);
          expect(((await res.json()) as ErrorBody).error.code).toBe('rate_limited');
        } else await res.arrayBuffer();
      }
      expect(statuses).toEqual([200, 200, 429, 429]);
      // A refused sign-up created no user.
      expect((await api.store.db.query('select 1 from auth.users')).rows.length).toBe(users + 2);
    } finally {
      await shutdown(0);
    }
  });

  it('forgets the oldest window before it grows past its bound, and opens a new window when one ends', async () => {
    const clock = { t: 0 };
    const limiter = new MemoryClientLimiter(1, 60, () => clock.t, 3);
    for (const ip of ['a', 'b', 'c', 'd']) expect(await limiter.hit(ip)).toEqual({ allowed: true });
    // 'a' was forgotten when 'd' came (the map held 3): it may sign up again; 'd' may not.
    expect(await limiter.hit('a')).toEqual({ allowed: true });
    expect(await limiter.hit('d')).toEqual({ allowed: false, retryAfter: 60 });
    clock.t += 60_000;
    expect(await limiter.hit('d')).toEqual({ allowed: true });
  });
});

describe('anonymous sign-ups per client network: IPv6 by its /64', () => {
  it('two addresses in one /64 share a limit; another /64 does not; IPv4-mapped IPv6 counts as the IPv4 address', async () => {
    const app = api.instance({
      signupLimiter: new MemoryClientLimiter(2, 3600),
      clientIp: (c) => c.req.header('X-Test-Client') ?? null,
    });
    const signUp = async (ip: string) =>
      (await app.request('/api/auth/anonymous', { method: 'POST', headers: { 'X-Test-Client': ip } })).status;
    expect([
      await signUp('2001:db8:1:2::1'),
      await signUp('2001:db8:1:2::2'),
      await signUp('2001:db8:1:2:ffff::3'),
    ]).toEqual([200, 200, 429]);
    expect(await signUp('2001:db8:1:3::1')).toBe(200);
    expect([await signUp('192.0.2.50'), await signUp('::ffff:192.0.2.50'), await signUp('192.0.2.50')]).toEqual([
      200, 200, 429,
    ]);
    expect(await signUp('192.0.2.51')).toBe(200);
  });
});

describe('Turnstile before sign-ups (embedded: KB_CAPTCHA_SITE_KEY and KB_CAPTCHA_SECRET)', () => {
  // Cloudflare's siteverify cannot be reached from here: a local stand-in answers as it documents
  // (form fields secret, response, remoteip; JSON {success}). The boundary is faked, the code path is real.
  it('requires a token, checks it with siteverify (secret, token, client address) and creates no user when it fails', async () => {
    const received: URLSearchParams[] = [];
    const siteverify = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        received.push(form);
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ success: form.get('response') === 'good-token', 'error-codes': [] }));
      });
    });
    await new Promise<void>((resolve) => siteverify.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(siteverify.address() as AddressInfo).port}/turnstile/v0/siteverify`;
    try {
      const app = api.instance({
        captcha: {
          config: turnstileConfig('site-key-1'),
          verify: turnstileVerifier({ secret: 'turnstile-secret', url }),
        },
        clientIp: () => '203.0.113.9',
      });
      const config = (await (await app.request('/api/config')).json()) as { captcha: { site_key: string } };
      expect(config.captcha.site_key).toBe('site-key-1');
      const signUp = (body?: unknown) =>
        app.request('/api/auth/anonymous', {
          method: 'POST',
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const users = async () => (await api.store.db.query('select 1 from auth.users')).rows.length;
      const before = await users();

      const missing = await signUp();
      expect(missing.status).toBe(400);
      expect(((await missing.json()) as ErrorBody).error.message).toMatch(/^captcha_token: /);
      expect((await signUp({ captcha_token: 42 })).status).toBe(400);
      expect((await signUp({ captcha_token: 'bad-token' })).status).toBe(403);
      expect(await users()).toBe(before);
      expect((await signUp({ captcha_token: 'good-token' })).status).toBe(200);
      expect(await users()).toBe(before + 1);
      expect(received.map((f) => Object.fromEntries(f))).toEqual([
        { secret: 'turnstile-secret', response: 'bad-token', remoteip: '203.0.113.9' },
        { secret: 'turnstile-secret', response: 'good-token', remoteip: '203.0.113.9' },
      ]);
    } finally {
      siteverify.close();
    }
  });
});
