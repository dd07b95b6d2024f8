/**
 * POST /api/feedback on real PGlite through app.request(): who may rate what (401, 404 for anything
 * that is not the caller's own answer or refusal), every field's validation, a change of mind replacing the
 * rating, the shared rate limit, the rating shown again in history, and the XSS corpus stored verbatim.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ErrorBody, FeedbackResponse, Refusal, SessionDetail } from '../../protocol/index.ts';
import { hasSharedData, sharedData } from '../../scripts/lib/shared-data.mjs';
import { cleanText } from '../chat/request.ts';
import { question, useTestApi, type TestApi } from '../testing/api.ts';
import { readChatEvents } from '../../protocol/sse.ts';
import { basis } from '../testing/vectors.ts';

const api = useTestApi({ seed: true });

function rate(token: string | null, body: unknown, target: TestApi['app'] = api().app) {
  return target.request('/api/feedback', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A visitor with one streamed answer: its stored id (answer_end), the session and the question's id. */
async function answered(message = 'How do refunds work?') {
  const visitor = await api().signIn();
  const body = question(basis(0), message);
  const events = await readChatEvents(await api().chat(visitor.token, body));
  const start = events[0]!.event;
  const end = events.at(-1)!.event;
  if (start.event !== 'answer_start' || end.event !== 'answer_end') throw new Error('no answer');
  return { ...visitor, answerId: end.data.message_id, sessionId: start.data.session_id, questionId: body.message_id };
}

const rows = async () =>
  (
    await api().store.db.query<{ message_id: string; user_id: string; rating: number; comment: string | null }>(
      'select message_id, user_id, rating, comment from chat_feedback order by created_at',
    )
  ).rows;
const hits = async () =>
  (await api().store.db.query<{ n: number }>('select coalesce(sum(hits), 0)::int as n from rate_limits')).rows[0]!.n;

