/**
 * A refusal that leads somewhere: built-in actions instead of questions, and "Closest pages" only when the
 * best passage came close to the gate (vector mode, threshold 0.35: the band is 10 % of it, down to 0.315).
 */
import { describe, expect, it } from 'vitest';
import type { Refusal, SessionDetail } from '../../protocol/index.ts';
import type { Retrieval } from '../retrieval/index.ts';
import { question, useTestApi } from '../testing/api.ts';
import { basis, withSimilarity } from '../testing/vectors.ts';
import { closestPages } from './closest.ts';
import { refusalChoices } from './refusal.ts';

const api = useTestApi({ seed: true });

async function refusalFor(body: ReturnType<typeof question>, token?: string): Promise<Refusal> {
  const visitor = token ?? (await api().signIn()).token;
  const res = await api().chat(visitor, body, { headers: { Accept: 'application/json' } });
  const json = (await res.json()) as Refusal;
  expect(json.type).toBe('refusal');
  return json;
}

describe('closest pages under a refusal', () => {
  it('lists the page whose passage came within the band, labelled nowhere as an answer', async () => {
    const refusal = await refusalFor(question(withSimilarity(0, 0.345)));
    expect(refusal.closest).toEqual([
      {
        chunk_id: expect.any(String),
        document_id: expect.any(String),
        title: 'Billing',
        page: 2,
        section: 'Billing › Refunds',
        url: '/docs/billing#refunds',
      },
    ]);
  });

  it('lists none below the band, nor for an off-topic question', async () => {
    expect(await refusalFor(question(withSimilarity(0, 0.3)))).not.toHaveProperty('closest');
    expect(await refusalFor(question(basis(300), 'Who won the match?'))).not.toHaveProperty('closest');
  });

  it('keeps them, and the actions, in the stored refusal: a replay and the history return the same', async () => {
    const { token } = await api().signIn();
    const body = question(withSimilarity(0, 0.345));
    const first = await refusalFor(body, token);
    expect(await refusalFor(body, token)).toEqual(first);
    const sessions = (await (
      await api().app.request('/api/sessions', { headers: { Authorization: `Bearer ${token}` } })
    ).json()) as { sessions: { id: string }[] };
    const detail = (await (
      await api().app.request(`/api/sessions/${sessions.sessions[0]!.id}`, {
        headers: { Authorization: `Bearer ${token}` },
      })
    ).json()) as SessionDetail;
    expect(detail.messages[1]!.refusal).toEqual({
      reason: 'no_evidence',
      suggestions: [],
      actions: ['contact_support', 'rephrase'],
      closest: first.closest,
    });
  });

  it("is decided on the mode's band: within it pages, below it or in lexical mode none", () => {
    const nearest = [1, 2, 3, 4].map((n) => ({
      chunk_id: `c${n}`,
      content: '',
      meta: { section: `S${n}` },
      document_id: `d${n}`,
      document_title: `Doc ${n}`,
      document_url: null,
      similarity: 0.3,
    }));
    const refused = (
      mode: 'hybrid' | 'lexical' | 'vector',
      evidence: number,
    ): Extract<Retrieval, { kind: 'refuse' }> => ({
      kind: 'refuse',
      mode,
      evidence,
      threshold: 0.4,
      nearest,
    });
    expect(closestPages(refused('hybrid', 0.397)).map((p) => p.title)).toEqual(['Doc 1', 'Doc 2', 'Doc 3']);
    expect(closestPages(refused('hybrid', 0.39))).toEqual([]);
    expect(closestPages(refused('vector', 0.37)).map((p) => p.title)).toEqual(['Doc 1', 'Doc 2', 'Doc 3']);
    expect(closestPages(refused('lexical', 0.399))).toEqual([]);
  });
});

describe('refusal actions', () => {
  it('offers "Contact support" and "Rephrase your question" as actions, never as questions to send', async () => {
    const refusal = await refusalFor(question(basis(300), 'Who won the match?'));
    expect(refusal).toMatchObject({ suggestions: [], actions: ['contact_support', 'rephrase'] });
  });

  it("keeps an admin's own suggestions as questions, and recognises the built-in labels in their list", () => {
    expect(refusalChoices(['Ask sales', ' contact  Support ', 'Rephrase your question', 'Contact support'])).toEqual({
      suggestions: ['Ask sales'],
      actions: ['contact_support', 'rephrase'],
    });
  });
});
