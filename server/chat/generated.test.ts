/**
 * Generative mode on the server, on real PGlite through app.request(): the server stays the gate —
 * retrieval, refusals and the extractive answer are unchanged, generative mode only adds the cited passages —
 * and `POST /api/chat/:answer_id/generated` stores the visitor's written answer once, for its owner only,
 * citing only the answer's own sources.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  PASSAGE_MAX_CHARS,
  type ChatEvent,
  type ErrorBody,
  type Generated,
  type SessionDetail,
  type SourcesSchema,
} from '../../protocol/index.ts';
import { question, useTestApi } from '../testing/api.ts';
import { readChatEvents } from '../../protocol/sse.ts';
import { basis } from '../testing/vectors.ts';
import type * as v from 'valibot';

type Sources = v.InferOutput<typeof SourcesSchema>;

/** The model a written answer may be stored under: the server's KB_GENERATION_MODEL. */
const MODEL = 'test-double/lm';
const api = useTestApi({ seed: true, overrides: { generationModel: MODEL } });

async function setMode(mode: 'extractive' | 'generative' | null): Promise<void> {
  await api().store.db.query('update kb_settings set answer_mode = $1', [mode]);
}

async function ask(token: string, body = question(basis(0))) {
  const events = await readChatEvents(await api().chat(token, body));
  const find = <N extends ChatEvent['event']>(name: N) =>
    events.map((e) => e.event).filter((e): e is Extract<ChatEvent, { event: N }> => e.event === name);
  const sources: Sources = find('sources')[0]!.data;
  const answerId = find('answer_end')[0]!.data.message_id;
  const text = find('answer_delta')
    .map((e) => e.data.text)
    .join('');
  return { events, sources, answerId, text, body };
}

