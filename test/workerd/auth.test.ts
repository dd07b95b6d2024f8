/**
 * Auth on the production path. The Worker as the deploy guide now sets it up: no JWT secret at all. Visitor tokens are signed by Supabase
 * Auth with an asymmetric key (ES256) and verified against the project's JWKS, which the Worker finds from
 * SUPABASE_URL by default, with the issuer checked against <SUPABASE_URL>/auth/v1 by default. Refresh is
 * relayed to Supabase Auth (same user, token used once; Supabase Auth keeps the families and revokes on
 * reuse); sign-ups and refreshes are limited per CF-Connecting-IP network (an IPv6 client by its /64) by the
 * rate-limiting bindings of wrangler.toml.
 */
import { sign } from 'hono/jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnonymousAuth } from '../../protocol/index.ts';
import { seedKb } from '../../server/testing/api.ts';
import { readChatEvents } from '../../protocol/sse.ts';
import { basis } from '../../server/testing/vectors.ts';
import { SECRET, startWorker, type WorkerHarness } from './harness.ts';
import { clearOfWindowEdge } from '../../server/testing/rate-window.ts';

let harness: WorkerHarness;

beforeAll(async () => {
  // KB_JWT_SECRET '' unsets the harness's default: the Worker holds nothing that can sign a token.
  harness = await startWorker({ KB_JWT_SECRET: '' }, { signingKeys: 'asymmetric' });
  await seedKb(harness.pg);
});
afterAll(() => harness?.close());

const ask = (token: string) =>
  harness.worker('/api/chat', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ embedding: basis(0), message: 'How do refunds work?', message_id: crypto.randomUUID() }),
  });

it('answers a visitor whose ES256 token it verified with the JWKS at <SUPABASE_URL>/auth/v1, fetched once', async () => {
  const auth = (await (await harness.worker('/api/auth/anonymous', { method: 'POST' })).json()) as AnonymousAuth;

  const header = JSON.parse(Buffer.from(auth.access_token.split('.')[0]!, 'base64url').toString()) as { alg: string };
  expect(header.alg).toBe('ES256');
  for (let i = 0; i < 2; i++) {
    const res = await ask(auth.access_token);
    expect(res.status).toBe(200);
    expect((await readChatEvents(res)).map((e) => e.event.event)).toContain('answer_end');
  }
  expect(harness.supabase.log.filter((e) => e.path === '/auth/v1/.well-known/jwks.json')).toHaveLength(1);
});

it('refuses an HS256 token signed with the legacy secret it does not hold, and a token from another issuer', async () => {
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: crypto.randomUUID(), role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 600 };
  const legacy = await sign({ ...claims, iss: `${harness.supabase.url}/auth/v1` }, SECRET, 'HS256');
  expect((await ask(legacy)).status).toBe(401);
  const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
  ])) as CryptoKeyPair;
  const foreign = await sign(
    { ...claims, iss: 'https://evil.example/auth/v1' },
    { ...(await crypto.subtle.exportKey('jwk', pair.privateKey)), kid: 'x', alg: 'ES256' } as never,
    'ES256',
  );
  expect((await ask(foreign)).status).toBe(401);
});

it('answers with nosniff and a referrer policy, on JSON, the event stream and the static assets alike', async () => {
  const auth = (await (await harness.worker('/api/auth/anonymous', { method: 'POST' })).json()) as AnonymousAuth;
  const responses = [
    await harness.worker('/api/health'),
    await harness.worker('/api/nope'),
    await ask(auth.access_token),
    await harness.worker('/kb-chat.js'),
  ];
  expect(responses.map((r) => r.status)).toEqual([200, 404, 200, 200]);
  for (const res of responses) {
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    await res.arrayBuffer();
  }
});

const signUp = (ip: string) =>
  harness.worker('/api/auth/anonymous', { method: 'POST', headers: { 'CF-Connecting-IP': ip } });

it('renews a token through Supabase Auth for the same user; the refresh token works once', async () => {
  const first = (await (await signUp('192.0.2.10')).json()) as AnonymousAuth;
  expect(first.refresh_token).toBeTruthy();
  const refresh = (token: string | undefined) =>
    harness.worker('/api/auth/refresh', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ refresh_token: token }),
    });
  const renewed = await refresh(first.refresh_token);
  expect(renewed.status).toBe(200);
  const second = (await renewed.json()) as AnonymousAuth;
  expect(second.user_id).toBe(first.user_id);
  expect((await ask(second.access_token)).status).toBe(200);
  expect((await refresh(first.refresh_token)).status).toBe(401);
  expect((await refresh(undefined)).status).toBe(400);
});

