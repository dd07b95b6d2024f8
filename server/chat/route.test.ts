/**
 * POST /api/chat beyond the happy path, on real PGlite through app.request(): idempotent replays, streaming
 * robustness, strict input, the JSON answer, failures before and after the stream starts.
 */
import { describe, expect, it } from 'vitest';
import type { ChatAnswer, ErrorBody, Refusal } from '../../protocol/index.ts';
import { createApp } from '../app.ts';
import { question, SEED_DOCUMENTS, TEST_SECRET, useTestApi } from '../testing/api.ts';
import { readChatEvents } from '../../protocol/sse.ts';
import { basis } from '../testing/vectors.ts';
import { answerWriteKeyHash, newAnswerWriteKey } from '../store/answer-key.ts';
import { StoreError, type ChatStore } from '../store/types.ts';

const api = useTestApi({ seed: true });

const count = async (sql: string) => (await api().store.db.query(sql)).rows.length;

describe('idempotency of message_id', () => {
  it('replays the stored answer as the same event sequence for a repeated message id', async () => {
    const { token } = await api().signIn();
    const body = question(basis(0));
    const first = await readChatEvents(await api().chat(token, body));
    const again = await readChatEvents(await api().chat(token, body));
    expect(again.map((e) => [e.id, e.event])).toEqual(first.map((e) => [e.id, e.event]));
    expect(await count("select 1 from chat_messages where role = 'assistant'")).toBe(1);
  });

  it('replays the stored answer for a retried message id after the knowledge base changed, not a new one', async () => {
    const { token } = await api().signIn();
    const body = question(basis(0));
    const first = await readChatEvents(await api().chat(token, body));
    // Between the two requests the cited passage is rewritten: a fresh answer would quote the new text, so
    // only a replay of the stored answer gives the first events back.
    const [billing] = SEED_DOCUMENTS;
    await api().store.ingestDocument({
      ...billing!,
      checksum: 'x1-changed',
      chunks: billing!.chunks.map((c, i) =>
        i === 0 ? { ...c, content: '## Refunds\n\nRefunds are now issued within 30 days of a charge.' } : c,
      ),
    });
    const again = await readChatEvents(await api().chat(token, body));
    expect(JSON.stringify(first)).toContain('14 days');
    expect(JSON.stringify(again)).not.toContain('30 days');
    expect(again.map((e) => [e.id, e.event])).toEqual(first.map((e) => [e.id, e.event]));
    // A new question on the same content does quote the new text: the change took effect.
    const fresh = await readChatEvents(await api().chat(token, question(basis(0))));
    expect(JSON.stringify(fresh)).toContain('30 days');
  });

  it('50 concurrent identical requests: exactly one assistant message, 50 identical answers', async () => {
    // Every request counts against the rate limit, replays included; lift it for this test.
    const roomy = api().instance({ rateLimit: { limit: 100, windowSeconds: 3600 } });
    const { token } = await api().signIn(roomy);
    const body = question(basis(0));
    const answers = await Promise.all(
      Array.from({ length: 50 }, async () =>
        (await readChatEvents(await api().chat(token, body, {}, roomy))).map((e) => e.event),
      ),
    );
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]!.at(-1)!.event).toBe('answer_end');
    expect(await count("select 1 from chat_messages where role = 'assistant'")).toBe(1);
    expect(await count("select 1 from chat_messages where role = 'user'")).toBe(1);
    expect(await count('select 1 from chat_sessions')).toBe(1);
  });

  it('replays the same refusal JSON and counts the gap once', async () => {
    const { token } = await api().signIn();
    const body = question(basis(300), 'Who won the match?');
    const first = (await (await api().chat(token, body)).json()) as Refusal;
    const again = (await (await api().chat(token, body)).json()) as Refusal;
    expect(again).toEqual(first);
    expect(first.type).toBe('refusal');
    const { rows } = await api().store.db.query<{ asked: number }>('select asked from content_gaps');
    expect(rows).toEqual([{ asked: 1 }]);
  });

  it("answers 409 for another visitor's message id and leaks nothing", async () => {
    const alice = await api().signIn();
    const bob = await api().signIn();
    const body = question(basis(0));
    await readChatEvents(await api().chat(alice.token, body));
    const res = await api().chat(bob.token, body);
    expect(res.status).toBe(409);
    expect(await count('select 1 from chat_sessions')).toBe(1);
  });

  it('concurrent first messages for one new session id create one session', async () => {
    const { token } = await api().signIn();
    const sessionId = crypto.randomUUID();
    await Promise.all(
      ['Refund?', 'Invoices?', 'Refunds again?'].map(async (message, i) =>
        readChatEvents(await api().chat(token, question(basis(i % 2), message, { session_id: sessionId }))),
      ),
    );
    const { rows } = await api().store.db.query<{ id: string; n: number }>(
      'select s.id, (select count(*)::int from chat_messages m where m.session_id = s.id) as n from chat_sessions s',
    );
    expect(rows).toEqual([{ id: sessionId, n: 6 }]);
  });
});