describe('POST /api/feedback', () => {
  it('rates an answer; a change of mind replaces the rating and its comment (one row per answer)', async () => {
    const { token, userId, answerId } = await answered();
    const up = await rate(token, { message_id: answerId, rating: 1 });
    expect(up.status).toBe(200);
    expect(up.headers.get('X-RateLimit-Limit')).toBe('20');
    const upBody = (await up.json()) as FeedbackResponse;
    expect(upBody).toMatchObject({ message_id: answerId, rating: 1, comment: null });
    expect(new Date(upBody.updated_at).toISOString()).toBe(upBody.updated_at);

    const down = await rate(token, { message_id: answerId, rating: -1, comment: '  The refund period is wrong.  ' });
    expect(await down.json()).toMatchObject({
      message_id: answerId,
      rating: -1,
      comment: 'The refund period is wrong.',
    });
    expect(await rows()).toEqual([
      { message_id: answerId, user_id: userId, rating: -1, comment: 'The refund period is wrong.' },
    ]);

    // The same request again (a retry) changes nothing; a rating without a comment clears the old comment.
    await rate(token, { message_id: answerId, rating: -1, comment: 'The refund period is wrong.' });
    expect(await rows()).toHaveLength(1);
    await rate(token, { message_id: answerId, rating: 1 });
    expect(await rows()).toEqual([{ message_id: answerId, user_id: userId, rating: 1, comment: null }]);
  });

  it('rates a refusal: the JSON refusal carries the id of the refusal it stored, and a replay the same id', async () => {
    const { token } = await api().signIn();
    const body = question(basis(300), 'Do you ship to Mars?');
    const refusal = (await (await api().chat(token, body)).json()) as Refusal;
    expect(refusal.type).toBe('refusal');
    const stored = await api().store.db.query<{ id: string }>(
      `select id from chat_messages where role = 'assistant' and meta->>'kind' = 'refusal'`,
    );
    expect(refusal.message_id).toBe(stored.rows[0]!.id);
    expect(((await (await api().chat(token, body)).json()) as Refusal).message_id).toBe(refusal.message_id);

    expect(
      (await rate(token, { message_id: refusal.message_id, rating: -1, comment: 'I asked about shipping.' })).status,
    ).toBe(200);
    expect(await rows()).toMatchObject([
      { message_id: refusal.message_id, rating: -1, comment: 'I asked about shipping.' },
    ]);
  });

  it('history carries the visitor’s own rating of each rated answer, and nobody else’s', async () => {
    const { token, answerId, sessionId } = await answered();
    await (await api().chat(token, question(basis(0), 'And refunds again?', { session_id: sessionId }))).text();
    await rate(token, { message_id: answerId, rating: -1 });
    const detail = (await (
      await api().app.request(`/api/sessions/${sessionId}`, { headers: { Authorization: `Bearer ${token}` } })
    ).json()) as SessionDetail;
    expect(detail.messages.map((m) => [m.role, m.feedback ?? null])).toEqual([
      ['user', null],
      ['assistant', -1],
      ['user', null],
      ['assistant', null],
    ]);
    expect(detail.messages[1]!.id).toBe(answerId);
    // get_chat_feedback as another visitor: nothing, even with the session id.
    const other = await api().signIn();
    expect(await api().store.getFeedback({ sub: other.userId, role: 'authenticated' }, sessionId)).toEqual([]);
  });

  it('401 without a token or with a bad one, before the body is read', async () => {
    const { answerId } = await answered();
    const none = await rate(null, { message_id: answerId, rating: 1 });
    expect(none.status).toBe(401);
    expect(((await none.json()) as ErrorBody).error.code).toBe('unauthorized');
    expect((await rate('not-a-jwt', { message_id: answerId, rating: 1 })).status).toBe(401);
    expect(await rows()).toEqual([]);
  });

  it('404, the same answer, for another visitor’s answer, a question, and an id that does not exist', async () => {
    const alice = await answered();
    const mallory = await api().signIn();
    const responses = await Promise.all([
      rate(mallory.token, { message_id: alice.answerId, rating: -1, comment: 'spam' }),
      rate(alice.token, { message_id: alice.questionId, rating: 1 }), // her own question is not an answer
      rate(mallory.token, { message_id: crypto.randomUUID(), rating: 1 }),
    ]);
    const bodies = await Promise.all(responses.map((r) => r.json()));
    expect(responses.map((r) => r.status)).toEqual([404, 404, 404]);
    expect(bodies).toEqual(Array(3).fill({ error: { code: 'not_found', message: 'No such answer.' } }));
    expect(await rows()).toEqual([]);
  });

  it.each([
    ['body', 'not json', /^body: must be JSON/],
    ['body', [1, -1], /^message_id: /], // an array is read as an object without the keys
    ['message_id', { rating: 1 }, /^message_id: /],
    ['message_id', { message_id: 'abc', rating: 1 }, /^message_id: must be a UUID/],
    ['message_id', { message_id: 42, rating: 1 }, /^message_id: must be a string/],
    ['rating', { message_id: crypto.randomUUID() }, /^rating: /],
    ['rating', { message_id: crypto.randomUUID(), rating: 0 }, /^rating: must be 1/],
    ['rating', { message_id: crypto.randomUUID(), rating: 2 }, /^rating: must be 1/],
    ['rating', { message_id: crypto.randomUUID(), rating: 'up' }, /^rating: must be 1/],
    ['rating', { message_id: crypto.randomUUID(), rating: '1' }, /^rating: must be 1/],
    ['comment', { message_id: crypto.randomUUID(), rating: -1, comment: '' }, /^comment: must not be empty/],
    ['comment', { message_id: crypto.randomUUID(), rating: -1, comment: ' \n\t ' }, /^comment: must not be empty/],
    [
      'comment',
      { message_id: crypto.randomUUID(), rating: -1, comment: '\u0000\u0007' },
      /^comment: must not be empty/,
    ],
    [
      'comment',
      { message_id: crypto.randomUUID(), rating: -1, comment: 'x'.repeat(1001) },
      /^comment: must be at most 1000 characters/,
    ],
    ['comment', { message_id: crypto.randomUUID(), rating: -1, comment: 7 }, /^comment: must be a string/],
    ['comment', { message_id: crypto.randomUUID(), rating: -1, comment: null }, /^comment: must be a string/],
  ])('400 naming %s for %j, costing no database work', async (_field, body, message) => {
    const { token } = await api().signIn();
    const before = await hits();
    const res = await rate(token, body);
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as ErrorBody;
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(message);
    expect(await hits()).toBe(before);
  });

  it('accepts a comment of exactly 1000 characters (after trimming)', async () => {
    const { token, answerId } = await answered();
    expect((await rate(token, { message_id: answerId, rating: -1, comment: ` ${'é'.repeat(1000)} ` })).status).toBe(
      200,
    );
    expect((await rows())[0]!.comment).toHaveLength(1000);
  });

  it('is rate limited per visitor, sharing the chat and search budget: 429 with Retry-After', async () => {
    const tight = api().instance({ rateLimit: { limit: 3, windowSeconds: 3600 } });
    const visitor = await api().signIn(tight);
    const events = await readChatEvents(await api().chat(visitor.token, question(basis(0)), {}, tight)); // 1
    const end = events.at(-1)!.event;
    if (end.event !== 'answer_end') throw new Error('no answer');
    expect((await rate(visitor.token, { message_id: end.data.message_id, rating: 1 }, tight)).status).toBe(200); // 2
    expect((await rate(visitor.token, { message_id: end.data.message_id, rating: -1 }, tight)).status).toBe(200); // 3
    const limited = await rate(visitor.token, { message_id: end.data.message_id, rating: 1 }, tight);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect(((await limited.json()) as ErrorBody).error.code).toBe('rate_limited');
    expect((await rows())[0]!.rating).toBe(-1); // the limited change was not stored
  });
});

describe.skipIf(!hasSharedData('xss'))('the XSS corpus (../shared/data/xss) as comments', () => {
  it('is stored verbatim (trimmed, control characters removed) and returned as JSON, never as markup', {
    timeout: 300_000,
  }, async () => {
    const payloads = [
      ...readFileSync(sharedData('xss/payloadbox-xss-payload-list-public.txt'), 'utf8').split('\n'),
      ...readFileSync(sharedData('xss/h5sc-vectors-public.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l).payload as string),
    ].filter((p) => cleanText(p).trim().length > 0);
    expect(payloads.length).toBeGreaterThan(4000);
    const roomy = api().instance({ rateLimit: { limit: 1_000_000, windowSeconds: 3600 } });
    const visitor = await api().signIn(roomy);
    const events = await readChatEvents(await api().chat(visitor.token, question(basis(0)), {}, roomy));
    const end = events.at(-1)!.event;
    if (end.event !== 'answer_end') throw new Error('no answer');
    const mismatches: string[] = [];
    let verbatim = 0;
    for (const payload of payloads) {
      const comment = payload.slice(0, 1000);
      const expected = cleanText(comment).trim();
      const res = await rate(visitor.token, { message_id: end.data.message_id, rating: -1, comment }, roomy);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as FeedbackResponse;
      const [row] = await rows();
      if (res.status !== 200 || body.comment !== expected || row?.comment !== expected) mismatches.push(payload);
      if (row?.comment === payload) verbatim++;
    }
    expect(mismatches).toEqual([]);
    expect(verbatim).toBeGreaterThan(payloads.length * 0.95); // nearly all unchanged byte for byte
  });
});
