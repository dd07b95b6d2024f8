/**
 * `POST /api/feedback` on the production path: the Worker bundle in workerd, supabase-js, and the
 * PostgREST-compatible server over PGlite. Ownership is decided by Postgres (chat_set_feedback, as the
 * visitor), never by the Worker; bad input and missing tokens never reach the database.
 */
import { sign } from 'hono/jwt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AnonymousAuth, ErrorBody, FeedbackResponse, Refusal, SessionDetail } from '../../protocol/index.ts';
import { seedKb } from '../../server/testing/api.ts';
import { readChatEvents } from '../../protocol/sse.ts';
import { basis, withSimilarity } from '../../server/testing/vectors.ts';
import { SITE, startWorker, type WorkerHarness } from './harness.ts';

let harness: WorkerHarness;

beforeAll(async () => {
  harness = await startWorker();
  await seedKb(harness.pg);
});
afterAll(async () => {
  await harness?.close();
});
beforeEach(async () => {
  await harness.pg.db.exec('delete from chat_sessions; delete from rate_limits;');
  harness.supabase.log.length = 0;
});

const worker = (path: string, init?: RequestInit) => harness.worker(path, init);

async function signIn(): Promise<AnonymousAuth> {
  return (await (await worker('/api/auth/anonymous', { method: 'POST' })).json()) as AnonymousAuth;
}

const post = (path: string, token: string | null, body: unknown) =>
  worker(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** A streamed answer of the visitor's: the stored answer's id (answer_end) and its session. */
async function answer(token: string) {
  const events = await readChatEvents(
    await post('/api/chat', token, {
      embedding: basis(0),
      message: 'How do refunds work?',
      message_id: crypto.randomUUID(),
    }),
  );
  const [start, end] = [events[0]!.event, events.at(-1)!.event];
  if (start.event !== 'answer_start' || end.event !== 'answer_end') throw new Error('no answer');
  return { answerId: end.data.message_id, sessionId: start.data.session_id };
}

const feedbackRows = async () =>
  (
    await harness.pg.db.query<{ message_id: string; user_id: string; rating: number; comment: string | null }>(
      'select message_id, user_id, rating, comment from chat_feedback',
    )
  ).rows;

describe('POST /api/feedback through the Worker and PostgREST', () => {
  it('rates an answer as the visitor, replaces the rating on a change of mind, and shows it in history', async () => {
    const alice = await signIn();
    const { answerId, sessionId } = await answer(alice.access_token);
    const up = await post('/api/feedback', alice.access_token, { message_id: answerId, rating: 1 });
    expect(up.status).toBe(200);
    expect(await up.json()).toMatchObject({ message_id: answerId, rating: 1, comment: null });
    const down = await post('/api/feedback', alice.access_token, {
      message_id: answerId,
      rating: -1,
      comment: '<b>Wrong</b> period',
    });
    expect(((await down.json()) as FeedbackResponse).comment).toBe('<b>Wrong</b> period');
    expect(await feedbackRows()).toEqual([
      { message_id: answerId, user_id: alice.user_id, rating: -1, comment: '<b>Wrong</b> period' },
    ]);

    const history = (await (
      await worker(`/api/sessions/${sessionId}`, { headers: { Authorization: `Bearer ${alice.access_token}` } })
    ).json()) as SessionDetail;
    expect(history.messages.find((m) => m.id === answerId)?.feedback).toBe(-1);

    // Both writes and the history read ran as Alice, with the anon key: never the service role.
    for (const fn of ['chat_set_feedback', 'get_chat_feedback']) {
      expect(harness.supabase.log).toContainEqual(
        expect.objectContaining({ path: `/rest/v1/rpc/${fn}`, status: 200, role: 'authenticated', sub: alice.user_id }),
      );
    }
    for (const e of harness.supabase.log) expect(e.apikeyRole).toBe('anon');
  });

  it('rates a refusal by the id the JSON refusal carries', async () => {
    const { access_token } = await signIn();
    const refusal = (await (
      await post('/api/chat', access_token, {
        embedding: withSimilarity(0, 0.2),
        message: 'Mars?',
        message_id: crypto.randomUUID(),
      })
    ).json()) as Refusal;
    expect(refusal.type).toBe('refusal');
    expect(refusal.message_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      (
        await post('/api/feedback', access_token, {
          message_id: refusal.message_id,
          rating: -1,
          comment: 'It is in the docs.',
        })
      ).status,
    ).toBe(200);
    expect(await feedbackRows()).toMatchObject([{ message_id: refusal.message_id, rating: -1 }]);
  });

  it("answers 404 for another visitor's answer (refused by Postgres) and for an unknown id, changing nothing", async () => {
    const alice = await signIn();
    const bob = await signIn();
    const { answerId } = await answer(alice.access_token);
    await post('/api/feedback', alice.access_token, { message_id: answerId, rating: 1 });
    for (const id of [answerId, crypto.randomUUID()]) {
      const res = await post('/api/feedback', bob.access_token, { message_id: id, rating: -1, comment: 'spam' });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'No such answer.' } });
      expect(harness.supabase.log.at(-1)).toMatchObject({
        path: '/rest/v1/rpc/chat_set_feedback',
        status: 403,
        sub: bob.user_id,
      });
    }
    expect(await feedbackRows()).toMatchObject([
      { message_id: answerId, user_id: alice.user_id, rating: 1, comment: null },
    ]);
  });

  it('answers 401 without a token or with a forged one, and 400 naming the field, before touching the database', async () => {
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
    const body = { message_id: crypto.randomUUID(), rating: 1 };
    for (const token of [null, forged]) {
      const res = await post('/api/feedback', token, body);
      expect(res.status).toBe(401);
      expect(((await res.json()) as ErrorBody).error.code).toBe('unauthorized');
    }
    const { access_token } = await signIn();
    harness.supabase.log.length = 0;
    const bad: [unknown, string][] = [
      ['{', 'body'],
      [{ message_id: 'x', rating: 1 }, 'message_id'],
      [{ ...body, rating: 'up' }, 'rating'],
      [{ ...body, rating: -1, comment: '   ' }, 'comment'],
      [{ ...body, rating: -1, comment: 'x'.repeat(1001) }, 'comment'],
    ];
    for (const [payload, field] of bad) {
      const res = await post('/api/feedback', access_token, payload);
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as ErrorBody;
      expect(error.code).toBe('invalid_request');
      expect(error.message.startsWith(`${field}:`), error.message).toBe(true);
    }
    expect(harness.supabase.log).toEqual([]);
  });

  it('is rate limited with the visitor’s chat and search budget (429 + Retry-After), and allows CORS for the site', async () => {
    const { access_token } = await signIn();
    const { answerId } = await answer(access_token); // 1 of 20
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await post('/api/feedback', access_token, { message_id: answerId, rating: i % 2 ? 1 : -1 });
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get('Retry-After'))).toBeGreaterThan(0);
      await res.body?.cancel();
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(19);
    expect(statuses.at(-1)).toBe(429);

    const preflight = await worker('/api/feedback', {
      method: 'OPTIONS',
      headers: {
        Origin: SITE,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(SITE);
  });
});
