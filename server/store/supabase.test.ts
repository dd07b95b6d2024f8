/**
 * The Supabase store through real supabase-js against the PostgREST-compatible RPC server over PGlite
 * (test/workerd/rpc-server.ts): the real SQL functions, roles and RLS. The Worker test covers the same
 * store inside workerd.
 */
import { sign } from 'hono/jwt';
import ws from 'ws';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRpcServer, type RpcServer } from '../../test/workerd/rpc-server.ts';
import { verifyAccessToken } from '../auth/jwt.ts';
import { AppError } from '../http/errors.ts';
import { supabaseAnonymousSignIn } from '../auth/supabase-anonymous.ts';
import { basis, withSimilarity } from '../testing/vectors.ts';
import { openPgliteStore, type PgliteStore } from './pglite.ts';
import { migratedTemplate } from '../testing/pglite-template.ts';
import { newAnswerWriteKey } from './answer-key.ts';
import { createSupabaseChatStore, createSupabaseIngestStore } from './supabase.ts';
import { ACCESS_TOKEN, StoreError, type ChatStore, type IngestStore, type JwtClaims } from './types.ts';

const SECRET = 'test-secret-for-supabase-store-0123456789';
const KEY = newAnswerWriteKey();
let pg: PgliteStore;
let server: RpcServer;
let chatStore: ChatStore;
let ingestStore: IngestStore;

beforeAll(async () => {
  pg = await openPgliteStore(null, { answerWriteKey: KEY, loadDataDir: await migratedTemplate() });
  server = await startRpcServer({ store: pg, jwtSecret: SECRET });
  // Node 20 has no native WebSocket: supabase-js's (unused) realtime client needs `ws`.
  chatStore = createSupabaseChatStore({
    url: server.url,
    key: server.anonKey,
    answerWriteKey: KEY,
    realtimeTransport: ws,
  });
  ingestStore = createSupabaseIngestStore({ url: server.url, key: server.serviceRoleKey, realtimeTransport: ws });
});
afterAll(async () => {
  await server?.close();
  await pg?.close();
});
beforeEach(async () => {
  await pg.db.exec('delete from chat_sessions; delete from kb_documents;');
  server.log.length = 0;
});

/** A visitor as the app sees one: Supabase's anonymous sign-up, then the app's own token verification. */
async function visitor(): Promise<JwtClaims> {
  const auth = await supabaseAnonymousSignIn({ url: server.url, anonKey: server.anonKey })();
  return verifyAccessToken(auth.access_token, SECRET);
}

async function seed() {
  return ingestStore.ingestDocument({
    source: 'billing.md',
    name: 'Billing',
    meta: { url: '/docs/billing' },
    checksum: 'c1',
    model: 'test-model',
    chunks: [
      { content: 'Refunds are issued within 14 days.', meta: { section: 'Refunds' }, embedding: basis(0) },
      { content: 'Invoices are emailed monthly.', meta: { section: 'Invoices' }, embedding: basis(1) },
    ],
  });
}

const turn = (extra: object = {}) => ({
  message_id: crypto.randomUUID(),
  content: 'Refunds?',
  title: 'Refunds?',
  ...extra,
});

describe('Supabase ingest store (service role)', () => {
  it('ingests a document and reports its state', async () => {
    expect(await chatStore.hasDocuments()).toBe(false);
    const id = await seed();
    expect(await chatStore.hasDocuments()).toBe(true);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await ingestStore.documentState('billing.md', 'test-model')).toEqual({
      document_id: id,
      status: 'ready',
      checksum: 'c1',
      stale_embeddings: 0,
    });
    expect(await ingestStore.documentState('billing.md', 'other-model')).toMatchObject({ stale_embeddings: 2 });
    expect(await ingestStore.documentState('nope.md', 'test-model')).toBeNull();
    expect(await chatStore.kbStats()).toEqual({ documents: 1, ready_documents: 1, chunks: 2, embeddings: 2 });
  });

  it('keeps BM25 statistics in the ingest transaction, and runs kb_optimize as the service role', async () => {
    await seed();
    const { rows } = await pg.db.query<{ chunks: string }>('select chunks from kb_corpus_stats');
    expect(Number(rows[0]!.chunks)).toBe(2);
    await expect(ingestStore.optimize()).resolves.toBeUndefined();
    expect(server.log.find((e) => e.path.endsWith('/kb_optimize'))).toMatchObject({
      status: 200,
      role: 'service_role',
    });
  });

  it('is refused to the anon key: ingest_document is for the service role only', async () => {
    const anonIngest = createSupabaseIngestStore({ url: server.url, key: server.anonKey, realtimeTransport: ws });
    const error = await anonIngest.documentState('billing.md', 'm').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).kind).toBe('forbidden');
    expect(server.log.at(-1)).toMatchObject({ status: 401, role: 'anon' });
  });
});

