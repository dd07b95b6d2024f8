/**
 * search_chunks' full-text fields on a real embedded Postgres (PGlite, the real migrations): the page title
 * and the section path weigh above body text, a word as typed beats a stemming collision ("log in" is not
 * "Logging"), and one page's many chunks leave room for other pages among the candidates.
 */
import { describe, expect, it } from 'vitest';
import type { ChunkMeta, IngestChunk } from '../store/types.ts';
import { useKbStore, VISITOR } from '../testing/store.ts';
import { basis } from '../testing/vectors.ts';

const kb = useKbStore();

const chunk = (content: string, i: number, meta: ChunkMeta = {}): IngestChunk => ({ content, meta, embedding: basis(i % 384) });

async function doc(source: string, name: string, chunks: IngestChunk[]): Promise<string> {
  return kb.store.ingestDocument({ source, name, meta: {}, checksum: source, model: 'm', chunks });
}

async function lexical(text: string, count = 5) {
  const rows = await kb.store.searchChunks(VISITOR, { embedding: null, text, count, mode: 'lexical', filters: {} });
  return rows.map((r) => ({ title: r.document_title, section: r.meta.section ?? null, bm25: r.bm25, coverage: r.coverage }));
}

describe('search_chunks: title and section fields', () => {
  it('ranks the page titled with the question’s words above a page that only mentions them', async () => {
    await doc('pricing.md', 'Pricing', [
      chunk('Every plan includes volumes, and volume storage is billed per GB. Volumes count towards usage.', 1, { section: 'Pricing › Usage' }),
    ]);
    await doc('volumes.md', 'Volumes', [chunk('A volume can grow to 50 GB on the Pro plan.', 2, { section: 'Size' })]);
    const rows = await lexical('volume size');
    expect(rows.map((r) => r.title)).toEqual(['Volumes', 'Pricing']);
  });

  it('tells a word as typed from a stemming collision: "log in" finds the "Log in" section, not "Logging"', async () => {
    await doc('logging.md', 'Logging', [
      chunk('Logs from every deployment appear in the log explorer; each log line is kept.', 1, { section: 'Logging › Viewing logs' }),
    ]);
    await doc('cli.md', 'CLI', [chunk('Run railway login and follow the prompt to authenticate.', 2, { section: 'CLI › Log in' })]);
    const rows = await lexical('How do I log in?');
    expect(rows[0]).toMatchObject({ title: 'CLI', section: 'CLI › Log in' });
  });

  it('counts the page title towards coverage, as the section path', async () => {
    await doc('volumes.md', 'Volumes', [chunk('Backups are taken every day.', 1, { section: 'Backups' })]);
    await doc('other.md', 'Other', [chunk('Nothing about it here, only filler text.', 2, { section: 'Filler' })]);
    const [row] = await lexical('volume backups');
    expect(row).toMatchObject({ title: 'Volumes', coverage: 1 });
  });

  it('keeps at most four chunks of one page among the candidates', async () => {
    await doc(
      'long.md',
      'Long page',
      Array.from({ length: 8 }, (_, i) => chunk(`Deploy deploy deploy: part ${i} about deploy and rollback.`, i, { section: `Long page › Part ${i}` })),
    );
    await doc('restore.md', 'Restore', [chunk('Older builds can be restored; a rollback keeps their settings.', 20, { section: 'Restore' })]);
    const rows = await lexical('deploy rollback', 5);
    expect(rows.filter((r) => r.title === 'Long page')).toHaveLength(4);
    expect(rows.map((r) => r.title)).toContain('Restore');
  });
});
