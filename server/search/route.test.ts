/** POST /api/search on real PGlite: ranked results with snippets, validation, auth and the shared rate limit. */
import { describe, expect, it } from 'vitest';
import type { ErrorBody, SearchResponse } from '../../protocol/index.ts';
import { useTestApi } from '../testing/api.ts';
import { basis } from '../testing/vectors.ts';
import { snippet } from './route.ts';

const api = useTestApi({ seed: true });

const searchAs = (token: string | null, body: unknown, app = api().app) =>
  app.request('/api/search', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });

describe('POST /api/search', () => {
  it('ranks chunks for an embedding, best first, with snippets, titles and links', async () => {
    const { token } = await api().signIn();
    const res = await searchAs(token, { embedding: basis(1), top_k: 2, mode: 'vector' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as SearchResponse;
    expect(body.results.map((r) => r.rank)).toEqual([1, 2]);
    expect(body.results[0]).toMatchObject({
      title: 'Billing',
      url: '/docs/billing#invoices',
      snippet: 'Invoices are emailed on the first day of each month.',
    });
    expect(body.results[0]!.score).toBeGreaterThan(body.results[1]!.score);
    expect(body.total_found).toBe(2);
    expect(body.processing_time_ms).toBeGreaterThanOrEqual(0);
  });

  it('finds chunks by words alone (no embedding)', async () => {
    const { token } = await api().signIn();
    const body = (await (await searchAs(token, { query_text: 'staff discount code' })).json()) as SearchResponse;
    expect(body.results[0]?.snippet).toContain('staff discount code');
  });

  it.each([
    ['nothing to search with', {}, 'query_text'],
    ['top_k out of range', { query_text: 'x', top_k: 51 }, 'top_k'],
    ['a wrong-size embedding', { embedding: [0.1, 0.2] }, 'embedding'],
    [
      'a malformed document id filter',
      { query_text: 'x', filters: { document_ids: ['nope'] } },
      'filters.document_ids',
    ],
  ])('answers 400 for %s', async (_name, body, field) => {
    const { token } = await api().signIn();
    const res = await searchAs(token, body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error.message.startsWith(field)).toBe(true);
  });

  it('needs a token and shares the rate limit with chat', async () => {
    expect((await searchAs(null, { query_text: 'refunds' })).status).toBe(401);
    const tight = api().instance({ rateLimit: { limit: 1, windowSeconds: 3600 } });
    const { token } = await api().signIn(tight);
    expect((await searchAs(token, { query_text: 'refunds' }, tight)).status).toBe(200);
    const limited = await searchAs(token, { query_text: 'refunds' }, tight);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('Retry-After')).not.toBeNull();
  });
});

describe('snippet', () => {
  it('drops Markdown markup and cuts at a word within 200 characters', () => {
    const text = `## Heading\n\nSome **bold** [link](https://x.example) text. ${'word '.repeat(80)}`;
    const result = snippet(text);
    expect(result.startsWith('Some bold link text.')).toBe(true);
    expect(result.length).toBeLessThanOrEqual(200);
    expect(result.endsWith('word…')).toBe(true);
  });
});