describe('Supabase chat store (anon key + the visitor token)', () => {
  it('retrieves as the visitor, best first, threshold applied in SQL', async () => {
    await seed();
    const alice = await visitor();
    const matches = await chatStore.matchChunks(alice, withSimilarity(0, 0.8), 0.35, 5);
    expect(matches).toHaveLength(1);
    expect(matches[0]).toMatchObject({
      content: 'Refunds are issued within 14 days.',
      document_title: 'Billing',
      document_url: '/docs/billing',
    });
    expect(matches[0]!.similarity).toBeCloseTo(0.8, 5);
    expect(server.log.at(-1)).toMatchObject({
      path: '/rest/v1/rpc/match_chunks',
      role: 'authenticated',
      sub: alice.sub,
      apikeyRole: 'anon',
    });
  });

  it('stores a turn under the visitor, and RLS keeps another visitor out of it', async () => {
    const alice = await visitor();
    const bob = await visitor();
    const first = turn();
    const { session_id: sessionId } = await chatStore.beginTurn(alice, first);
    const answerId = await chatStore.finishTurn(alice, {
      session_id: sessionId,
      reply_to: first.message_id,
      content: 'A',
      citations: [],
      meta: { kind: 'answer' },
    });
    expect(answerId).toMatch(/^[0-9a-f-]{36}$/);
    const { rows } = await pg.db.query<{ user_id: string }>('select user_id from chat_sessions where id = $1', [
      sessionId,
    ]);
    expect(rows).toEqual([{ user_id: alice.sub }]);

    const stolen = await chatStore.beginTurn(bob, turn({ session_id: sessionId })).catch((e: unknown) => e);
    expect((stolen as StoreError).kind).toBe('forbidden');
    expect(server.log.at(-1)).toMatchObject({ status: 403, role: 'authenticated', sub: bob.sub });
    expect((await pg.db.query('select 1 from chat_messages')).rows).toHaveLength(2);
  });

  it("finds a retried turn, and maps another visitor's message id (23505 → 409) to conflict", async () => {
    const alice = await visitor();
    const bob = await visitor();
    const first = turn();
    expect(await chatStore.beginTurn(alice, first)).toMatchObject({ is_new: true, same_request: true, answer: null });
    expect(await chatStore.beginTurn(alice, first)).toMatchObject({ is_new: false, same_request: true });
    const error = await chatStore.beginTurn(bob, first).catch((e: unknown) => e);
    expect((error as StoreError).kind).toBe('conflict');
    expect(server.log.at(-1)).toMatchObject({ status: 409 });
  });

  it('maps a token of a deleted user (23503 → 409) to forbidden', async () => {
    const ghost = await visitor();
    await pg.db.query('delete from auth.users where id = $1', [ghost.sub]);
    const error = await chatStore.beginTurn(ghost, turn()).catch((e: unknown) => e);
    expect((error as StoreError).kind).toBe('forbidden');
  });

  it('never falls back to the anon key for a visitor call without a token', async () => {
    const alice = await visitor();
    const { [ACCESS_TOKEN]: _token, ...claimsOnly } = alice;
    const error = await chatStore.beginTurn(claimsOnly as JwtClaims, turn()).catch((e: unknown) => e);
    expect((error as StoreError).kind).toBe('forbidden');
    expect(server.log).toHaveLength(1); // the sign-up only: no rpc was sent
  });

  it('reports a token PostgREST rejects, and an unreachable project, as unavailable', async () => {
    const alice = await visitor();
    const forged = await sign(
      { sub: alice.sub, role: 'authenticated', aud: 'authenticated' },
      'another-secret-0123456789abcdef',
      'HS256',
    );
    const error = await chatStore.beginTurn({ ...alice, [ACCESS_TOKEN]: forged }, turn()).catch((e: unknown) => e);
    expect((error as StoreError).kind).toBe('unavailable');
    expect(server.log.at(-1)).toMatchObject({ status: 401 });

    const offline = createSupabaseChatStore({
      url: 'http://127.0.0.1:9',
      key: server.anonKey,
      answerWriteKey: KEY,
      realtimeTransport: ws,
    });
    const down = await offline.kbStats().catch((e: unknown) => e);
    expect((down as StoreError).kind).toBe('unavailable');
  });
});

