/**
 * Search order does not depend on the ingestion (migration 20261129140000): one corpus ingested into two
 * databases, whose chunk ids are random and differ, is searched in the same order. Every chunk here holds the
 * same words and the same embedding, so every score ties in every mode; the order must then be the page's
 * source, then the chunk's position in it. The ids are rewritten after ingestion, ascending in that order in
 * one database and descending in the other, so a search that breaks ties by id (as before 20261129140000)
 * orders the two differently and fails here every time, not one run in two. The SQL search on real PGlite
 * and, with KB_TEST_DATABASE_URL, on PostgreSQL + pgvector.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RetrievalMode } from '../../protocol/index.ts';
import type { OpenStore } from '../store/sql-store.ts';
import type { SearchChunksParams } from '../store/types.ts';
import { describeStores, type StoreKind } from '../testing/pg.ts';
import { VISITOR } from '../testing/store.ts';
import { basis, withSimilarity } from '../testing/vectors.ts';

const SAME = 'Refunds are issued within 14 days of a charge.';
/** Sources ingested out of their sorted order, so that ingestion order is not the order either. */
const SOURCES = ['c.md', 'a.md', 'b.md'];

/** Ingests three pages of two identical chunks each, then gives the chunks ids in or against their order. */
async function tiedKb(kind: StoreKind, descending: boolean): Promise<OpenStore> {
  const store = await kind.open();
  for (const source of SOURCES)
    await store.ingestDocument({
      source,
      name: `Refunds ${source}`,
      meta: {},
      checksum: source,
      model: 'm',
      chunks: [0, 1].map((i) => ({ content: SAME, meta: { section: `Part ${i}` }, embedding: basis(0) })),
    });
  const { rows } = await store.db.query<{ id: string }>(
    'select c.id from kb_chunks c join kb_documents d on d.id = c.document_id order by d.source, c.position',
  );
  await store.db.transaction(async (tx) => {
    // Foreign keys off for the rewrite (superuser, this transaction only): the embeddings follow their chunks.
    await tx.query('set local session_replication_role = replica');
    for (const [i, { id }] of rows.entries()) {
      const n = descending ? 0x100 - i : i + 1;
      const fresh = `${n.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
      await tx.query('update kb_chunks set id = $2 where id = $1', [id, fresh]);
      await tx.query('update kb_embeddings set chunk_id = $2 where chunk_id = $1', [id, fresh]);
    }
  });
  return store;
}

/** Each row as `source#position`, in the order the search returned them. */
async function order(store: OpenStore, params: Omit<SearchChunksParams, 'filters'> & { filters?: object }) {
  const rows = await store.searchChunks(VISITOR, { filters: {}, ...params } as SearchChunksParams);
  const { rows: labels } = await store.db.query<{ id: string; label: string }>(
    `select c.id::text as id, d.source || '#' || c.position as label
     from kb_chunks c join kb_documents d on d.id = c.document_id`,
  );
  const label = new Map(labels.map((l) => [l.id, l.label]));
  return rows.map((r) => label.get(r.chunk_id));
}

describeStores('ties in score are ordered by page and position, not by id', (kind) => {
  const kb = {} as { up: OpenStore; down: OpenStore };
  afterAll(async () => {
    await kb.up?.close();
    await kb.down?.close();
  });
  beforeAll(async () => {
    kb.up = await tiedKb(kind, false);
    kb.down = await tiedKb(kind, true);
  });

  const embedding = withSimilarity(0, 0.5);
  const first4 = ['a.md#0', 'a.md#1', 'b.md#0', 'b.md#1'];

  it('the two databases hold the same chunks under different ids', async () => {
    const ids = async (s: OpenStore) =>
      (
        await s.db.query<{ id: string }>(
          'select c.id::text as id from kb_chunks c join kb_documents d on d.id = c.document_id order by d.source, c.position',
        )
      ).rows.map((r) => r.id);
    const [up, down] = [await ids(kb.up), await ids(kb.down)];
    expect(up).toHaveLength(6);
    expect(down).toHaveLength(6);
    // In source order, ascending in one and descending in the other, and no id shared.
    expect(up).toEqual([...up].sort());
    expect(down).toEqual([...down].sort().reverse());
    expect(up.filter((id) => down.includes(id))).toEqual([]);
  });

  for (const mode of ['hybrid', 'vector', 'lexical'] as RetrievalMode[])
    it(`${mode}: the same order in both, source then position, and the same chunks kept at the cut`, async () => {
      const params = { embedding: mode === 'lexical' ? null : embedding, text: 'refunds', count: 4, mode };
      expect(await order(kb.up, params)).toEqual(first4);
      expect(await order(kb.down, params)).toEqual(first4);
    });

  it('vector candidates cut inside a tie keep the first by source and position', async () => {
    const params = { embedding, text: null, count: 2, mode: 'vector' as const, candidates: 2 };
    expect(await order(kb.up, params)).toEqual(['a.md#0', 'a.md#1']);
    expect(await order(kb.down, params)).toEqual(['a.md#0', 'a.md#1']);
  });

  it('a follow-up (search_chunks with conversation context) orders its ties the same way', async () => {
    const context = { terms: 'charge', documents: [], thread: [], sections: [], points_back: true };
    const params = { embedding, text: 'And refunds?', count: 4, mode: 'hybrid' as const, filters: { context } };
    expect(await order(kb.up, params)).toEqual(first4);
    expect(await order(kb.down, params)).toEqual(first4);
  });
});
