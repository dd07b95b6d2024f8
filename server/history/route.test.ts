/**
 * History through the API on real PGlite: own sessions newest first, messages oldest first with
 * citations, continuing a session, and isolation enforced by row-level security.
 */
import { describe, expect, it } from 'vitest';
import type { ErrorBody, SessionDetail, SessionList } from '../../protocol/index.ts';
import { question, useTestApi } from '../testing/api.ts';
import { readChatEvents } from '../../protocol/sse.ts';
import { basis } from '../testing/vectors.ts';

const api = useTestApi({ seed: true });

const get = (path: string, token: string | null) =>
  api().app.request(path, { headers: token ? { Authorization: `Bearer ${token}` } : {} });

async function startSession(token: string, message: string, embedding = basis(0)): Promise<string> {
  const events = await readChatEvents(await api().chat(token, question(embedding, message)));
  const start = events[0]!.event;
  if (start.event !== 'answer_start') throw new Error('no answer_start');
  return start.data.session_id;
}

describe('GET /api/sessions', () => {
  it("lists the visitor's own sessions, most recently active first, with titles", async () => {
    const { token } = await api().signIn();
    const older = await startSession(token, 'Refunds?');
    const newer = await startSession(token, 'Invoices?', basis(1));
    const other = await api().signIn();
    await startSession(other.token, 'Not mine');

    let list = (await (await get('/api/sessions', token)).json()) as SessionList;
    expect(list.sessions.map((s) => [s.id, s.title])).toEqual([
      [newer, 'Invoices?'],
      [older, 'Refunds?'],
    ]);
    // Continuing the older session moves it to the top.
    await readChatEvents(await api().chat(token, question(basis(0), 'And annual plans?', { session_id: older })));
    list = (await (await get('/api/sessions', token)).json()) as SessionList;
    expect(list.sessions.map((s) => s.id)).toEqual([older, newer]);
  });

  it('needs a token and validates limit', async () => {
    expect((await get('/api/sessions', null)).status).toBe(401);
    const { token } = await api().signIn();
    expect((await get('/api/sessions?limit=0', token)).status).toBe(400);
  });
});

describe('GET /api/sessions/:id', () => {
  it('returns the messages oldest first with citations and refusals', async () => {
    const { token } = await api().signIn();
    const id = await startSession(token, 'How do refunds work?');
    await api().chat(token, question(basis(300), 'Who won the match?', { session_id: id }));
    const detail = (await (await get(`/api/sessions/${id}`, token)).json()) as SessionDetail;
    expect(detail.session.title).toBe('How do refunds work?');
    expect(detail.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(detail.messages[1]!.citations?.[0]).toMatchObject({ n: 1, title: 'Billing', section: 'Billing › Refunds' });
    expect(detail.messages[3]).toMatchObject({ citations: null, refusal: { reason: 'no_evidence' } });
  });

  it("answers 404 for another visitor's session and 400 for a malformed id", async () => {
    const alice = await api().signIn();
    const bob = await api().signIn();
    const id = await startSession(alice.token, 'Refunds?');
    const res = await get(`/api/sessions/${id}`, bob.token);
    expect(res.status).toBe(404);
    expect(((await res.json()) as ErrorBody).error.code).toBe('not_found');
    expect((await get('/api/sessions/nope', alice.token)).status).toBe(400);
  });
});
