// Long file: every test shares one workerd + PGlite harness (startWorker), which takes seconds to start; a file per topic would start one each.
/**
 * The production path for real: the Worker bundle exactly as `wrangler deploy` would upload it (dry run),
 * running in workerd (Miniflare), with supabase-js inside it talking to a PostgREST-compatible RPC server
 * over PGlite (the real migrations, SQL functions, roles and RLS). Embeddings are exact unit vectors.
 */
import { sign, verify } from 'hono/jwt';
import ws from 'ws';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AnonymousAuth, ErrorBody, Health, Refusal } from '../../protocol/index.ts';
import type { PgliteStore } from '../../server/store/pglite.ts';
import { DEFAULT_GENERATION_MODEL } from '../../server/config/index.ts';
import { createSupabaseIngestStore } from '../../server/store/supabase.ts';
import workerEntry, { type WorkerEnv } from '../../server/runtime/workers/worker.ts';
import { seedKb as seedDocuments } from '../../server/testing/api.ts';
import { readChatEvents } from '../../protocol/sse.ts';
import { basis, withSimilarity } from '../../server/testing/vectors.ts';
import { SECRET, SITE, startWorker, type WorkerHarness } from './harness.ts';
import type { RpcServer } from './rpc-server.ts';

let harness: WorkerHarness;
let pg: PgliteStore;
let supabase: RpcServer;

beforeAll(async () => {
  harness = await startWorker();
  ({ pg, supabase } = harness);
});

afterAll(async () => {
  await harness?.close();
});

beforeEach(async () => {
  await pg.db.exec('delete from chat_sessions; delete from kb_documents;');
  supabase.log.length = 0;
});

/** The knowledge base, written the way the ingestion CLI writes it: supabase-js with the service-role key. */
async function seedKb() {
  await seedDocuments(
    createSupabaseIngestStore({ url: supabase.url, key: supabase.serviceRoleKey, realtimeTransport: ws }),
  );
  supabase.log.length = 0;
}

const worker = (path: string, init?: RequestInit) => harness.worker(path, init);

async function signIn(): Promise<AnonymousAuth> {
  const res = await worker('/api/auth/anonymous', { method: 'POST' });
  expect(res.status).toBe(200);
  return (await res.json()) as AnonymousAuth;
}