async function saveGenerated(token: string | null, answerId: string, body: unknown): Promise<Response> {
  return await api().app.request(`/api/chat/${answerId}/generated`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const storedGenerated = async (answerId: string) =>
  (
    await api().store.db.query<{ g: unknown }>(`select meta -> 'generated' as g from chat_messages where id = $1`, [
      answerId,
    ])
  ).rows[0]?.g ?? null;

describe('the answer events in each mode', () => {
  it('extractive (the default) sends no passages; generative adds the cited passages and changes nothing else', async () => {
    await setMode(null);
    const { token } = await api().signIn();
    const quoted = await ask(token);
    expect(quoted.sources.citations.length).toBeGreaterThan(0);
    expect(quoted.sources.passages).toBeUndefined();

    await setMode('generative');
    try {
      const written = await ask(token, question(basis(0)));
      expect(written.text).toBe(quoted.text);
      expect(written.sources.citations).toEqual(quoted.sources.citations);
      // One passage per citation, numbered like it, holding that chunk's text (bounded).
      expect(written.sources.passages!.map((p) => p.n)).toEqual(written.sources.citations.map((c) => c.n));
      for (const passage of written.sources.passages!) {
        const chunk = written.sources.citations.find((c) => c.n === passage.n)!;
        const { rows } = await api().store.db.query<{ content: string }>(
          'select content from kb_chunks where id = $1',
          [chunk.chunk_id],
        );
        expect(passage.text).toBe(rows[0]!.content.slice(0, PASSAGE_MAX_CHARS));
      }
      // A refusal is the same refusal: the gate does not move with the mode.
      const refused = await api().chat(token, question(basis(300), 'Who won the match?'));
      expect(await refused.json()).toMatchObject({ type: 'refusal', reason: 'no_evidence' });
    } finally {
      await setMode(null);
    }
  });

  it('the JSON answer carries the passages in generative mode too', async () => {
    await setMode('generative');
    try {
      const { token } = await api().signIn();
      const res = await api().chat(token, question(basis(1)), { headers: { Accept: 'application/json' } });
      const body = (await res.json()) as { citations: { n: number }[]; passages: { n: number }[] };
      expect(body.passages.map((p) => p.n)).toEqual(body.citations.map((c) => c.n));
    } finally {
      await setMode(null);
    }
  });
});

describe('POST /api/chat/:answer_id/generated', () => {
  // Written answers are stored in generative mode only (its own test below).
  beforeEach(() => setMode('generative'));
  afterEach(() => setMode(null));

  it('stores the written answer once, shows it in history and in a replay, flagged with its model', async () => {
    const { token } = await api().signIn();
    const { answerId, body } = await ask(token);
    const first = await saveGenerated(token, answerId, {
      text: '  Refunds are issued in 14 days [1].  ',
      model: 'test-double/lm',
    });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual<Generated>({
      text: 'Refunds are issued in 14 days [1].',
      model: 'test-double/lm',
    });
    // A second one (another tab, a retry after a lost response) does not replace it.
    const again = await saveGenerated(token, answerId, { text: 'Something else [1].', model: MODEL });
    expect(await again.json()).toEqual({ text: 'Refunds are issued in 14 days [1].', model: 'test-double/lm' });

    const replay = await ask(token, body);
    expect(replay.sources.generated).toEqual({ text: 'Refunds are issued in 14 days [1].', model: 'test-double/lm' });
    const sessions = (await (
      await api().app.request('/api/sessions', { headers: { Authorization: `Bearer ${token}` } })
    ).json()) as { sessions: { id: string }[] };
    const detail = (await (
      await api().app.request(`/api/sessions/${sessions.sessions[0]!.id}`, {
        headers: { Authorization: `Bearer ${token}` },
      })
    ).json()) as SessionDetail;
    const stored = detail.messages.find((m) => m.id === answerId)!;
    expect(stored.generated).toEqual({ text: 'Refunds are issued in 14 days [1].', model: 'test-double/lm' });
    expect(stored.content).toBe(replay.text); // the quoted answer stays the message's content
  });

  it("refuses a [n] that is not one of the answer's citations (400 naming text), storing nothing", async () => {
    const { token } = await api().signIn();
    const { answerId, sources } = await ask(token);
    const invented = sources.citations.length + 8;
    const res = await saveGenerated(token, answerId, { text: `Refunds take 14 days [1] [${invented}].`, model: MODEL });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/^text: /),
    });
    for (const text of [`A list [1, ${invented}].`, `Zero-padded [0${invented}].`]) {
      expect((await saveGenerated(token, answerId, { text, model: MODEL })).status, text).toBe(400);
    }
    expect(await storedGenerated(answerId)).toBeNull();
    expect((await saveGenerated(token, answerId, { text: 'Listed [01, 1].', model: MODEL })).status).toBe(200);
  });

  it("is 404 for another visitor's answer, a refusal or an unknown id — the same answer for each", async () => {
    const alice = await api().signIn();
    const mallory = await api().signIn();
    const { answerId } = await ask(alice.token);
    const theirs = await saveGenerated(mallory.token, answerId, { text: 'pwned [1]', model: MODEL });
    expect(theirs.status).toBe(404);
    expect(await storedGenerated(answerId)).toBeNull();

    await api().chat(mallory.token, question(basis(300), 'Who won the match?'));
    const { rows } = await api().store.db.query<{ id: string }>(
      `select id from chat_messages where meta ->> 'kind' = 'refusal' limit 1`,
    );
    const refusal = await saveGenerated(mallory.token, rows[0]!.id, { text: 'Actually, I know [1]', model: MODEL });
    expect(refusal.status).toBe(404);
    const unknown = await saveGenerated(mallory.token, crypto.randomUUID(), { text: 'x', model: MODEL });
    expect(unknown.status).toBe(404);
  });

  it('validates before anything else: 401 without a token, 400 naming the field', async () => {
    const { token } = await api().signIn();
    const { answerId } = await ask(token);
    expect((await saveGenerated(null, answerId, { text: 'x', model: 'm' })).status).toBe(401);
    const cases: [string, unknown, RegExp][] = [
      ['not-a-uuid', { text: 'x', model: 'm' }, /^answer_id: /],
      [answerId, { model: 'm' }, /^text: /],
      [answerId, { text: '   ', model: 'm' }, /^text: /],
      [answerId, { text: 'x'.repeat(8001), model: 'm' }, /^text: /],
      [answerId, { text: 'x', model: '' }, /^model: /],
      [answerId, { text: 42, model: 'm' }, /^text: /],
      [answerId, '{not json', /./],
    ];
    for (const [id, body, message] of cases) {
      const res = await saveGenerated(token, id, body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(((await res.json()) as ErrorBody).error.message).toMatch(message);
    }
    expect(await storedGenerated(answerId)).toBeNull();
  });

  it('is refused in extractive mode (409) and under any model but the configured one (400), storing nothing, counting nothing', async () => {
    const { token } = await api().signIn();
    const { answerId } = await ask(token);
    const hits = async () =>
      Number(
        (await api().store.db.query<{ n: number }>('select coalesce(sum(hits), 0)::int as n from rate_limits')).rows[0]!
          .n,
      );
    const before = await hits();
    // A free-text name would be shown in the console as the model that wrote the answer.
    for (const model of ['evil/model', `${MODEL} `, MODEL.toUpperCase()]) {
      const res = await saveGenerated(token, answerId, { text: 'Refunds take 14 days [1].', model });
      expect(res.status, model).toBe(400);
      expect(((await res.json()) as ErrorBody).error.message).toMatch(/^model: /);
    }
    // The mode in effect, read per request: an admin's switch back to extractive stops the stores at once.
    for (const mode of ['extractive', null] as const) {
      await setMode(mode);
      const res = await saveGenerated(token, answerId, { text: 'Refunds take 14 days [1].', model: MODEL });
      expect(res.status, String(mode)).toBe(409);
      expect(((await res.json()) as ErrorBody).error.code).toBe('conflict');
    }
    expect(await storedGenerated(answerId)).toBeNull();
    expect(await hits()).toBe(before);
    await setMode('generative');
    expect((await saveGenerated(token, answerId, { text: 'Refunds take 14 days [1].', model: MODEL })).status).toBe(
      200,
    );
  });
});
