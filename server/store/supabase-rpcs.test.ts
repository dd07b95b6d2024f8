// Long file: one exercise per rpc the Supabase store makes, a list that grows with the SQL functions.
/**
 * Every rpc the Supabase store makes, run for real: supabase-js against the PostgREST-compatible server over
 * PGlite (test/workerd/rpc-server.ts). The list of calls — function and argument names — is read from
 * supabase.ts itself (test/workerd/rpc-calls.ts), so a call added there without being run here fails this
 * file, and each call's arguments as they reach PostgREST must be exactly the ones the code writes.
 */
import { sign } from 'hono/jwt';
import ws from 'ws';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rpcCalls } from '../../test/workerd/rpc-calls.ts';
import { startRpcServer, type RpcServer } from '../../test/workerd/rpc-server.ts';
import { verifyAccessToken } from '../auth/jwt.ts';
import { supabaseAnonymousSignIn } from '../auth/supabase-anonymous.ts';
import { basis } from '../testing/vectors.ts';
import { openPgliteStore, type PgliteStore } from './pglite.ts';
import { migratedTemplate } from '../testing/pglite-template.ts';
import { answerWriteKeyHash, newAnswerWriteKey } from './answer-key.ts';
import { argName, SQL_FUNCTIONS } from './functions.ts';
import { createSupabaseChatStore, createSupabaseIngestStore, setSupabaseAnswerWriteKey } from './supabase.ts';
import type { ChatStore, IngestStore, JwtClaims } from './types.ts';

const SECRET = 'test-secret-for-supabase-rpcs-0123456789';
const MODEL = 'test-model';
/** The answer write key the server holds; the database holds its hash (set by openPgliteStore). */
const KEY = newAnswerWriteKey();
let pg: PgliteStore;
let server: RpcServer;
let chat: ChatStore;
let ingest: IngestStore;

beforeAll(async () => {
  pg = await openPgliteStore(null, { answerWriteKey: KEY, loadDataDir: await migratedTemplate() });
  server = await startRpcServer({ store: pg, jwtSecret: SECRET });
  chat = createSupabaseChatStore({ url: server.url, key: server.anonKey, answerWriteKey: KEY, realtimeTransport: ws });
  ingest = createSupabaseIngestStore({ url: server.url, key: server.serviceRoleKey, realtimeTransport: ws });
});
afterAll(async () => {
  await server?.close();
  await pg?.close();
});

interface World {
  alice: JwtClaims;
  documentId: string;
  chunkIds: string[];
}

let world: World;
beforeEach(async () => {
  await pg.db.exec(
    'delete from chat_sessions; delete from kb_documents; delete from content_gaps; delete from rate_limits;',
  );
  const auth = await supabaseAnonymousSignIn({ url: server.url, anonKey: server.anonKey })();
  const alice = await verifyAccessToken(auth.access_token, SECRET);
  const documentId = await pg.ingestDocument({
    source: 'docs/billing.md',
    name: 'Billing',
    meta: { url: '/docs/billing' },
    checksum: 'c1',
    model: MODEL,
    chunks: [
      { content: 'Refunds are issued within 14 days.', meta: { section: 'Refunds' }, embedding: basis(0) },
      { content: 'Invoices are emailed monthly.', meta: { section: 'Invoices' }, embedding: basis(1) },
    ],
  });
  const { rows } = await pg.db.query<{ id: string }>(
    'select id from kb_chunks where document_id = $1 order by position',
    [documentId],
  );
  world = { alice, documentId, chunkIds: rows.map((r) => r.id) };
  server.log.length = 0;
});

/** A stored question (and its answer) of Alice's, written through the store itself. */
async function aliceTurn(content = 'Refunds?') {
  const messageId = crypto.randomUUID();
  const { session_id } = await chat.beginTurn(world.alice, { message_id: messageId, content, title: content });
  const answerId = await chat.finishTurn(world.alice, {
    session_id,
    reply_to: messageId,
    content: 'Within 14 days.',
    citations: [],
    meta: { kind: 'answer' },
  });
  return { messageId, sessionId: session_id, answerId };
}

