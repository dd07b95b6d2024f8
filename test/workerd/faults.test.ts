/**
 * The Worker when Supabase misbehaves. The PostgREST-compatible server injects faults
 * into one call at a time — every call a question makes: the anonymous sign-up, rate_limit_hit,
 * chat_begin_turn, search_chunks, kb_has_documents and record_content_gap (refusals), chat_finish_turn —
 * as a 503, a dropped connection or a slow answer, before the SQL runs or after it committed. A call that
 * never answers is the same failure to the store (no response: status 0) after a timer has run; that timer,
 * its retries and the deadline are tested on a fake clock in server/store/rpc-retry.test.ts, so nothing here
 * depends on how fast this machine answers.
 *
 * What must hold, checked in the database afterwards:
 * - the visitor gets an answer, a clean 503 `{error:{code:'unavailable'}}` with Retry-After, or — once the
 *   answer is streaming — an in-band `error` event; never a 500, never internal text;
 * - only idempotent calls are retried (server/store/functions.ts `retried`), at most 4 attempts within the deadline; a
 *   fault that passes is absorbed by the retry and the visitor never notices;
 * - no row is lost or doubled: after the visitor's own retry (same message id) the question and its answer
 *   are stored exactly once, and a refused question is counted as a content gap exactly once.
 */
import ws from 'ws';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AnonymousAuth } from '../../protocol/index.ts';
import { describeFunction, isRetried } from '../../server/store/functions.ts';
import { createSupabaseIngestStore } from '../../server/store/supabase.ts';
import { seedKb } from '../../server/testing/api.ts';
import { readChatEvents } from '../../protocol/sse.ts';
import { withSimilarity } from '../../server/testing/vectors.ts';
import { startWorker, type WorkerHarness } from './harness.ts';
import type { RpcFault } from './rpc-server.ts';

/**
 * One attempt's limit in these tests (KB_DB_TIMEOUT_MS, its maximum): no fault here waits for it, so it only
 * has to be more than any healthy call takes, and a slow one.
 */
const TIMEOUT_MS = 30_000;
let h: WorkerHarness;

beforeAll(async () => {
  h = await startWorker({ KB_DB_TIMEOUT_MS: String(TIMEOUT_MS) });
  await seedKb(
    createSupabaseIngestStore({ url: h.supabase.url, key: h.supabase.serviceRoleKey, realtimeTransport: ws }),
  );
});
afterAll(() => h?.close());
beforeEach(async () => {
  h.supabase.clearFaults();
  await h.pg.db.exec('delete from chat_sessions; delete from content_gaps; delete from rate_limits;');
  h.supabase.log.length = 0;
});

type Kind = 'answer' | 'refusal';
/** The calls of a question, each with the kind of question that makes it. */
const CALLS: { target: string; kind: Kind }[] = [
  { target: 'rate_limit_hit', kind: 'answer' },
  { target: 'chat_begin_turn', kind: 'answer' },
  { target: 'search_chunks', kind: 'answer' },
  { target: 'chat_finish_turn', kind: 'answer' },
  { target: 'kb_has_documents', kind: 'refusal' },
  { target: 'chat_finish_turn', kind: 'refusal' },
  { target: 'record_content_gap', kind: 'refusal' },
];
const FAULTS: RpcFault[] = [{ kind: 'status', status: 503 }, { kind: 'drop' }];
const INTERNAL =
  /PGRST|rpc|supabase|postgres|fetch|abort|timed? ?out|connect|socket|chat_|kb_|rate_limit|record_content|SQL|Error\b/i;

async function signIn(): Promise<Response> {
  return h.worker('/api/auth/anonymous', { method: 'POST' });
}
async function token(): Promise<string> {
  return ((await (await signIn()).json()) as AnonymousAuth).access_token;
}
const question = (kind: Kind) => ({
  embedding: withSimilarity(0, kind === 'answer' ? 0.8 : 0.34),
  message: kind === 'answer' ? 'How do refunds work?' : 'Do you ship to Mars?',
  message_id: crypto.randomUUID(),
});

type Outcome = {
  status: number;
  kind: 'answer' | 'refusal' | 'unavailable' | 'stream-error' | 'other';
  message?: string;
  retryAfter?: string | null;
};