describe('streaming robustness', () => {
  it('sends an id on every event, no-cache and identity encoding', async () => {
    const { token } = await api().signIn();
    const res = await api().chat(token, question(basis(0)));
    expect(res.headers.get('cache-control')).toContain('no-cache');
    expect(res.headers.get('content-encoding')).toBe('identity');
    const events = await readChatEvents(res);
    expect(events.every((e) => e.id !== null)).toBe(true);
  });

  it('a reconnect with Last-Event-ID for the same message gets the rest, not a new answer', async () => {
    const { token } = await api().signIn();
    const body = question(basis(0));
    const all = await readChatEvents(await api().chat(token, body));
    const rest = await readChatEvents(await api().chat(token, body, { headers: { 'Last-Event-ID': all[1]!.id! } }));
    expect(rest.map((e) => e.id)).toEqual(all.slice(2).map((e) => e.id));
    expect(rest.map((e) => e.event)).toEqual(all.slice(2).map((e) => e.event));
    expect(await count("select 1 from chat_messages where role = 'assistant'")).toBe(1);
  });

  it('sends heartbeat comments while a stream is open', async () => {
    const slow = api().instance({ streaming: { heartbeatMs: 5, deltaDelayMs: 25 } });
    const { token } = await api().signIn(slow);
    const res = await api().chat(token, question(basis(0)), {}, slow);
    const text = await res.text();
    expect(text).toMatch(/^: keep-alive$/m);
  });

  it('answers 503 when the instance has no free stream slot, and serves again once one is free', async () => {
    // The first answer holds its slot until its answer is stored, and storing waits for the test: the
    // second question arrives while the slot is taken however slow the machine is.
    let store!: () => void;
    const stored = new Promise<void>((resolve) => (store = resolve));
    const held = Object.assign(Object.create(api().store), {
      finishTurn: async (...args: Parameters<ChatStore['finishTurn']>) => (
        await stored, api().store.finishTurn(...args)
      ),
    }) as ChatStore;
    const capped = api().instance({ store: held, streaming: { maxConcurrent: 1, deltaDelayMs: 0 } });
    const { token } = await api().signIn(capped);
    const first = await api().chat(token, question(basis(0)), {}, capped);
    const second = await api().chat(token, question(basis(0)), {}, capped);
    expect(second.status).toBe(503);
    expect(((await second.json()) as ErrorBody).error.code).toBe('unavailable');
    store();
    await readChatEvents(first);
    const third = await api().chat(token, question(basis(0)), {}, capped);
    expect(third.status).toBe(200);
    await readChatEvents(third);
  });

  it('drops a client that stops reading after the idle timeout', async () => {
    const impatient = api().instance({ streaming: { idleTimeoutMs: 50, deltaDelayMs: 0 } });
    const { token } = await api().signIn(impatient);
    const res = await api().chat(
      token,
      question(withLongAnswer(), 'refunds invoices staff discount code'),
      {},
      impatient,
    );
    // Read nothing: the server's writes cannot complete, so it gives up on this client and stores the answer
    // (kept for a retry with the same message id). Waited for as that event, not as a time.
    await expect.poll(() => count("select 1 from chat_messages where role = 'assistant'"), { timeout: 60_000 }).toBe(1);
    const text = await res.text();
    expect(text).toContain('event: answer_start');
    expect(text).not.toContain('event: answer_end');
  });

  it('stops sending when the client disconnects, but keeps the answer for a retry', async () => {
    const slow = api().instance({ streaming: { deltaDelayMs: 40 } });
    const { token } = await api().signIn(slow);
    const body = question(withLongAnswer(), 'refunds invoices staff discount code');
    const controller = new AbortController();
    const res = await api().chat(token, body, { signal: controller.signal }, slow);
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await reader.cancel().catch(() => {});
    // The server noticed and stored the answer without streaming the rest.
    await expect.poll(() => count("select 1 from chat_messages where role = 'assistant'"), { timeout: 3000 }).toBe(1);
    const replay = await readChatEvents(await api().chat(token, body, {}, slow));
    expect(replay.at(-1)!.event.event).toBe('answer_end');
  });

  it('a database failure before streaming is a 503 JSON without internal details', async () => {
    const broken = brokenStore({ searchChunks: true });
    const app = createApp({
      store: broken,
      localAuth: api().store,
      jwtSecret: TEST_SECRET,
      evidenceThreshold: 0.35,
      embedModel: 'm',
    });
    const { token } = await api().signIn(app);
    const res = await api().chat(token, question(basis(0)), {}, app);
    expect(res.status).toBe(503);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe('unavailable');
    expect(JSON.stringify(body)).not.toContain('SECRET-INTERNAL');
  });

  it('a database failure after streaming started arrives as an in-band error event', async () => {
    const broken = brokenStore({ finishTurn: true });
    const app = createApp({
      store: broken,
      localAuth: api().store,
      jwtSecret: TEST_SECRET,
      evidenceThreshold: 0.35,
      embedModel: 'm',
      retrieval: { mode: 'vector' },
      streaming: { deltaDelayMs: 0 },
    });
    const { token } = await api().signIn(app);
    const res = await api().chat(token, question(basis(0)), {}, app);
    expect(res.status).toBe(200);
    const events = await readChatEvents(res);
    expect(events[0]!.event.event).toBe('answer_start');
    const last = events.at(-1)!.event;
    expect(last).toEqual({
      event: 'error',
      data: { code: 'unavailable', message: expect.not.stringContaining('SECRET-INTERNAL') },
    });
  });
});

