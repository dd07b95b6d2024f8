/**
 * A follow-up prefers the chunk right after one the last answer quoted (migration 20261128100000): the next
 * fact is usually what follows the one just read. Chunks of the cited page alike in embedding and words, one
 * right after the quoted chunk, one before it and one further on: only the one after gains the cited
 * section's prior. The SQL search on real PGlite and, with KB_TEST_DATABASE_URL, on PostgreSQL 15 + pgvector.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OpenStore } from '../store/sql-store.ts';
import { describeStores } from '../testing/pg.ts';
import { VISITOR } from '../testing/store.ts';
import { basis, withSimilarity } from '../testing/vectors.ts';

describeStores('the chunks beside the ones a follow-up’s last answer quoted', (kind) => {
  const kb = {} as { store: OpenStore; page: string; ids: string[] };
  afterAll(() => kb.store?.close());
  beforeAll(async () => {
    kb.store = await kind.open();
    kb.page = await kb.store.ingestDocument({
      source: 'server.md',
      name: 'Server options',
      meta: {},
      checksum: 'server',
      model: 'm',
      chunks: [
        { content: 'Hosts exit when the port is in use.', meta: { section: 'Host' }, embedding: basis(1) },
        { content: 'The dev server listens on port 5173.', meta: { section: 'Port' }, embedding: basis(0) },
        { content: 'Set strict to exit when the port is in use.', meta: { section: 'Strict' }, embedding: basis(1) },
        { content: 'Watchers exit when the process ends.', meta: { section: 'Watch' }, embedding: basis(2) },
        { content: 'Proxies exit when the socket closes.', meta: { section: 'Proxy' }, embedding: basis(1) },
      ],
    });
    const rows = await kb.store.db.query<{ id: string }>('select id from kb_chunks order by position');
    kb.ids = rows.rows.map((r) => r.id);
  });

  const search = (chunks: string[] | undefined) =>
    kb.store.searchChunks(VISITOR, {
      // "Can I make it exit instead?" after the answer that quoted the port chunk.
      embedding: withSimilarity(1, 0.5),
      text: 'Can I make it exit instead?',
      count: 5,
      mode: 'hybrid',
      filters: {
        context: {
          terms: 'port',
          documents: [kb.page],
          thread: [],
          sections: ['Port'],
          ...(chunks ? { chunks } : {}),
          points_back: true,
        },
      },
    });

  it('gives the chunk after the quoted one the cited section’s prior, not the one before or further on', async () => {
    const rows = await search([kb.ids[1]!]);
    const host = rows.find((r) => r.chunk_id === kb.ids[0])!;
    const strict = rows.find((r) => r.chunk_id === kb.ids[2])!;
    const proxy = rows.find((r) => r.chunk_id === kb.ids[4])!;
    // Same embedding, "exit" and the borrowed "port" (given on the cited page) in each: only the prior differs.
    expect(strict.cosine! - proxy.cosine!).toBeCloseTo(0.03, 6);
    expect(strict.coverage! - proxy.coverage!).toBeCloseTo(0.03, 6);
    expect(host.cosine).toBeCloseTo(proxy.cosine!, 6);
  });

  it('gives it nothing when the last answer’s chunks are not known', async () => {
    const rows = await search(undefined);
    const strict = rows.find((r) => r.chunk_id === kb.ids[2])!;
    const proxy = rows.find((r) => r.chunk_id === kb.ids[4])!;
    expect(strict.cosine).toBeCloseTo(proxy.cosine!, 6);
  });
});