/** What the visitor saw, reduced to what matters, with the message checked for internal text. */
async function ask(tokenValue: string, body: object): Promise<Outcome> {
  const res = await h.worker('/api/chat', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tokenValue}` },
    body: JSON.stringify(body),
  });
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    const events = (await readChatEvents(res)).map((e) => e.event);
    const last = events.at(-1)!;
    if (last.event === 'answer_end') return { status: res.status, kind: 'answer' };
    if (last.event === 'error') return { status: res.status, kind: 'stream-error', message: last.data.message };
    return { status: res.status, kind: 'other' };
  }
  const json = (await res.json()) as { type?: string; error?: { code: string; message: string } };
  if (json.type === 'refusal') return { status: res.status, kind: 'refusal' };
  if (res.status === 503 && json.error?.code === 'unavailable') {
    return {
      status: 503,
      kind: 'unavailable',
      message: json.error.message,
      retryAfter: res.headers.get('Retry-After'),
    };
  }
  return { status: res.status, kind: 'other', message: JSON.stringify(json) };
}

/** Attempts the Worker made at `target`. */
const attempts = (target: string) => h.supabase.log.filter((e) => e.path === `/rest/v1/rpc/${target}`).length;

/** The question and its answer are stored exactly once; a refused one is one content gap, asked once. */
async function expectStoredOnce(messageId: string, kind: Kind): Promise<void> {
  const { rows } = await h.pg.db.query<{ role: string }>(
    `select role from chat_messages where id = $1 or reply_to = $1 order by role desc`,
    [messageId],
  );
  expect(rows.map((r) => r.role)).toEqual(['user', 'assistant']);
  const { rows: gaps } = await h.pg.db.query<{ asked: number }>('select asked from content_gaps');
  expect(gaps).toEqual(kind === 'refusal' ? [{ asked: 1 }] : []);
}

function expectClean(outcome: Outcome): void {
  expect(outcome.status).not.toBe(500);
  expect(['unavailable', 'stream-error']).toContain(outcome.kind);
  expect(outcome.message).toMatch(/unavailable|try again/i);
  expect(outcome.message).not.toMatch(INTERNAL);
  if (outcome.kind === 'unavailable') expect(Number(outcome.retryAfter)).toBeGreaterThanOrEqual(1);
}

describe('Supabase faults on every call of a question', () => {
  it('classifies every call it injects into', () => {
    for (const { target } of CALLS) expect(describeFunction(target)?.via, target).not.toBe('sql');
  });

  describe.each(FAULTS.map((f) => [f.kind, f] as const))('%s that lasts', (_, fault) => {
    it.each(CALLS.map((c) => [`${c.target} (${c.kind})`, c] as const))(
      '%s: a clean 503 or in-band error, bounded retries, and the visitor’s retry stores the turn once',
      async (_, { target, kind }) => {
        const visitor = await token();
        const body = question(kind);
        h.supabase.log.length = 0;
        h.supabase.inject({ target, fault });
        expectClean(await ask(visitor, body));
        const tries = attempts(target);
        if (isRetried(target)) expect(tries).toBeGreaterThan(1);
        else expect(tries).toBe(1);
        expect(tries).toBeLessThanOrEqual(4);

        h.supabase.clearFaults();
        expect((await ask(visitor, body)).kind).toBe(kind);
        await expectStoredOnce(body.message_id, kind);
      },
    );
  });

  describe.each(FAULTS.map((f) => [f.kind, f] as const))('%s once, after the call committed', (_, fault) => {
    it.each(CALLS.map((c) => [`${c.target} (${c.kind})`, c] as const))(
      '%s: retried if idempotent, without doubling anything',
      async (_, { target, kind }) => {
        const visitor = await token();
        const body = question(kind);
        h.supabase.inject({ target, fault, after: true, times: 1 });
        const first = await ask(visitor, body);
        if (isRetried(target)) {
          // The lost answer is asked for again; the second attempt finds what the first stored.
          expect(first.kind).toBe(kind);
          expect(attempts(target)).toBe(2);
        } else {
          expectClean(first);
          expect(attempts(target)).toBe(1);
          expect((await ask(visitor, body)).kind).toBe(kind);
        }
        await expectStoredOnce(body.message_id, kind);
      },
    );
  });

  it.each(CALLS.map((c) => [`${c.target} (${c.kind})`, c] as const))(
    '%s answering slowly (within the limit) changes nothing',
    async (_, { target, kind }) => {
      const visitor = await token();
      const body = question(kind);
      h.supabase.inject({ target, fault: { kind: 'slow', ms: 300 } });
      expect((await ask(visitor, body)).kind).toBe(kind);
      expect(attempts(target)).toBe(1);
      await expectStoredOnce(body.message_id, kind);
    },
  );
});

describe('Supabase Auth faults on the anonymous sign-up', () => {
  it.each(FAULTS.map((f) => [f.kind, f] as const))(
    '%s: a clean 503, never retried (a retry could create a second user)',
    async (_, fault) => {
      const users = async () => (await h.pg.db.query('select 1 from auth.users')).rows.length;
      const before = await users();
      h.supabase.inject({ target: 'signup', fault, times: 1 });
      const res = await signIn();
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('unavailable');
      expect(body.error.message).not.toMatch(INTERNAL);
      expect(h.supabase.log.filter((e) => e.path === '/auth/v1/signup')).toHaveLength(1);
      expect(await users()).toBe(before); // failed before the user was created: nothing written

      expect((await signIn()).status).toBe(200);
      expect(await users()).toBe(before + 1);
    },
  );
});
