/**
 * The console's API on the production path: the Worker bundle in workerd, supabase-js to the PostgREST-like
 * server over PGlite. An admin signs in with Supabase Auth's password grant (relayed by the Worker) and gets
 * a token whose app_metadata.role is admin; every admin endpoint answers 401 without a token and 403 to a
 * visitor; bodies and queries are validated; what a Worker cannot do (uploads, sign-in links) is said so;
 * the console page is a static asset with its CSP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AdminConversation,
  AdminThread,
  AdminDocument,
  AdminGap,
  AdminMe,
  AdminSession,
  AnonymousAuth,
  Overview,
  Page,
  TryResult,
} from '../../protocol/index.ts';
import { seedKb } from '../../server/testing/api.ts';
import { basis } from '../../server/testing/vectors.ts';
import { startWorker, type WorkerHarness } from './harness.ts';
import { clearOfWindowEdge } from '../../server/testing/rate-window.ts';

let harness: WorkerHarness;
let admin: string;
let visitor: string;

beforeAll(async () => {
  harness = await startWorker(
    {},
    {
      passwordUsers: [
        { email: 'owner@example.com', password: 'correct horse', appMetadata: { provider: 'email', role: 'admin' } },
        { email: 'editor@example.com', password: 'battery staple', appMetadata: { provider: 'email' } },
      ],
    },
  );
  await seedKb(harness.pg);
  visitor = ((await (await harness.worker('/api/auth/anonymous', { method: 'POST' })).json()) as AnonymousAuth)
    .access_token;
});
afterAll(() => harness?.close());

const call = (method: string, path: string, token: string | null, body?: unknown) =>
  harness.worker(`/api/admin${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const json = async <T>(res: Response | Promise<Response>) => (await (await res).json()) as T;

describe('sign-in with Supabase Auth', () => {
  it('relays the password grant; a wrong password is 401, a bad body 400, a link 404', async () => {
    const res = await call('POST', '/password', null, { email: 'owner@example.com', password: 'correct horse' });
    expect(res.status).toBe(200);
    admin = ((await res.json()) as AdminSession).access_token;
    expect(await json<AdminMe>(call('GET', '/me', admin))).toMatchObject({
      role: 'admin',
      capabilities: { upload: false, server_embedding: false, link_sign_in: false, password_sign_in: true },
    });
    expect((await call('POST', '/password', null, { email: 'owner@example.com', password: 'wrong' })).status).toBe(401);
    const bad = await call('POST', '/password', null, { email: 'not-an-email', password: 'x' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/^email: /);
    expect((await call('POST', '/session', null, { link_token: 'x' })).status).toBe(404);
    // A Supabase user without the admin role signs in, and is refused by every admin call.
    const editor = await json<AdminSession>(
      call('POST', '/password', null, { email: 'editor@example.com', password: 'battery staple' }),
    );
    expect((await call('GET', '/me', editor.access_token)).status).toBe(403);
  });
});

const ENDPOINTS: [string, string, unknown?][] = [
  ['GET', '/me'],
  ['GET', '/gaps?status=open'],
  ['PUT', '/gaps', { question_key: 'x', done: true }],
  ['GET', '/conversations'],
  ['GET', `/conversations/${crypto.randomUUID()}`],
  ['GET', '/documents'],
  ['PUT', `/documents/${crypto.randomUUID()}`, { enabled: false }],
  ['DELETE', `/documents/${crypto.randomUUID()}`],
  ['GET', '/overview'],
  ['POST', '/try', { message: 'How do refunds work?' }],
  ['POST', '/documents/url', { url: 'https://example.com/' }],
  ['GET', '/settings'],
  ['PUT', '/settings', { answer_mode: 'extractive' }],
];

describe('every admin endpoint in workerd', () => {
  it.each(ENDPOINTS)('%s %s: 401 without a token, 403 for a visitor', async (method, path, body) => {
    expect((await call(method, path, null, body)).status).toBe(401);
    expect((await call(method, path, visitor, body)).status).toBe(403);
  });

  it.each([
    ['GET', '/gaps?status=closed', undefined, /^status: /],
    ['GET', '/conversations?rating=meh', undefined, /^rating: /],
    ['GET', '/conversations?limit=999', undefined, /^limit: /],
    ['GET', '/documents?offset=x', undefined, /^offset: /],
    ['PUT', '/documents/nope', { enabled: true }, /^id: /],
    ['PUT', '/gaps', { question_key: 'x' }, /^done: /],
    ['GET', '/overview?from=tomorrow', undefined, /^from: /],
    ['POST', '/try', { message: '' }, /^message: /],
  ] as const)('%s %s: 400 naming the field', async (method, path, body, message) => {
    const res = await call(method, path, admin, body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(message);
  });

  it('does what the console needs, through the same SQL functions as on Node', async () => {
    const ask = (embedding: number[], message: string) =>
      harness.worker('/api/chat', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', Authorization: `Bearer ${visitor}` },
        body: JSON.stringify({ embedding, message, message_id: crypto.randomUUID() }),
      });
    expect(((await (await ask(basis(300), 'Do you ship to Mars?')).json()) as { type: string }).type).toBe('refusal');
    expect(((await (await ask(basis(0), 'How do refunds work?')).json()) as { type: string }).type).toBe('answer');

    const gaps = await json<Page<AdminGap>>(call('GET', '/gaps?status=open', admin));
    expect(gaps.items.map((g) => g.question_key)).toEqual(['do you ship to mars?']);
    expect((await call('PUT', '/gaps', admin, { question_key: 'do you ship to mars?', done: true })).status).toBe(200);
    expect((await json<Page<AdminGap>>(call('GET', '/gaps?status=open', admin))).total).toBe(0);

    const conversations = await json<Page<AdminConversation>>(call('GET', '/conversations', admin));
    expect(conversations.items.map((c) => [c.question, c.kind])).toEqual([
      ['How do refunds work?', 'answer'],
      ['Do you ship to Mars?', 'refusal'],
    ]);
    expect(conversations.items[0]!.visitor).toMatch(/^v-[0-9a-f]{10}$/);
    // The refused question's session read as a thread (admin_get_thread over PostgREST).
    const thread = await json<AdminThread>(call('GET', `/conversations/${conversations.items[1]!.session_id}`, admin));
    expect(thread.turns.map((t) => [t.question, t.kind, t.reason])).toEqual([
      ['Do you ship to Mars?', 'refusal', 'no_evidence'],
    ]);
    expect((await call('GET', `/conversations/${crypto.randomUUID()}`, admin)).status).toBe(404);

    const overview = await json<Overview>(call('GET', '/overview', admin));
    expect([overview.questions, overview.answered, overview.refused]).toEqual([2, 1, 1]);

    const tried = await json<TryResult>(
      call('POST', '/try', admin, { message: 'How do refunds work?', embedding: basis(0) }),
    );
    expect(tried).toMatchObject({ decision: 'answer', embedded: true });
    expect((await json<TryResult>(call('POST', '/try', admin, { message: 'refunds' }))).embedded).toBe(false); // no server embedding here

    const docs = await json<Page<AdminDocument>>(call('GET', '/documents?q=internal', admin));
    expect(docs.items.map((d) => d.title)).toEqual(['Internal']);
    expect((await call('PUT', `/documents/${docs.items[0]!.id}`, admin, { enabled: false })).status).toBe(200);
    expect((await call('DELETE', `/documents/${docs.items[0]!.id}`, admin)).status).toBe(200);
    expect((await json<Page<AdminDocument>>(call('GET', '/documents', admin))).total).toBe(1);
  });

  it('uploads are the Node server’s: 501 here, pointing to the CLI', async () => {
    const res = await call('POST', '/documents/url', admin, { url: 'https://example.com/' });
    expect(res.status).toBe(501);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('npm run ingest');
  });

  it('serves the console page as a static asset, with its CSP, never framed', async () => {
    const res = await harness.worker('/admin/');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<kb-admin>');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
  });
});

describe('sign-in attempts per client network (wrangler.toml ADMIN_SIGNIN_LIMITER: 5 a minute, both routes)', () => {
  const from = (ip: string, path: string, body: unknown) =>
    harness.worker(`/api/admin${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': ip },
      body: JSON.stringify(body),
    });

  it('answers 429 rate_limited with Retry-After past 5 from one /64, before Supabase Auth is asked; another /64 signs in', async () => {
    await clearOfWindowEdge(60);
    const grants = () =>
      harness.supabase.log.filter((e) => e.path.startsWith('/auth/v1/token?grant_type=password')).length;
    const before = grants();
    const statuses: number[] = [];
    for (let i = 1; i <= 7; i++) {
      const res =
        i % 2
          ? await from(`2001:db8:77:1::${i}`, '/password', { email: 'owner@example.com', password: `guess ${i}` })
          : await from(`2001:db8:77:1::${i}`, '/session', { link_token: 'x' });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.headers.get('Retry-After')).toBe('60');
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
      } else await res.arrayBuffer();
      expect(res.headers.get('Cache-Control')).toBe('no-store');
    }
    // Three password attempts relayed (401), two link attempts (404 here), then refused.
    expect(statuses).toEqual([401, 404, 401, 404, 401, 429, 429]);
    expect(grants() - before).toBe(3);
    expect(
      (await from('2001:db8:77:2::1', '/password', { email: 'owner@example.com', password: 'correct horse' })).status,
    ).toBe(200);
  });

  it('sends Cache-Control: no-store on admin data and refusals', async () => {
    for (const res of [
      await call('GET', '/me', admin),
      await call('GET', '/gaps?status=open', admin),
      await call('GET', '/me', visitor),
      await call('GET', '/me', null),
    ]) {
      expect(res.headers.get('Cache-Control')).toBe('no-store');
      await res.arrayBuffer();
    }
  });
});