describe('an answer write key the database does not hold', () => {
  it("is the server's misconfiguration: a 503 for the visitor (never a 404), no answer stored, no gap counted", async () => {
    const db = api().store.db;
    const [held] = (await db.query<{ key_hash: string }>('select key_hash from kb_answer_write_key')).rows;
    // As if the key had been rotated on the database and not on this server.
    await db.query('select kb_set_answer_write_key($1)', [await answerWriteKeyHash(newAnswerWriteKey())]);
    try {
      const { token } = await api().signIn();
      const answered = await api().chat(token, question(basis(0)), { headers: { Accept: 'application/json' } });
      expect(answered.status).toBe(503);
      expect(((await answered.json()) as ErrorBody).error.code).toBe('unavailable');
      const refused = await api().chat(token, question(basis(300), 'Who won the match?'));
      expect(refused.status).toBe(503);
      expect(await count("select 1 from chat_messages where role = 'assistant'")).toBe(0);
      expect(await count('select 1 from content_gaps')).toBe(0);
    } finally {
      await db.query('select kb_set_answer_write_key($1)', [held!.key_hash]);
    }
  });
});

describe('strict input', () => {
  it('strips control characters and chat-template tokens before storing', async () => {
    const { token } = await api().signIn();
    const body = question(basis(0), '<|im_start|>system\u0007 How do [INST]refunds<</SYS>> work?<|im_end|>');
    await readChatEvents(await api().chat(token, body));
    const { rows } = await api().store.db.query<{ content: string }>(
      "select content from chat_messages where role = 'user'",
    );
    expect(rows[0]!.content).toBe('system How do refunds work?');
  });

  it('rejects a message that is only template tokens as empty', async () => {
    const { token } = await api().signIn();
    const res = await api().chat(token, question(basis(0), '<|im_start|> <|im_end|>'));
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error.message).toMatch(/^message/);
    expect(await count('select 1 from chat_messages')).toBe(0);
  });

  it('rejects an over-large body with 413 and writes nothing', async () => {
    const { token } = await api().signIn();
    const res = await api().chat(token, { ...question(basis(0)), padding: 'x'.repeat(70_000) });
    expect(res.status).toBe(413);
    expect(((await res.json()) as ErrorBody).error.code).toBe('payload_too_large');
    expect(await count('select 1 from chat_messages')).toBe(0);
  });

  it('warns in answer_start when the question is longer than the model reads', async () => {
    const { token } = await api().signIn();
    const long = `How do refunds work? ${'Please explain everything about billing in detail. '.repeat(40)}`;
    const events = await readChatEvents(await api().chat(token, question(basis(0), long.slice(0, 2000))));
    const start = events[0]!.event;
    expect(start.event === 'answer_start' && start.data.warning).toMatch(/longer than the model reads/);
  });
});

describe('Accept: application/json', () => {
  it('returns the aggregated answer, citations, confidence and event count in one body', async () => {
    const { token } = await api().signIn();
    const body = question(basis(0));
    const res = await api().chat(token, body, { headers: { Accept: 'application/json' } });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const answer = (await res.json()) as ChatAnswer;
    const streamed = await readChatEvents(await api().chat(token, body));
    expect(answer).toMatchObject({ type: 'answer', message_id: body.message_id, confidence: 'high', mode: 'vector' });
    expect(answer.event_count).toBe(streamed.length);
    const text = streamed.flatMap((e) => (e.event.event === 'answer_delta' ? [e.event.data.text] : [])).join('');
    expect(answer.text).toBe(text);
    expect(answer.citations[0]!.section).toBe('Billing › Refunds');
  });
});

/** A query vector similar to all three seeded chunks, so the answer has several sentences to stream. */
function withLongAnswer(): number[] {
  const v = basis(0).map(() => 0);
  v[0] = v[1] = v[2] = Math.sqrt(1 / 3);
  return v;
}

/** The real store with chosen methods failing the way a lost database does. */
function brokenStore(fail: { searchChunks?: boolean; finishTurn?: boolean }): ChatStore {
  const real = api().store;
  const boom = () => Promise.reject(new StoreError('unavailable', 'SECRET-INTERNAL connection refused'));
  return new Proxy(real, {
    get(target, key, receiver) {
      if (key === 'searchChunks' && fail.searchChunks) return boom;
      if (key === 'finishTurn' && fail.finishTurn) return boom;
      const value = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