function chat(token: string | null, body: object) {
  return worker('/api/chat', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
}

const question = (embedding: number[], message = 'How do refunds work?', extra: object = {}) => ({
  embedding,
  message,
  message_id: crypto.randomUUID(),
  ...extra,
});

/** Every rpc the Worker made ran with the anon key as apikey, and as the visitor or anon — never service_role. */
function expectNoServiceRole() {
  const rpcs = supabase.log.filter((e) => e.path.startsWith('/rest/v1/rpc/'));
  expect(rpcs.length).toBeGreaterThan(0);
  for (const e of rpcs) {
    expect(e.apikeyRole).toBe('anon');
    expect(['anon', 'authenticated']).toContain(e.role);
  }
}

describe('Worker in workerd against Supabase (PostgREST over PGlite)', () => {
  it('lets an admin switch the answer mode at runtime; /api/config reads it from the database as anon', async () => {
    const user = await signIn();
    const now = Math.floor(Date.now() / 1000);
    const admin = await sign(
      {
        sub: user.user_id,
        role: 'authenticated',
        aud: 'authenticated',
        iss: `${supabase.url}/auth/v1`,
        app_metadata: { role: 'admin' },
        iat: now,
        exp: now + 600,
      },
      SECRET,
      'HS256',
    );
    const put = (token: string, answer_mode: string | null) =>
      worker('/api/admin/settings', {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify({ answer_mode }),
      });
    const mode = async () => ((await (await worker('/api/config')).json()) as { answer_mode: string }).answer_mode;
    expect(await mode()).toBe('extractive');
    expect((await put(user.access_token, 'generative')).status).toBe(403);
    expect((await put(admin, 'generative')).status).toBe(200);
    expect(await mode()).toBe('generative');
    expect(supabase.log).toContainEqual(
      expect.objectContaining({ path: '/rest/v1/rpc/kb_get_settings', role: 'anon', apikeyRole: 'anon' }),
    );
    expect(await (await put(admin, null)).json()).toMatchObject({
      answer_mode: 'extractive',
      answer_mode_source: 'server',
    });
    expect(await mode()).toBe('extractive');
  });

  it("applies an admin's threshold, refusal suggestions and greeting at runtime: an answered question is now refused", async () => {
    await seedKb();
    const user = await signIn();
    const now = Math.floor(Date.now() / 1000);
    const admin = await sign(
      {
        sub: user.user_id,
        role: 'authenticated',
        aud: 'authenticated',
        iss: `${supabase.url}/auth/v1`,
        app_metadata: { role: 'admin' },
        iat: now,
        exp: now + 600,
      },
      SECRET,
      'HS256',
    );
    const put = (body: object) =>
      worker('/api/admin/settings', {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${admin}` },
        body: JSON.stringify(body),
      });
    const ask = async () => {
      const res = await worker('/api/chat', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          Authorization: `Bearer ${user.access_token}`,
        },
        body: JSON.stringify(question(withSimilarity(0, 0.8))),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { type: 'answer' } | Refusal;
    };
    const config = async () => (await (await worker('/api/config')).json()) as { greeting?: string };
    try {
      expect((await ask()).type).toBe('answer');
      expect(await config()).not.toHaveProperty('greeting');

      const set = await put({
        hybrid_threshold: 0.99,
        refusal_suggestions: ['Email support@example.com'],
        greeting: 'Ask me about billing.',
        support_url: 'mailto:support@example.com',
        starters: ['How do refunds work?'],
      });
      expect(set.status).toBe(200);
      expect(await set.json()).toMatchObject({
        hybrid_threshold: 0.99,
        hybrid_threshold_source: 'admin',
        server_hybrid_threshold: 0.37,
        greeting_source: 'admin',
      });
      // The same isolate, no restart: the next question reads the settings from the database.
      expect(await ask()).toMatchObject({
        type: 'refusal',
        reason: 'no_evidence',
        suggestions: ['Email support@example.com'],
      });
      expect((await config()).greeting).toBe('Ask me about billing.');
      // The conversation settings (20261126040000) reach every visitor through /api/config on Workers too.
      expect(await config()).toMatchObject({
        support_url: 'mailto:support@example.com',
        starters: ['How do refunds work?'],
      });
      // The settings are read as anon (nothing in them is secret), the change made as the admin.
      expect(supabase.log).toContainEqual(
        expect.objectContaining({
          path: '/rest/v1/rpc/kb_set_settings',
          status: 200,
          role: 'authenticated',
          sub: user.user_id,
        }),
      );
      expectNoServiceRole();

      const bad = await put({ refusal_suggestions: ['x'.repeat(121)] });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as ErrorBody).error.message).toMatch(/^refusal_suggestions\.0: /);

      expect(await (await put({ hybrid_threshold: null })).json()).toMatchObject({
        hybrid_threshold: 0.37,
        hybrid_threshold_source: 'server',
      });
      expect((await ask()).type).toBe('answer');
    } finally {
      await pg.db.exec(
        'update kb_settings set hybrid_threshold = null, refusal_suggestions = null, greeting = null, support_url = null, starters = null',
      );
    }
  });

  it('in generative mode sends the cited passages and stores the written answer as the visitor', async () => {
    await seedKb();
    await pg.db.query(`update kb_settings set answer_mode = 'generative'`);
    try {
      const alice = await signIn();
      const events = await readChatEvents(await chat(alice.access_token, question(withSimilarity(0, 0.8))));
      const sources = events.find((e) => e.event.event === 'sources')!.event;
      const end = events.at(-1)!.event;
      if (sources.event !== 'sources' || end.event !== 'answer_end') throw new Error('not an answer');
      expect(sources.data.passages).toEqual([
        { n: 1, text: expect.stringContaining('Refunds are issued within 14 days of a charge.') },
      ]);

      const save = (token: string, text: string, model = DEFAULT_GENERATION_MODEL) =>
        worker(`/api/chat/${end.data.message_id}/generated`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
          body: JSON.stringify({ text, model }),
        });
      const mallory = await signIn();
      // Only under the configured model's name (KB_GENERATION_MODEL, here its default).
      expect((await save(alice.access_token, 'Refunds come within 14 days [1].', 'evil/model')).status).toBe(400);
      expect((await save(mallory.access_token, 'Refunds are never issued [1].')).status).toBe(404);
      expect((await save(alice.access_token, 'Refunds come within 14 days [2].')).status).toBe(400);
      const saved = await save(alice.access_token, 'Refunds come within 14 days of a charge [1].');
      expect(saved.status).toBe(200);
      const { rows } = await pg.db.query(
        `select meta -> 'generated' ->> 'text' as text from chat_messages where id = $1`,
        [end.data.message_id],
      );
      expect(rows).toEqual([{ text: 'Refunds come within 14 days of a charge [1].' }]);
      expect(supabase.log).toContainEqual(
        expect.objectContaining({
          path: '/rest/v1/rpc/chat_save_generated',
          status: 200,
          role: 'authenticated',
          sub: alice.user_id,
        }),
      );
      expectNoServiceRole();
    } finally {
      await pg.db.query(`update kb_settings set answer_mode = null`);
    }
  });

  it('refuses to start without KB_ANSWER_WRITE_KEY, or with a short one, saying what to set', async () => {
    const env = { SUPABASE_URL: supabase.url, SUPABASE_ANON_KEY: supabase.anonKey, KB_JWT_SECRET: SECRET } as WorkerEnv;
    const ctx = { waitUntil() {}, passThroughOnException() {} } as never;
    const start = (key: string | undefined) =>
      workerEntry.fetch(
        new Request('https://kb-chat.test/api/health'),
        { ...env, KB_ANSWER_WRITE_KEY: key as string },
        ctx,
      );
    await expect(start(undefined)).rejects.toThrow('KB_ANSWER_WRITE_KEY is not set (see docs/deploy.md)');
    await expect(start('short')).rejects.toThrow(
      /KB_ANSWER_WRITE_KEY must be at least 32 characters: `npm run console -- answer-key`/,
    );
    expect(supabase.log).toEqual([]);
    // With the key it starts: every other test here runs the bundle in workerd with KB_ANSWER_WRITE_KEY set
    // (the harness's), and its answers are stored through chat_finish_turn with it.
  });

  it('reports knowledge-base statistics through kb_stats as anon', async () => {
    await seedKb();
    const res = await worker('/api/health');
    expect(res.status).toBe(200);
    expect((await res.json()) as Health).toMatchObject({
      status: 'ok',
      embed_model: 'test-model',
      kb: { documents: 2, ready_documents: 2, chunks: 3, embeddings: 3 },
    });
    expect(supabase.log).toEqual([
      expect.objectContaining({ path: '/rest/v1/rpc/kb_stats', status: 200, role: 'anon', apikeyRole: 'anon' }),
    ]);
  });

  it('signs in anonymously through Supabase Auth and relays its token', async () => {
    const auth = await signIn();
    const claims = await verify(auth.access_token, SECRET, 'HS256');
    expect(claims).toMatchObject({
      sub: auth.user_id,
      role: 'authenticated',
      aud: 'authenticated',
      is_anonymous: true,
    });
    expect(auth.expires_in).toBeGreaterThan(0);
    const { rows } = await pg.db.query('select is_anonymous from auth.users where id = $1', [auth.user_id]);
    expect(rows).toEqual([{ is_anonymous: true }]);
    expect(supabase.log).toEqual([
      expect.objectContaining({ path: '/auth/v1/signup', status: 200, apikeyRole: 'anon' }),
    ]);
  });

  it('streams a cited answer, unbuffered, and stores the turn as the visitor (RLS)', async () => {
    await seedKb();
    const alice = await signIn();
    const body = question(withSimilarity(0, 0.8));
    const res = await chat(alice.access_token, body);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // What the Worker sent; Miniflare hands Content-Encoding to Node as MF-Content-Encoding so undici does not decode.
    expect(res.headers.get('mf-content-encoding') ?? res.headers.get('content-encoding')).toBe('identity');
    expect(res.headers.get('cache-control')).toContain('no-transform');

    const events = await readChatEvents(res);
    const names = events.map((e) => e.event.event);
    expect(names[0]).toBe('answer_start');
    expect(names.slice(-2)).toEqual(['sources', 'answer_end']);
    expect(names.filter((n) => n === 'answer_delta').length).toBeGreaterThan(1);
    const text = events.flatMap((e) => (e.event.event === 'answer_delta' ? [e.event.data.text] : [])).join('');
    expect(text).toBe('Refunds are issued within 14 days of a charge. [1] Annual plans are refunded pro rata. [1]');
    const sources = events.at(-2)!.event;
    expect(sources.event === 'sources' && sources.data.citations).toEqual([
      expect.objectContaining({
        n: 1,
        title: 'Billing',
        page: 2,
        section: 'Billing › Refunds',
        url: '/docs/billing#refunds',
      }),
    ]);

    const start = events[0]!.event;
    if (start.event !== 'answer_start') throw new Error('unreachable');
    const { rows } = await pg.db.query<{ user_id: string; role: string; content: string }>(
      `select s.user_id, m.role, m.content from chat_messages m join chat_sessions s on s.id = m.session_id
       where s.id = $1 order by m.created_at, m.role desc`,
      [start.data.session_id],
    );
    expect(rows).toEqual([
      { user_id: alice.user_id, role: 'user', content: 'How do refunds work?' },
      { user_id: alice.user_id, role: 'assistant', content: text },
    ]);
    // Retrieval and both writes ran as Alice herself: her token, forwarded by supabase-js.
    for (const fn of ['rate_limit_hit', 'search_chunks', 'chat_begin_turn', 'chat_finish_turn']) {
      expect(supabase.log).toContainEqual(
        expect.objectContaining({ path: `/rest/v1/rpc/${fn}`, status: 200, role: 'authenticated', sub: alice.user_id }),
      );
    }
    // The answer with the Worker's answer write key beside Alice's token: without it the database refuses it.
    expect(supabase.log).toContainEqual(
      expect.objectContaining({ path: '/rest/v1/rpc/chat_finish_turn', args: expect.arrayContaining(['p_write_key']) }),
    );
    expectNoServiceRole();
  });

  it('refuses below the evidence threshold with the JSON refusal, and stores it', async () => {
    await seedKb();
    const { access_token } = await signIn();
    // Hybrid: the refunds chunk covers half of "How do refunds work?" ("work" is in no chunk and weighs as
    // "refunds"), so with cosine 0.2 the evidence is 0.35, under the gate of 0.37.
    const res = await chat(access_token, question(withSimilarity(0, 0.2)));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await res.json()) as Refusal).toMatchObject({ type: 'refusal', reason: 'no_evidence' });
    const { rows } = await pg.db.query<{ role: string; kind: string | null }>(
      "select role, meta ->> 'kind' as kind from chat_messages order by created_at, role desc",
    );
    expect(rows).toEqual([
      { role: 'user', kind: null },
      { role: 'assistant', kind: 'refusal' },
    ]);
    expectNoServiceRole();
  });

  it("isolates visitors: another visitor's session id is answered as a new conversation, without their context", async () => {
    await seedKb();
    const alice = await signIn();
    const bob = await signIn();
    const start = (await readChatEvents(await chat(alice.access_token, question(basis(0)))))[0]!.event;
    if (start.event !== 'answer_start') throw new Error('unreachable');
    const mine = async () =>
      (await pg.db.query('select 1 from chat_messages where session_id = $1', [start.data.session_id])).rows.length;
    const before = await mine();

    const events = await readChatEvents(
      await chat(bob.access_token, question(basis(0), 'And annual plans?', { session_id: start.data.session_id })),
    );
    const bobStart = events[0]!.event;
    if (bobStart.event !== 'answer_start') throw new Error('unreachable');
    expect(bobStart.data.session_id).not.toBe(start.data.session_id);
    expect(bobStart.data.context).toBeUndefined();
    expect(await mine()).toBe(before);
    // Refused by Postgres row-level security (42501 → PostgREST 403), not by application code; his read of
    // the session's last turns found nothing (security invoker), and his turn went to a session of his own.
    expect(supabase.log).toContainEqual(
      expect.objectContaining({ path: '/rest/v1/rpc/chat_begin_turn', status: 403, sub: bob.user_id }),
    );
    expect(supabase.log).toContainEqual(
      expect.objectContaining({ path: '/rest/v1/rpc/get_recent_chat_messages', status: 200, sub: bob.user_id }),
    );
  });

  it.each([
    ['with an embedding', true],
    ['in keyword mode', false],
  ])(
    'answers a follow-up in the context of the turn before it, %s, reading the last turns as the visitor',
    async (_, embedded) => {
      await seedKb();
      const alice = await signIn();
      const first = (await readChatEvents(await chat(alice.access_token, question(basis(0)))))[0]!.event;
      if (first.event !== 'answer_start') throw new Error('unreachable');
      const body = {
        ...question(basis(0), 'And annual plans?', { session_id: first.data.session_id }),
        ...(embedded ? {} : { embedding: undefined }),
      };
      const events = await readChatEvents(await chat(alice.access_token, body));
      const start = events[0]!.event;
      expect(start.event === 'answer_start' && start.data.context).toEqual({ used: true, about: 'refunds work' });
      const text = events.flatMap((e) => (e.event.event === 'answer_delta' ? [e.event.data.text] : [])).join('');
      expect(text).toContain('Annual plans are refunded pro rata.');
      expect(supabase.log).toContainEqual(
        expect.objectContaining({
          path: '/rest/v1/rpc/get_recent_chat_messages',
          status: 200,
          role: 'authenticated',
          sub: alice.user_id,
        }),
      );
      const { rows } = await pg.db.query<{ context: unknown }>(
        "select meta -> 'context' as context from chat_messages where role = 'assistant' order by created_at",
      );
      expect(rows.map((r) => r.context)).toEqual([null, { used: true, about: 'refunds work' }]);
      expectNoServiceRole();
    },
  );

  it('replays a retried message id, and answers 409 when the id is reused for another message', async () => {
    await seedKb();
    const { access_token } = await signIn();
    const body = question(basis(0));
    const first = await readChatEvents(await chat(access_token, body));
    const replay = await readChatEvents(await chat(access_token, body));
    expect(replay.map((e) => e.event)).toEqual(first.map((e) => e.event));
    const res = await chat(access_token, { ...body, message: 'A different question' });
    expect(res.status).toBe(409);
    expect(((await res.json()) as ErrorBody).error.code).toBe('conflict');
  });

  it('holds the rate limit in the database: 25 searches from one visitor, exactly 20 pass', async () => {
    await seedKb();
    const { access_token } = await signIn();
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) {
      const res = await worker('/api/search', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${access_token}` },
        body: JSON.stringify({ query_text: 'refunds' }),
      });
      statuses.push(res.status);
      if (res.status === 429) expect(res.headers.get('Retry-After')).not.toBeNull();
      await res.body?.cancel();
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.slice(20)).toEqual([429, 429, 429, 429, 429]);
    expect(supabase.log).toContainEqual(
      expect.objectContaining({ path: '/rest/v1/rpc/rate_limit_hit', role: 'authenticated' }),
    );
  });

  it('answers 401 without a token or with a forged one, before touching the database', async () => {
    await seedKb();
    const { sign } = await import('hono/jwt');
    const forged = await sign(
      {
        sub: crypto.randomUUID(),
        role: 'authenticated',
        aud: 'authenticated',
        exp: Math.floor(Date.now() / 1000) + 60,
      },
      'not-the-project-secret-0123456789',
      'HS256',
    );
    for (const token of [null, forged, 'not.a.jwt']) {
      const res = await chat(token, question(basis(0)));
      expect(res.status).toBe(401);
      expect(((await res.json()) as ErrorBody).error.code).toBe('unauthorized');
    }
    expect(supabase.log).toEqual([]);
  });

  it('serves the widget assets cross-origin, and routes /api/* to the Worker (wrangler.toml [assets])', async () => {
    const script = await worker('/kb-chat.js');
    expect(script.status).toBe(200);
    expect(await script.text()).toBe('export {};\n');
    expect(script.headers.get('access-control-allow-origin')).toBe('*');
    const wasm = await worker('/ort/1.31.0/ort-wasm-simd-threaded.wasm');
    expect(wasm.status).toBe(200);
    expect(wasm.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    await wasm.arrayBuffer();
    expect(supabase.log).toEqual([]);

    expect((await worker('/api/health')).headers.get('content-type')).toMatch(/^application\/json/);
    expect(supabase.log).toHaveLength(1);
    expect((await worker('/no-such-asset')).status).toBe(404);
  });

  it('caches as _headers says: the loader revalidated by ETag (304), hashed and versioned files immutable', async () => {
    const loader = await worker('/kb-chat.js');
    expect(loader.headers.get('cache-control')).toBe('public, no-cache');
    const etag = loader.headers.get('etag');
    expect(etag).toBeTruthy();
    await loader.arrayBuffer();
    const again = await worker('/kb-chat.js', { headers: { 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
    await again.arrayBuffer();

    for (const path of [
      '/kb-chat-ui.0123456789.js',
      '/models/v-abcdef0123/test-model/config.json',
      '/ort/1.31.0/ort-wasm-simd-threaded.wasm',
    ]) {
      const res = await worker(path);
      expect(res.status, path).toBe(200);
      // Exactly one value: Cloudflare joins the Cache-Control of every matching _headers rule.
      expect(res.headers.get('cache-control'), path).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
      await res.arrayBuffer();
    }
    // The build's manifest names the model's versioned folder; /api/config hands it to the widget.
    const config = await worker('/api/config');
    expect(await config.json()).toMatchObject({ models_url: '/models/v-abcdef0123/', ort_wasm_url: '/ort/' });
  });

  it('allows CORS for the configured site only, and answers unknown API paths with the error body', async () => {
    const preflight = (origin: string) =>
      worker('/api/chat', {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization,content-type',
        },
      });
    const allowed = await preflight(SITE);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect((await preflight('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();

    const res = await worker('/api/nope');
    expect(res.status).toBe(404);
    expect(((await res.json()) as ErrorBody).error.code).toBe('not_found');
  });
});
