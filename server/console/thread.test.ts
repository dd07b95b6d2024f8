/**
 * The console's thread view (`GET /api/admin/conversations/:session_id`, admin_get_thread): a session's
 * turns oldest first, each with its answer or refusal, citations, closest pages, rating and written answer;
 * admins only, checked by the SQL function too.
 */
import { describe, expect, it } from 'vitest';
import type { AdminThread } from '../../protocol/index.ts';
import { readChatEvents } from '../../protocol/sse.ts';
import { question, useTestApi, signInAdmin } from '../testing/api.ts';
import { basis, withSimilarity } from '../testing/vectors.ts';

const api = useTestApi({ seed: true });

async function adminToken(): Promise<string> {
  return (await signInAdmin(api().store)).token;
}
const get = (path: string, token: string) =>
  api().app.request(`/api/admin${path}`, { headers: { Authorization: `Bearer ${token}` } });

describe('GET /api/admin/conversations/:session_id', () => {
  it('returns the turns in order: answer with citations and rating, refusal with closest pages, the written answer', async () => {
    const { token } = await api().signIn();
    const first = question(basis(0), 'How do refunds work?');
    const events = (await readChatEvents(await api().chat(token, first))).map((e) => e.event);
    const start = events.find((e) => e.event === 'answer_start');
    const end = events.find((e) => e.event === 'answer_end');
    const sessionId = start?.event === 'answer_start' ? start.data.session_id : '';
    const answerId = end?.event === 'answer_end' ? end.data.message_id : '';
    const rated = await api().app.request('/api/feedback', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ message_id: answerId, rating: -1, comment: 'Too short' }),
    });
    expect(rated.status).toBe(200);
    await api().store.db.query(
      `update chat_messages set meta = meta || '{"generated":{"text":"Refunds take 14 days [1].","model":"m"}}' where id = $1`,
      [answerId],
    );
    // What the chat stores on a follow-up's answer (server/chat/stream.ts): the thread shows it as the widget did.
    await api().store.db.query(
      `update chat_messages set meta = meta || '{"context":{"used":true,"about":"refunds"}}' where id = $1`,
      [answerId],
    );
    // Asked as a new question (context: false): "And …?" would otherwise be read as a follow-up about refunds,
    // and this turn is here to be a refusal just under the threshold, with its closest pages.
    await api().chat(
      token,
      question(withSimilarity(0, 0.345), 'And lunch?', { session_id: sessionId, context: false }),
      { headers: { Accept: 'application/json' } },
    );
    await api().chat(token, question(basis(300), 'Who won the match?', { session_id: sessionId }), {
      headers: { Accept: 'application/json' },
    });

    const res = await get(`/conversations/${sessionId}`, await adminToken());
    expect(res.status).toBe(200);
    const thread = (await res.json()) as AdminThread;
    expect(thread).toMatchObject({
      session_id: sessionId,
      title: 'How do refunds work?',
      visitor: expect.stringMatching(/^v-[0-9a-f]{10}$/),
    });
    expect(thread.turns.map((t) => [t.question, t.kind])).toEqual([
      ['How do refunds work?', 'answer'],
      ['And lunch?', 'refusal'],
      ['Who won the match?', 'refusal'],
    ]);
    const [answered, near, off] = thread.turns;
    expect(answered).toMatchObject({
      message_id: answerId,
      rating: -1,
      comment: 'Too short',
      generated: { text: 'Refunds take 14 days [1].', model: 'm' },
      context: { used: true, about: 'refunds' },
    });
    expect(answered!.citations[0]).toMatchObject({ title: 'Billing', section: 'Billing › Refunds' });
    expect(answered!.answer).toContain('14 days');
    expect(near).toMatchObject({
      reason: 'no_evidence',
      rating: null,
      closest: [expect.objectContaining({ title: 'Billing' })],
    });
    expect(off!.closest).toEqual([]);
    expect(near!.context).toBeNull();
  });

  it('answers 404 for an unknown session and 400 for a malformed id', async () => {
    const admin = await adminToken();
    expect((await get(`/conversations/${crypto.randomUUID()}`, admin)).status).toBe(404);
    const bad = await get('/conversations/not-a-uuid', admin);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/^session_id: /);
  });

  it('is refused to visitors by the API and by the SQL function itself', async () => {
    const { token } = await api().signIn();
    expect((await get(`/conversations/${crypto.randomUUID()}`, token)).status).toBe(403);
    await expect(
      api().store.adminGetThread({ sub: crypto.randomUUID(), role: 'authenticated' }, crypto.randomUUID()),
    ).rejects.toMatchObject({ kind: 'forbidden' });
  });
});
