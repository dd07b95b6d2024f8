/** GET /api/chunks/:id: the full passage behind a citation, only for ready and enabled documents. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '../../protocol/index.ts';
import { createTestApi, question, type TestApi } from '../testing/api.ts';
import { readChatEvents } from '../../protocol/sse.ts';
import { basis } from '../testing/vectors.ts';

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
  await api.seedKb();
});
afterAll(() => api?.close());

const get = (path: string, token: string | null) =>
  api.app.request(path, { headers: token ? { Authorization: `Bearer ${token}` } : {} });

describe('GET /api/chunks/:id', () => {
  it('returns the full text of a cited chunk; the citation itself carries a plain excerpt', async () => {
    const { token } = await api.signIn();
    const events = await readChatEvents(await api.chat(token, question(basis(0))));
    const sources = events.find((e) => e.event.event === 'sources')!.event;
    if (sources.event !== 'sources') throw new Error('unreachable');
    const citation = sources.data.citations[0]!;
    expect(citation.excerpt).toBe('Refunds are issued within 14 days of a charge. Annual plans are refunded pro rata.');

    const res = await get(`/api/chunks/${citation.chunk_id}`, token);
    expect(res.status).toBe(200);
    expect((await res.json()) as Chunk).toEqual({
      chunk_id: citation.chunk_id,
      content: '## Refunds\n\nRefunds are issued within 14 days of a charge. Annual plans are refunded pro rata.',
      title: 'Billing',
      section: 'Billing › Refunds',
      page: 2,
      url: '/docs/billing#refunds',
    });
  });

  it('hides chunks of disabled documents, and validates the id and the token', async () => {
    const { token } = await api.signIn();
    const { rows } = await api.store.db.query<{ id: string }>(
      "select c.id from kb_chunks c join kb_documents d on d.id = c.document_id where d.source = 'secret.md'",
    );
    const id = rows[0]!.id;
    expect((await get(`/api/chunks/${id}`, token)).status).toBe(200);
    await api.store.db.exec("update kb_documents set enabled = false where source = 'secret.md'");
    expect((await get(`/api/chunks/${id}`, token)).status).toBe(404);
    expect((await get('/api/chunks/not-a-uuid', token)).status).toBe(400);
    expect((await get(`/api/chunks/${id}`, null)).status).toBe(401);
  });
});