it('limits anonymous sign-ups per CF-Connecting-IP (wrangler.toml: 5 a minute); another address is not affected', async () => {
  await clearOfWindowEdge(60);
  const users = async () => (await harness.pg.db.query('select 1 from auth.users')).rows.length;
  const before = await users();
  const statuses: number[] = [];
  for (let i = 0; i < 7; i++) {
    const res = await signUp('203.0.113.7');
    statuses.push(res.status);
    if (res.status === 429) expect(res.headers.get('Retry-After')).toBe('60');
    await res.arrayBuffer();
  }
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
  expect(await users()).toBe(before + 5);
  expect((await signUp('203.0.113.8')).status).toBe(200);
});

describe('with Turnstile before sign-ups (KB_CAPTCHA_SITE_KEY; Supabase Auth checks the token)', () => {
  let guarded: WorkerHarness;
  beforeAll(async () => {
    guarded = await startWorker({ KB_CAPTCHA_SITE_KEY: '0x4AAA-test-site-key' }, { captcha: true });
  });
  afterAll(() => guarded?.close());

  const signUpWith = (body?: unknown) =>
    guarded.worker('/api/auth/anonymous', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('tells the widget the site key and script, and relays the token to Supabase Auth', async () => {
    const config = (await (await guarded.worker('/api/config')).json()) as { captcha?: object };
    expect(config.captcha).toEqual({
      provider: 'turnstile',
      site_key: '0x4AAA-test-site-key',
      script_url: 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit',
    });
    const users = async () => (await guarded.pg.db.query('select 1 from auth.users')).rows.length;
    const before = await users();
    expect((await signUpWith()).status).toBe(400);
    const refused = await signUpWith({ captcha_token: 'forged' });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    expect(await users()).toBe(before);
    expect((await signUpWith({ captcha_token: 'turnstile-ok-1' })).status).toBe(200);
    expect(await users()).toBe(before + 1);
  });
});

it('counts an IPv6 client by its /64 for sign-ups: five addresses of one /64 share the 5; the next /64 is not affected', async () => {
  await clearOfWindowEdge(60);
  const statuses: number[] = [];
  for (let i = 1; i <= 6; i++) {
    const res = await signUp(`2001:db8:66:1::${i}`);
    statuses.push(res.status);
    await res.arrayBuffer();
  }
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  expect((await signUp('2001:db8:66:2::1')).status).toBe(200);
});

it('limits refreshes per client network (wrangler.toml REFRESH_LIMITER: 60 a minute) before Supabase Auth is asked', async () => {
  await clearOfWindowEdge(60);
  const refreshFrom = (ip: string, token: string) =>
    harness.worker('/api/auth/refresh', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': ip },
      body: JSON.stringify({ refresh_token: token }),
    });
  const relayed = () =>
    harness.supabase.log.filter((e) => e.path.startsWith('/auth/v1/token?grant_type=refresh_token')).length;
  const before = relayed();
  const statuses: number[] = [];
  for (let i = 1; i <= 62; i++) {
    const res = await refreshFrom(`2001:db8:88:1::${i}`, `made-up-${i}`);
    statuses.push(res.status);
    if (res.status === 429) expect(res.headers.get('Retry-After')).toBe('60');
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    await res.arrayBuffer();
  }
  expect(statuses.filter((s) => s === 401)).toHaveLength(60);
  expect(statuses.slice(60)).toEqual([429, 429]);
  expect(relayed() - before).toBe(60);
  expect((await refreshFrom('2001:db8:88:2::1', 'made-up')).status).toBe(401);
});

describe('with a legacy KB_JWT_SECRET shorter than 32 bytes', () => {
  let weak: WorkerHarness;
  beforeAll(async () => {
    weak = await startWorker({ KB_JWT_SECRET: 'too-short-secret-0123456789' });
  });
  afterAll(() => weak?.close());

  it('serves no API request: the app is never built with it (the error, logged, says how to make one)', async () => {
    const res = await weak.worker('/api/health');
    expect(res.status).toBe(500);
    // Miniflare shows the uncaught error (Cloudflare logs it and answers its own error page).
    const text = await res.text();
    expect(text).not.toContain('"status":"ok"');
    expect(text).toContain('KB_JWT_SECRET is 27 bytes long');
    expect(text).toContain('openssl rand -base64 32');
    // A token signed with the weak secret gets nowhere either.
    const now = Math.floor(Date.now() / 1000);
    const forged = await sign(
      { sub: crypto.randomUUID(), role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 600 },
      'too-short-secret-0123456789',
      'HS256',
    );
    const chat = await weak.worker('/api/sessions', { headers: { Authorization: `Bearer ${forged}` } });
    expect(chat.status).toBe(500);
    await chat.arrayBuffer();
  });
});
