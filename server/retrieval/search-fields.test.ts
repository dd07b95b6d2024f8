/**
 * search_chunks' coverage counts the page title, as it counts the section path (a real embedded Postgres:
 * PGlite, the real migrations). Coverage is the full-text half of the evidence the gate and the order of
 * citations read.
 */
import { describe, expect, it } from 'vitest';
import type { ChunkMeta, IngestChunk } from '../store/types.ts';
import { useKbStore, VISITOR } from '../testing/store.ts';
import { basis } from '../testing/vectors.ts';

const kb = useKbStore();

const chunk = (content: string, i: number, meta: ChunkMeta = {}): IngestChunk => ({
  content,
  meta,
  embedding: basis(i),
});

async function doc(source: string, name: string, chunks: IngestChunk[]): Promise<string> {
  return kb.store.ingestDocument({ source, name, meta: {}, checksum: source, model: 'm', chunks });
}

async function lexical(text: string) {
  const rows = await kb.store.searchChunks(VISITOR, { embedding: null, text, count: 5, mode: 'lexical', filters: {} });
  return rows.map((r) => ({ title: r.document_title, coverage: r.coverage }));
}

describe('search_chunks: the page title in coverage', () => {
  it('covers a question word that only the page title holds', async () => {
    await doc('logs.md', 'Logs', [
      chunk('On the Hobby plan, entries are kept for 7 days.', 1, { section: 'Retention' }),
    ]);
    await doc('pricing.md', 'Pricing', [
      chunk('Plans differ in how long logs are kept: see each plan.', 2, { section: 'Plans' }),
    ]);
    const rows = await lexical('logs kept on hobby');
    expect(rows.find((r) => r.title === 'Logs')).toMatchObject({ coverage: 1 });
    expect(rows.find((r) => r.title === 'Pricing')!.coverage).toBeLessThan(1);
  });

  it('follows a rename: the title lexemes are generated from the name', async () => {
    await doc('a.md', 'Volumes', [chunk('Backups are taken every day.', 1, { section: 'Backups' })]);
    expect((await lexical('volume backups'))[0]).toMatchObject({ title: 'Volumes', coverage: 1 });
    await doc('a.md', 'Storage', [chunk('Backups are taken every day.', 1, { section: 'Backups' })]);
    expect((await lexical('volume backups'))[0]!.coverage).toBeLessThan(1);
  });
});