/** Each store method that makes an rpc, run with a real result checked. Keyed by method name. */
const EXERCISES: Record<string, () => Promise<void>> = {
  kbStats: async () =>
    expect(await chat.kbStats()).toEqual({ documents: 1, ready_documents: 1, chunks: 2, embeddings: 2 }),
  hasDocuments: async () => expect(await chat.hasDocuments()).toBe(true),
  assistantsState: async () => {
    expect(await chat.assistantsState()).toEqual({ enabled: true, version: expect.stringMatching(/^[0-9a-f]{32}$/) });
  },
  assistantPages: async () => {
    const [page] = await chat.assistantPages(true);
    expect(page).toMatchObject({ document_id: world.documentId, description: '', section: null });
    expect(page!.chunks).toEqual(['Refunds are issued within 14 days.', 'Invoices are emailed monthly.']);
    expect((await chat.assistantPages(false))[0]!.chunks).toBeNull();
  },
  setAssistants: async () => {
    const admin = await asAdmin();
    expect(await chat.setAssistants(admin, false)).toBe(false);
    expect((await chat.assistantsState()).enabled).toBe(false);
    expect(await chat.setAssistants(admin, null)).toBe(true);
  },
  matchChunks: async () => {
    const rows = await chat.matchChunks(world.alice, basis(0), 0.35, 5);
    expect(rows.map((r) => r.content)).toEqual(['Refunds are issued within 14 days.']);
  },
  searchChunks: async () => {
    const rows = await chat.searchChunks(world.alice, {
      embedding: basis(1),
      text: 'invoices',
      count: 1,
      mode: 'hybrid',
      filters: { document_ids: [world.documentId] },
    });
    expect(rows.map((r) => r.chunk_id)).toEqual([world.chunkIds[1]]);
  },
  beginTurn: async () => {
    const messageId = crypto.randomUUID();
    const turn = await chat.beginTurn(world.alice, { message_id: messageId, content: 'Hello?', title: 'Hello?' });
    expect(turn).toMatchObject({ is_new: true, same_request: true, answer: null });
    const { rows } = await pg.db.query('select content from chat_messages where id = $1', [messageId]);
    expect(rows).toEqual([{ content: 'Hello?' }]);
  },
  finishTurn: async () => {
    const { messageId, answerId } = await aliceTurn();
    const { rows } = await pg.db.query('select id, reply_to from chat_messages where role = $1', ['assistant']);
    expect(rows).toEqual([{ id: answerId, reply_to: messageId }]);
  },
  rateLimitHit: async () => {
    const first = await chat.rateLimitHit(world.alice, 'api', 2, 3600);
    const second = await chat.rateLimitHit(world.alice, 'api', 2, 3600);
    const third = await chat.rateLimitHit(world.alice, 'api', 2, 3600);
    expect([first, second, third].map((s) => [s.allowed, s.remaining])).toEqual([
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
  },
  listSessions: async () => {
    const { sessionId } = await aliceTurn();
    expect((await chat.listSessions(world.alice, 10)).map((s) => s.id)).toEqual([sessionId]);
  },
  getSession: async () => {
    const { sessionId } = await aliceTurn('What about refunds?');
    expect(await chat.getSession(world.alice, sessionId)).toMatchObject({
      id: sessionId,
      title: 'What about refunds?',
    });
  },
  getMessages: async () => {
    const { sessionId, messageId, answerId } = await aliceTurn();
    expect((await chat.getMessages(world.alice, sessionId)).map((m) => [m.id, m.role])).toEqual([
      [messageId, 'user'],
      [answerId, 'assistant'],
    ]);
  },
  recentMessages: async () => {
    const { sessionId, messageId, answerId } = await aliceTurn();
    expect((await chat.recentMessages(world.alice, sessionId, 1)).map((m) => m.id)).toEqual([answerId]);
    expect((await chat.recentMessages(world.alice, sessionId, 6)).map((m) => [m.id, m.role])).toEqual([
      [answerId, 'assistant'],
      [messageId, 'user'],
    ]);
  },
  setFeedback: async () => {
    const { answerId } = await aliceTurn();
    expect(await chat.setFeedback(world.alice, { message_id: answerId, rating: 1, comment: null })).toMatchObject({
      message_id: answerId,
      rating: 1,
      comment: null,
    });
    // A change of mind replaces it (a refused call is the workerd tests' and the attacker suite's).
    expect(
      await chat.setFeedback(world.alice, { message_id: answerId, rating: -1, comment: 'Too vague.' }),
    ).toMatchObject({ rating: -1, comment: 'Too vague.' });
    const { rows } = await pg.db.query('select message_id, rating, comment from chat_feedback');
    expect(rows).toEqual([{ message_id: answerId, rating: -1, comment: 'Too vague.' }]);
  },
  getFeedback: async () => {
    const { answerId, sessionId } = await aliceTurn();
    await pg.db.query('insert into chat_feedback (message_id, user_id, rating) values ($1, $2, -1)', [
      answerId,
      world.alice.sub,
    ]);
    expect(await chat.getFeedback(world.alice, sessionId)).toEqual([{ message_id: answerId, rating: -1 }]);
  },
  getChunk: async () => {
    expect(await chat.getChunk(world.alice, world.chunkIds[1]!)).toMatchObject({
      content: 'Invoices are emailed monthly.',
      document_title: 'Billing',
    });
  },
  recordContentGap: async () => {
    const { messageId } = await aliceTurn('Do you ship to Mars?');
    // Twice with the same message id: counted once (the call is retried after a lost response).
    await chat.recordContentGap(world.alice, 'Do you ship to Mars?', 'no_evidence', messageId);
    await chat.recordContentGap(world.alice, 'Do you ship to  mars?', 'no_evidence', messageId);
    const { rows } = await pg.db.query('select question_key, asked from content_gaps');
    expect(rows).toEqual([{ question_key: 'do you ship to mars?', asked: 1 }]);
  },
  listContentGaps: async () => {
    const { messageId } = await aliceTurn('Do you ship to Mars?');
    await chat.recordContentGap(world.alice, 'Do you ship to Mars?', 'no_evidence', messageId);
    const token = await sign(
      {
        sub: world.alice.sub,
        role: 'authenticated',
        aud: 'authenticated',
        app_metadata: { role: 'admin' },
        exp: Math.floor(Date.now() / 1000) + 60,
      },
      SECRET,
      'HS256',
    );
    const admin = await verifyAccessToken(token, SECRET);
    expect((await chat.listContentGaps(admin, 10)).map((g) => [g.question, g.asked])).toEqual([
      ['Do you ship to Mars?', 1],
    ]);
  },
  saveGenerated: async () => {
    const messageId = crypto.randomUUID();
    const { session_id } = await chat.beginTurn(world.alice, {
      message_id: messageId,
      content: 'Refund window?',
      title: 'Refunds',
    });
    const citation = {
      n: 1,
      chunk_id: world.chunkIds[0]!,
      document_id: world.documentId,
      title: 'Billing',
      page: null,
      section: null,
      url: null,
      similarity: 0.9,
    };
    const answerId = await chat.finishTurn(world.alice, {
      session_id,
      reply_to: messageId,
      content: 'Within 14 days. [1]',
      citations: [citation],
      meta: { kind: 'answer' },
    });
    expect(await chat.saveGenerated(world.alice, answerId, { text: 'Refunds take 14 days [1].', model: 'm' })).toEqual({
      text: 'Refunds take 14 days [1].',
      model: 'm',
    });
    // The first stays (an invented source, a 400 from PostgREST, is the Worker test's: test/workerd/worker.test.ts).
    expect(await chat.saveGenerated(world.alice, answerId, { text: 'Other [1].', model: 'm' })).toEqual({
      text: 'Refunds take 14 days [1].',
      model: 'm',
    });
  },
  getSettings: async () => {
    expect(await chat.getSettings()).toMatchObject({
      answer_mode: null,
      evidence_threshold: null,
      lexical_threshold: null,
      hybrid_threshold: null,
      greeting: null,
      refusal_suggestions: null,
      support_url: null,
      starters: null,
      updated_at: expect.stringMatching(/^\d{4}-/),
    });
  },
  setSettings: async () => {
    const token = await sign(
      {
        sub: world.alice.sub,
        role: 'authenticated',
        aud: 'authenticated',
        app_metadata: { role: 'admin' },
        exp: Math.floor(Date.now() / 1000) + 60,
      },
      SECRET,
      'HS256',
    );
    const admin = await verifyAccessToken(token, SECRET);
    expect((await chat.setSettings(admin, { answer_mode: 'generative' })).answer_mode).toBe('generative');
    expect((await chat.getSettings()).answer_mode).toBe('generative');
    // The patch travels as JSON (p_patch jsonb): numbers, a string and an array arrive as such.
    const all = {
      evidence_threshold: 0.5,
      lexical_threshold: 0.7,
      hybrid_threshold: 0.45,
      greeting: 'Hello from the docs',
      refusal_suggestions: ['Email us', 'Browse the FAQ'],
      support_url: 'mailto:help@example.com',
      starters: ['How do refunds work?'],
    };
    expect(await chat.setSettings(admin, all)).toMatchObject({ ...all, answer_mode: 'generative' });
    expect(await chat.getSettings()).toMatchObject(all);
    expect(await chat.setSettings(admin, { answer_mode: null, greeting: null, refusal_suggestions: [] })).toMatchObject(
      { answer_mode: null, greeting: null, refusal_suggestions: [], evidence_threshold: 0.5 },
    );
    await pg.db.exec(
      'update kb_settings set answer_mode = null, evidence_threshold = null, lexical_threshold = null, hybrid_threshold = null, refusal_suggestions = null, support_url = null, starters = null',
    );
  },
  documentState: async () => {
    expect(await ingest.documentState('docs/billing.md', MODEL)).toEqual({
      document_id: world.documentId,
      status: 'ready',
      checksum: 'c1',
      stale_embeddings: 0,
    });
  },
  ingestDocument: async () => {
    const id = await ingest.ingestDocument({
      source: 'docs/new.md',
      name: 'New',
      meta: {},
      checksum: 'n1',
      model: MODEL,
      chunks: [{ content: 'New text.', meta: {}, embedding: basis(2) }],
    });
    const { rows } = await pg.db.query(
      'select d.id, count(c.id)::int as chunks from kb_documents d join kb_chunks c on c.document_id = d.id where d.source = $1 group by d.id',
      ['docs/new.md'],
    );
    expect(rows).toEqual([{ id, chunks: 1 }]);
  },
  listDocuments: async () => {
    expect((await ingest.listDocuments()).map((d) => [d.id, d.source, d.chunks, d.enabled])).toEqual([
      [world.documentId, 'docs/billing.md', 2, true],
    ]);
  },
  setDocumentEnabled: async () => {
    expect(await ingest.setDocumentEnabled(world.documentId, false)).toBe(true);
    expect(await chat.hasDocuments()).toBe(false);
    expect(await ingest.setDocumentEnabled(crypto.randomUUID(), true)).toBe(false);
  },
  deleteDocument: async () => {
    expect(await ingest.deleteDocument(world.documentId)).toBe(true);
    expect(await ingest.deleteDocument(world.documentId)).toBe(false);
    expect((await pg.db.query('select 1 from kb_documents')).rows).toEqual([]);
  },
  pruneDocuments: async () => {
    expect(await ingest.pruneDocuments('docs/', ['docs/other.md'], true)).toEqual([
      { id: world.documentId, source: 'docs/billing.md' },
    ]);
    expect((await pg.db.query('select 1 from kb_documents')).rows).toHaveLength(1); // dry run
    expect(await ingest.pruneDocuments('docs/', ['docs/billing.md'], false)).toEqual([]);
  },
  staleDocuments: async () => {
    expect(await ingest.staleDocuments('other-model')).toEqual([
      { id: world.documentId, source: 'docs/billing.md', name: 'Billing', stale: 2 },
    ]);
    expect(await ingest.staleDocuments(MODEL)).toEqual([]);
  },
  documentChunks: async () => {
    expect((await ingest.documentChunks(world.documentId)).map((c) => [c.chunk_id, c.position, c.content])).toEqual([
      [world.chunkIds[0], 0, 'Refunds are issued within 14 days.'],
      [world.chunkIds[1], 1, 'Invoices are emailed monthly.'],
    ]);
  },
  setEmbeddings: async () => {
    expect(
      await ingest.setEmbeddings(
        'other-model',
        world.chunkIds.map((chunk_id, i) => ({ chunk_id, embedding: basis(10 + i) })),
      ),
    ).toBe(2);
    expect(await ingest.staleDocuments('other-model')).toEqual([]);
  },
  webhookTarget: async () => {
    await pg.db.exec(
      `update kb_settings set webhook_url = 'https://hooks.example.com/kb', webhook_secret = 'whsec-0123456789abcdef0123456789abcdef'`,
    );
    try {
      expect(await ingest.webhookTarget!()).toEqual({
        url: 'https://hooks.example.com/kb',
        secret: 'whsec-0123456789abcdef0123456789abcdef',
      });
    } finally {
      await pg.db.exec('update kb_settings set webhook_url = null, webhook_secret = null');
    }
  },
  claimWebhookEvent: async () => {
    const id = `evt_${crypto.randomUUID()}`;
    expect([await ingest.claimWebhookEvent!(id), await ingest.claimWebhookEvent!(id)]).toEqual([true, false]);
  },
  optimize: async () => {
    await ingest.optimize();
    const { rows } = await pg.db.query<{ chunks: string }>('select chunks from kb_corpus_stats');
    expect(Number(rows[0]!.chunks)).toBe(2);
  },
  // `npm run console -- answer-key`: the service role replaces the hash; the old key is refused at once.
  setSupabaseAnswerWriteKey: async () => {
    const next = newAnswerWriteKey();
    try {
      await setSupabaseAnswerWriteKey(
        { url: server.url, key: server.serviceRoleKey, realtimeTransport: ws },
        await answerWriteKeyHash(next),
      );
      await expect(aliceTurn()).rejects.toMatchObject({
        kind: 'unavailable',
        message: expect.stringMatching(/answer write key is missing or wrong/),
      });
      const rotated = createSupabaseChatStore({
        url: server.url,
        key: server.anonKey,
        answerWriteKey: next,
        realtimeTransport: ws,
      });
      const messageId = crypto.randomUUID();
      const { session_id } = await rotated.beginTurn(world.alice, {
        message_id: messageId,
        content: 'Rotated?',
        title: 'Rotated?',
      });
      expect(
        await rotated.finishTurn(world.alice, {
          session_id,
          reply_to: messageId,
          content: 'Yes.',
          citations: [],
          meta: {},
        }),
      ).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await pg.db.query('select kb_set_answer_write_key($1)', [await answerWriteKeyHash(KEY)]);
    }
  },
  // Re-crawling and sync runs (20261126050000): validators stored and read back only while the checksum matches.
  setHttpCache: async () => {
    const cache = {
      url: 'https://docs.example.com/billing',
      etag: '"v1"',
      last_modified: null,
      checksum: 'c1',
      chunking: 'chunks-2',
      model: MODEL,
    };
    expect(await ingest.setHttpCache('docs/billing.md', cache)).toBe(true);
    expect(await ingest.setHttpCache('docs/missing.md', cache)).toBe(false);
  },
  httpCache: async () => {
    await pg.setHttpCache('docs/billing.md', {
      url: 'u',
      etag: '"v1"',
      last_modified: null,
      checksum: 'c1',
      chunking: 'chunks-2',
      model: MODEL,
    });
    expect(await ingest.httpCache('docs/')).toEqual([
      { source: 'docs/billing.md', http_cache: expect.objectContaining({ etag: '"v1"' }) },
    ]);
    expect(await ingest.httpCache('https://')).toEqual([]);
  },
  startSyncRun: async () => {
    const id = await ingest.startSyncRun('docs/', 'cli');
    expect((await pg.db.query('select source, finished_at from kb_sync_runs where id = $1', [id])).rows).toEqual([
      { source: 'docs/', finished_at: null },
    ]);
  },
  finishSyncRun: async () => {
    const id = await pg.startSyncRun('docs/', 'schedule');
    await ingest.finishSyncRun(id, { added: 1, updated: 0, unchanged: 0, removed: 0, failed: 1, chunks: 2, bytes: 0 }, [
      { source: 'docs/x.md', error: 'broken' },
    ]);
    const { rows } = await pg.db.query<{ counts: { added: number }; errors: unknown[] }>(
      'select counts, errors from kb_sync_runs where id = $1',
      [id],
    );
    expect(rows[0]).toMatchObject({ counts: { added: 1 }, errors: [{ source: 'docs/x.md', error: 'broken' }] });
  },
  adminSyncStatus: async () => {
    await pg.db.exec('delete from kb_sync_runs');
    const id = await pg.startSyncRun('docs/', 'cli');
    await pg.finishSyncRun(id, { added: 2, updated: 0, unchanged: 0, removed: 0, failed: 0, chunks: 4, bytes: 0 }, []);
    const [status] = await chat.adminSyncStatus(await asAdmin());
    expect(status).toMatchObject({ source: 'docs/', trigger: 'cli', counts: { added: 2 }, errors: [] });
    expect(status!.last_success_at).toBe(status!.finished_at);
  },
  // The console's (admins only; Alice's claims with the admin role).
  adminWhoami: async () => expect(await chat.adminWhoami(await asAdmin())).toEqual({ user_id: world.alice.sub }),
  adminListGaps: async () => {
    const { messageId } = await aliceTurn('Do you ship to Mars?');
    await chat.recordContentGap(world.alice, 'Do you ship to Mars?', 'no_evidence', messageId);
    const page = await chat.adminListGaps(await asAdmin(), { status: 'open', limit: 10, offset: 0 });
    expect([page.total, page.items.map((g) => [g.question_key, g.asked, g.done_at])]).toEqual([
      1,
      [['do you ship to mars?', 1, null]],
    ]);
  },
  adminSetGapDone: async () => {
    const { messageId } = await aliceTurn('Do you ship to Mars?');
    await chat.recordContentGap(world.alice, 'Do you ship to Mars?', 'no_evidence', messageId);
    expect(await chat.adminSetGapDone(await asAdmin(), 'do you ship to mars?', true)).toBe(true);
    expect(await chat.adminSetGapDone(await asAdmin(), 'never asked', true)).toBe(false);
  },
  adminListConversations: async () => {
    const { answerId } = await aliceTurn('Refunds?');
    const page = await chat.adminListConversations(await asAdmin(), {
      rating: 'any',
      outcome: 'answered',
      limit: 10,
      offset: 0,
    });
    expect(page.items.map((c) => [c.message_id, c.question, c.answer, c.rating])).toEqual([
      [answerId, 'Refunds?', 'Within 14 days.', null],
    ]);
  },
  adminGetThread: async () => {
    const { sessionId, messageId, answerId } = await aliceTurn('Refunds?');
    const thread = await chat.adminGetThread(await asAdmin(), sessionId);
    expect(thread?.turns.map((t) => [t.question_id, t.question, t.message_id, t.answer, t.kind])).toEqual([
      [messageId, 'Refunds?', answerId, 'Within 14 days.', 'answer'],
    ]);
    expect(await chat.adminGetThread(await asAdmin(), crypto.randomUUID())).toBe(null);
  },
  adminListDocuments: async () => {
    const page = await chat.adminListDocuments(await asAdmin(), { q: 'bill', limit: 10, offset: 0 });
    expect(page.items.map((d) => [d.id, d.title, d.chunks, d.embedding_model])).toEqual([
      [world.documentId, 'Billing', 2, MODEL],
    ]);
  },
  adminSetDocumentEnabled: async () => {
    expect(await chat.adminSetDocumentEnabled(await asAdmin(), world.documentId, false)).toBe(true);
    expect(await chat.hasDocuments()).toBe(false);
  },
  adminDeleteDocument: async () => {
    expect(await chat.adminDeleteDocument(await asAdmin(), world.documentId)).toBe(true);
    expect(await chat.adminDeleteDocument(await asAdmin(), world.documentId)).toBe(false);
  },
  adminOverview: async () => {
    await aliceTurn('Refunds?');
    const now = Date.now();
    const overview = await chat.adminOverview(
      await asAdmin(),
      new Date(now - 86_400_000).toISOString(),
      new Date(now + 1000).toISOString(),
    );
    expect([overview.questions, overview.answered, overview.refused, overview.days.length]).toEqual([1, 1, 0, 2]);
  },
  // Data out: keyset pages, the cursor handed back as PostgREST returned it (microseconds intact).
  adminExportConversations: async () => {
    const first = await aliceTurn('First?');
    const second = await aliceTurn('Second?');
    const admin = await asAdmin();
    const page = await chat.adminExportConversations(admin, { from: null, to: null, after: null, limit: 1 });
    expect(page.map((r) => r.message_id)).toEqual([first.answerId]);
    const next = await chat.adminExportConversations(admin, { from: null, to: null, after: page[0]!.cursor, limit: 1 });
    expect(next.map((r) => [r.message_id, r.question])).toEqual([[second.answerId, 'Second?']]);
  },
  adminExportGaps: async () => {
    const { messageId } = await aliceTurn('Do you ship to Mars?');
    await chat.recordContentGap(world.alice, 'Do you ship to Mars?', 'no_evidence', messageId);
    const rows = await chat.adminExportGaps(await asAdmin(), { from: null, to: null, after: null, limit: 10 });
    expect(rows.map((r) => [r.question_key, r.asked])).toEqual([['do you ship to mars?', 1]]);
  },
  adminExportFeedback: async () => {
    const { answerId } = await aliceTurn('Refunds?');
    await chat.setFeedback(world.alice, { message_id: answerId, rating: -1, comment: 'Too short' });
    const rows = await chat.adminExportFeedback(await asAdmin(), {
      from: '2020-01-01T00:00:00Z',
      to: null,
      after: null,
      limit: 10,
    });
    expect(rows.map((r) => [r.message_id, r.rating, r.comment])).toEqual([[answerId, -1, 'Too short']]);
  },
  adminGetWebhook: async () => {
    await pg.db.exec(
      `update kb_settings set webhook_url = 'https://hooks.example.com/kb', webhook_secret = 'whsec-0123456789abcdef0123456789abcdef'`,
    );
    try {
      expect(await chat.adminGetWebhook(await asAdmin())).toEqual({
        url: 'https://hooks.example.com/kb',
        secret_set: true,
        last_change: null,
      });
    } finally {
      await pg.db.exec('update kb_settings set webhook_url = null, webhook_secret = null');
    }
  },
};

/** Alice with the admin role in app_metadata, as Supabase Auth would sign it. */
async function asAdmin(): Promise<JwtClaims> {
  const token = await sign(
    {
      sub: world.alice.sub,
      role: 'authenticated',
      aud: 'authenticated',
      app_metadata: { role: 'admin' },
      exp: Math.floor(Date.now() / 1000) + 60,
    },
    SECRET,
    'HS256',
  );
  return verifyAccessToken(token, SECRET);
}

const CALLS = rpcCalls();

describe('the rpc calls of server/store/supabase.ts (derived from its source)', () => {
  it('finds every call, each of a function functions.ts describes as called by a store, with its argument names', () => {
    expect(CALLS.length).toBeGreaterThanOrEqual(20);
    expect(Object.keys(EXERCISES).sort()).toEqual(CALLS.map((c) => c.method).sort());
    // Every function a store calls, except the embedded store's own, is called here; nothing else is.
    const called = Object.entries(SQL_FUNCTIONS)
      .filter(([, f]) => f.via !== 'sql' && !('embeddedOnly' in f))
      .map(([name]) => name);
    expect([...new Set(CALLS.map((c) => c.fn))].sort()).toEqual(called.sort());
    for (const call of CALLS) {
      const declared = SQL_FUNCTIONS[call.fn as keyof typeof SQL_FUNCTIONS].args.map(argName);
      expect(
        call.args.filter((a) => !declared.includes(a)),
        call.fn,
      ).toEqual([]);
    }
  });

  it.each(CALLS.map((c) => [`${c.fn}(${c.args.join(', ')})`, c] as const))(
    '%s runs against PostgREST',
    async (_, call) => {
      await EXERCISES[call.method]!();
      const sent = server.log.filter((e) => e.path === `/rest/v1/rpc/${call.fn}`);
      expect(sent.length).toBeGreaterThan(0);
      for (const entry of sent) expect(entry).toMatchObject({ status: 200, args: call.args });
    },
  );
});
