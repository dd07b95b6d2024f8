/**
 * The API against a real embedded Postgres (PGlite + pgvector, the real migrations and RLS), through
 * `app.request()`. Embeddings are exact unit vectors so similarities are known to the digit; the
 * end-to-end test covers the real model.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Citation, ErrorBody, Health, Refusal } from '../protocol/index.ts';
import { issueAccessToken } from './auth/jwt.ts';
import { createTestApi, question, TEST_SECRET as SECRET, type TestApi } from './testing/api.ts';
import { readChatEvents } from '../protocol/sse.ts';
import { basis, withSimilarity } from './testing/vectors.ts';

let api: TestApi;
let store: TestApi['store'];
let app: TestApi['app'];

beforeAll(async () => {
  api = await createTestApi();
  ({ store, app } = api);
});
afterAll(() => api?.close());
beforeEach(() => api.reset());

const signIn = () => api.signIn();
const chat = (token: string | null, body: unknown, init: RequestInit = {}) => api.chat(token, body, init);
const seedKb = () => api.seedKb();

async function messagesOf(sessionId: string) {
  const { rows } = await store.db.query<{
    id: string;
    role: string;
    content: string;
    citations: Citation[] | null;
    meta: Record<string, unknown>;
  }>(
    'select id, role, content, citations, meta from chat_messages where session_id = $1 order by created_at, role desc',
    [sessionId],
  );
  return rows;
}

describe('GET /api/health and /api/config', () => {
  it('reports knowledge-base statistics', async () => {
    await seedKb();
    const res = await app.request('/api/health');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Health;
    expect(body).toMatchObject({
      status: 'ok',
      embed_model: 'test-model',
      kb: { documents: 2, ready_documents: 2, chunks: 3, embeddings: 3 },
    });
  });

  it('tells the browser which model to embed with, the answer mode and the model that writes answers', async () => {
    const res = await app.request('/api/config');
    expect(await res.json()).toEqual({
      embed_model: 'test-model',
      dimensions: 384,
      models_url: '/models/',
      ort_wasm_url: '/ort/',
      answer_mode: 'extractive',
      generation_model: 'HuggingFaceTB/SmolLM2-360M-Instruct',
    });
  });
});

describe('POST /api/chat: authentication', () => {
  it('rejects a request without a token with 401 and writes nothing', async () => {
    await seedKb();
    const res = await chat(null, question(basis(0)));
    expect(res.status).toBe(401);
    expect(((await res.json()) as ErrorBody).error.code).toBe('unauthorized');
    expect((await store.db.query('select 1 from chat_messages')).rows).toHaveLength(0);
  });

  it('rejects a token signed with another secret, an expired one and a non-user role', async () => {
    const { userId } = await signIn();
    const now = Math.floor(Date.now() / 1000);
    const wrongSecret = await issueAccessToken(userId, 'another-secret-another-secret-1234');
    const expired = await issueAccessToken(userId, SECRET, now - 8 * 24 * 3600);
    for (const token of [wrongSecret, expired, 'not.a.jwt']) {
      expect((await chat(token, question(basis(0)))).status).toBe(401);
    }
  });
});

describe('POST /api/chat: validation', () => {
  it.each([
    ['a body that is not JSON', '{nope', 'JSON'],
    ['an embedding of the wrong dimension', { ...question(basis(0)), embedding: [1, 2, 3] }, 'embedding'],
    ['an embedding with a non-number', { ...question(basis(0)), embedding: [...basis(0).slice(1), 'x'] }, 'embedding'],
    ['an empty message', question(basis(0), '   '), 'message'],
    ['an over-long message', question(basis(0), 'x'.repeat(2001)), 'message'],
    ['a message id that is not a UUID', { ...question(basis(0)), message_id: '42' }, 'message_id'],
    ['a session id that is not a UUID', question(basis(0), 'hi', { session_id: 'abc' }), 'session_id'],
  ])('answers 400 naming the field for %s, and writes nothing', async (_name, body, field) => {
    const { token } = await signIn();
    const res = await chat(token, body);
    expect(res.status).toBe(400);
    const error = ((await res.json()) as ErrorBody).error;
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain(field);
    expect((await store.db.query('select 1 from chat_messages')).rows).toHaveLength(0);
  });
});

describe('POST /api/chat: answers', () => {
  it('streams answer_start, deltas, sources and answer_end with a verbatim cited answer, and stores the turn', async () => {
    await seedKb();
    const { token } = await signIn();
    const body = question(withSimilarity(0, 0.8));
    const res = await chat(token, body);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);

    const events = await readChatEvents(res);
    const names = events.map((e) => e.event.event);
    expect(names[0]).toBe('answer_start');
    expect(names.slice(-2)).toEqual(['sources', 'answer_end']);
    expect(names.filter((n) => n === 'answer_delta').length).toBeGreaterThan(1);
    expect(events.every((e, i) => e.id === `${body.message_id}:${i}`)).toBe(true);

    const start = events[0]!.event;
    if (start.event !== 'answer_start') throw new Error('unreachable');
    expect(start.data.message_id).toBe(body.message_id);

    const text = events.flatMap((e) => (e.event.event === 'answer_delta' ? [e.event.data.text] : [])).join('');
    // Both sentences say how refunds work ("refunded" meets "refunds"); both are quoted, verbatim, from source 1.
    expect(text).toBe('Refunds are issued within 14 days of a charge. [1] Annual plans are refunded pro rata. [1]');

    const sources = events.at(-2)!.event;
    if (sources.event !== 'sources') throw new Error('unreachable');
    expect(sources.data.citations).toEqual([
      expect.objectContaining({
        n: 1,
        title: 'Billing',
        page: 2,
        section: 'Billing › Refunds',
        url: '/docs/billing#refunds',
        similarity: 0.8,
      }),
    ]);

    const stored = await messagesOf(start.data.session_id);
    expect(stored.map((m) => [m.role, m.content])).toEqual([
      ['user', 'How do refunds work?'],
      ['assistant', text],
    ]);
    expect(stored[1]!.citations).toEqual(sources.data.citations);
    // answer_end names the stored assistant message (not the question's id).
    expect(events.at(-1)!.event).toEqual({ event: 'answer_end', data: { message_id: stored[1]!.id } });
    expect(stored[1]!.id).not.toBe(body.message_id);
  });

  it('cites the quoted chunks and offers the other chunks above the threshold as related', async () => {
    await seedKb();
    const { token } = await signIn();
    // cos 0.6 with the refunds chunk and 0.6 with the invoices chunk.
    const embedding = basis(0).map((_, i) => (i === 0 || i === 1 ? 0.6 : i === 383 ? Math.sqrt(1 - 0.72) : 0));
    const events = await readChatEvents(await chat(token, question(embedding, 'refunds and invoices')));
    const sources = events.find((e) => e.event.event === 'sources')!.event;
    if (sources.event !== 'sources') throw new Error('unreachable');
    const text = events.flatMap((e) => (e.event.event === 'answer_delta' ? [e.event.data.text] : [])).join('');
    // Every citation is quoted ([n] in the text), numbered 1..N; both qualifying sections are offered.
    expect(sources.data.citations.map((c) => c.n)).toEqual(sources.data.citations.map((_, i) => i + 1));
    for (const c of sources.data.citations) expect(text).toContain(`[${c.n}]`);
    const offered = [...sources.data.citations, ...(sources.data.related ?? [])].map((c) => c.section);
    // Exactly the two sections above the threshold (the internal document's chunk is orthogonal).
    expect(offered.sort()).toEqual(['Billing › Invoices', 'Billing › Refunds']);
  });

  it('titles a new session from the first message and appends later turns to it', async () => {
    await seedKb();
    const { token } = await signIn();
    const first = await readChatEvents(await chat(token, question(basis(0), 'Refund?')));
    const start = first[0]!.event;
    if (start.event !== 'answer_start') throw new Error('unreachable');
    await readChatEvents(await chat(token, question(basis(1), 'And invoices?', { session_id: start.data.session_id })));

    const { rows } = await store.db.query<{ title: string; n: number }>(
      'select title, (select count(*)::int from chat_messages m where m.session_id = s.id) as n from chat_sessions s',
    );
    expect(rows).toEqual([{ title: 'Refund?', n: 4 }]);
  });

  it("answers another user's session id as a new conversation (row-level security), writing nothing to theirs", async () => {
    await seedKb();
    const alice = await signIn();
    const bob = await signIn();
    const start = (await readChatEvents(await chat(alice.token, question(basis(0)))))[0]!.event;
    if (start.event !== 'answer_start') throw new Error('unreachable');
    const mine = async () =>
      (await store.db.query('select 1 from chat_messages where session_id = $1', [start.data.session_id])).rows.length;
    const before = await mine();

    const res = await chat(bob.token, question(basis(0), 'steal', { session_id: start.data.session_id }));
    expect(res.status).toBe(200);
    const bobStart = (await readChatEvents(res))[0]!.event;
    expect(bobStart.event === 'answer_start' && bobStart.data.session_id).not.toBe(start.data.session_id);
    expect(await mine()).toBe(before);
  });

  it('answers 409 for a message id reused with a different message, writing nothing', async () => {
    await seedKb();
    const { token } = await signIn();
    const body = question(basis(0));
    await readChatEvents(await chat(token, body));
    const res = await chat(token, { ...body, message: 'Something else entirely' });
    expect(res.status).toBe(409);
    expect(((await res.json()) as ErrorBody).error.code).toBe('conflict');
    expect((await store.db.query('select 1 from chat_messages')).rows).toHaveLength(2);
  });
});

describe('POST /api/chat: refusals', () => {
  it('refuses with the empty-knowledge-base message when nothing is ingested', async () => {
    const { token } = await signIn();
    const res = await chat(token, question(basis(0)));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await res.json()) as Refusal).reason).toBe('empty_kb');
  });

  it('refuses below the threshold (0.34) and answers at it (0.35)', async () => {
    await seedKb();
    const { token } = await signIn();
    const below = await chat(token, question(withSimilarity(0, 0.34)));
    expect(await below.json()).toEqual({
      type: 'refusal',
      reason: 'no_evidence',
      message:
        // No support address is set, so the message does not send the visitor looking for support.
        "I don't have enough information to answer that question. You might try rephrasing your question.",
      // "Contact support" and "Rephrase your question" are things the widget does, not questions to send.
      suggestions: [],
      actions: ['contact_support', 'rephrase'],
      // 0.34 is within the closest-pages band below 0.35 (server/chat/closest.ts): the refunds page is named.
      closest: [expect.objectContaining({ title: 'Billing', section: 'Billing › Refunds' })],
      message_id: expect.stringMatching(/^[0-9a-f-]{36}$/), // the stored refusal, which can be rated
    });
    const at = await chat(token, question(withSimilarity(0, 0.35)));
    expect(at.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await readChatEvents(at);
  });

  it('stores a refusal in the session like any answer', async () => {
    await seedKb();
    const { token } = await signIn();
    await chat(token, question(basis(200), 'Who won the match?'));
    const { rows } = await store.db.query<{ role: string; meta: { kind?: string } }>(
      'select role, meta from chat_messages order by created_at, role desc',
    );
    expect(rows.map((r) => [r.role, r.meta.kind ?? null])).toEqual([
      ['user', null],
      ['assistant', 'refusal'],
    ]);
  });

  it('never retrieves from a disabled document', async () => {
    await seedKb();
    const { token } = await signIn();
    const res = await chat(token, question(basis(2), 'staff discount code'));
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await readChatEvents(res);

    await store.db.exec("update kb_documents set enabled = false where source = 'secret.md'");
    const refused = await chat(token, question(basis(2), 'staff discount code'));
    expect(((await refused.json()) as Refusal).reason).toBe('no_evidence');
  });
});

describe('unknown API paths', () => {
  it('answer 404 with the error body', async () => {
    const res = await app.request('/api/nope');
    expect(res.status).toBe(404);
    expect(((await res.json()) as ErrorBody).error.code).toBe('not_found');
  });
});