describe('Supabase anonymous sign-in', () => {
  it('reports "anonymous sign-ins disabled" as unavailable (503), creating no user', async () => {
    const closed = await startRpcServer({ store: pg, jwtSecret: SECRET, anonymousSignIns: false });
    try {
      const users = (await pg.db.query('select 1 from auth.users')).rows.length;
      const error = await supabaseAnonymousSignIn({ url: closed.url, anonKey: closed.anonKey })().catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).kind).toBe('unavailable');
      expect((await pg.db.query('select 1 from auth.users')).rows.length).toBe(users);
    } finally {
      await closed.close();
    }
  });

  it("passes Supabase's per-IP sign-up limit (429) on as rate_limited", async () => {
    const limited = async () =>
      new Response(
        JSON.stringify({ code: 429, error_code: 'over_request_rate_limit', msg: 'Request rate limit reached' }),
        { status: 429 },
      );
    const error = await supabaseAnonymousSignIn({ url: server.url, anonKey: server.anonKey, fetch: limited })().catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited' });
  });
});

describe('the RPC server speaks PostgREST', () => {
  const rpc = (path: string, body: unknown, headers: Record<string, string> = { apikey: server.anonKey }) =>
    fetch(`${server.url}/rest/v1/rpc/${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('answers an unknown function or argument set with 404 PGRST202, and never runs text from the URL', async () => {
    for (const path of ['no_such_fn', encodeURIComponent('kb_stats();drop table kb_documents;--')]) {
      const res = await rpc(path, {});
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({
        code: 'PGRST202',
        details: expect.any(String),
        hint: null,
        message: expect.stringContaining('Could not find the function'),
      });
    }
    expect((await rpc('match_chunks', { nope: 1 })).status).toBe(404);
    expect((await pg.db.query("select to_regclass('public.kb_documents') as t")).rows).toEqual([{ t: 'kb_documents' }]);
  });

  it('binds argument values as data: SQL in a value is just text', async () => {
    const alice = await visitor();
    const injected = "x'); delete from chat_sessions; --";
    await chatStore.beginTurn(alice, turn({ content: injected, title: injected }));
    const { rows } = await pg.db.query<{ content: string }>('select content from chat_messages');
    expect(rows).toEqual([{ content: injected }]);
  });

  it('refuses the chat functions to anon with 401 42501 (execute revoked), before any write', async () => {
    const res = await rpc('chat_begin_turn', {
      p_session_id: null,
      p_message_id: crypto.randomUUID(),
      p_content: 'x',
      p_title: 'x',
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({
      code: '42501',
      message: expect.stringContaining('permission denied for function'),
    });
  });

  it('requires an apikey, and answers 401 with the error shape for a bad token', async () => {
    expect((await rpc('kb_stats', {}, {})).status).toBe(401);
    const res = await rpc('kb_stats', {}, { apikey: server.anonKey, Authorization: 'Bearer not.a.jwt' });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ code: 'PGRST301', details: null, hint: null, message: expect.any(String) });
  });
});
