/**
 * The gate's coverage in vector mode (migration 20261128090000 returns it; gate.ts holds vector answers to
 * CHAT_VECTOR_MIN_COVERAGE), with the opt-in pair (cosine 0.23, least coverage 0.3) and the defaults, on real PGlite and, with KB_TEST_DATABASE_URL, on PostgreSQL 15 + pgvector. A site whose
 * name is on most of its pages: a question naming the site and nothing the site covers must be refused
 * however close its embedding.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OpenStore } from '../store/sql-store.ts';
import { describeStores } from '../testing/pg.ts';
import { VISITOR } from '../testing/store.ts';
import { basis, withSimilarity } from '../testing/vectors.ts';
import { type RetrievalOptions, retrieve } from './index.ts';

/** The pair measured on three docs sites (gate.ts, DEFAULT_VECTOR_MIN_COVERAGE); off by default. */
const OPT_IN = { evidenceThreshold: 0.23, vectorMinCoverage: 0.3 };

describeStores('the vector gate on a site named on most pages', (kind) => {
  const kb = {} as { store: OpenStore };
  const ask = (question: string, embedding: number[] | undefined, options: Partial<RetrievalOptions> = {}) =>
    retrieve(kb.store, { claims: VISITOR, question, embedding }, { ...OPT_IN, ...options });
  afterAll(() => kb.store?.close());
  beforeAll(async () => {
    kb.store = await kind.open();
    const chunk = (content: string, section: string, i: number) => ({
      content,
      meta: { section },
      embedding: basis(i),
    });
    await kb.store.ingestDocument({
      source: 'guide.md',
      name: 'Guide',
      meta: {},
      checksum: 'guide',
      model: 'm',
      chunks: [
        chunk('Acme deploys your app from a Git repository.', 'Deploys', 0),
        chunk('Acme logs every request to a page that is not found.', 'Logs', 1),
        chunk('Acme bills usage monthly.', 'Billing', 2),
        chunk('Acme keeps backups of volumes.', 'Backups', 3),
        chunk('Acme scales replicas on demand.', 'Scaling', 4),
      ],
    });
    // A page that does not name the site: "acme" is in five chunks of six.
    await kb.store.ingestDocument({
      source: 'history.md',
      name: 'History',
      meta: {},
      checksum: 'history',
      model: 'm',
      chunks: [chunk('The company was founded in 2019 by two engineers.', 'History', 5)],
    });
  });

  it('returns the coverage of vector rows, as of hybrid ones', async () => {
    const rows = await kb.store.searchChunks(VISITOR, {
      embedding: basis(0),
      text: 'How does Acme deploy my app?',
      count: 2,
      mode: 'vector',
      filters: {},
    });
    expect(rows[0]!.content).toMatch(/^Acme deploys/);
    expect(rows[0]!.coverage).toBeCloseTo(1, 6);
    expect(rows[1]!.coverage).toBeLessThan(0.2);
  });

  it('refuses in vector mode a question sharing only the site name, however close its embedding', async () => {
    // Cosine 0.8 with the deploys chunk, far above the cosine threshold: "ceo" is in no chunk, "acme" in five
    // of six, so the chunk covers ln(1 + 1.5/5.5) / (that + ln(1 + 5.5/1.5)) = 0.135 of the question.
    const found = await ask('Who is the CEO of Acme?', withSimilarity(0, 0.8), { mode: 'vector' });
    expect(found).toMatchObject({ kind: 'refuse', mode: 'vector', evidence: 0 });
    // The defaults (cosine 0.35, no floor) answer it: the floor is what refuses.
    const byDefault = await ask('Who is the CEO of Acme?', withSimilarity(0, 0.8), {
      mode: 'vector',
      evidenceThreshold: 0.35,
      vectorMinCoverage: 0,
    });
    expect(byDefault).toMatchObject({ kind: 'answer', mode: 'vector' });
  });

  it('answers in vector mode a question the page covers, on a cosine under the old threshold 0.35', async () => {
    const found = await ask('How does Acme deploy my app?', withSimilarity(0, 0.3), { mode: 'vector' });
    expect(found).toMatchObject({ kind: 'answer', mode: 'vector' });
    if (found.kind === 'answer') expect(found.chunks[0]!.content).toMatch(/^Acme deploys/);
  });
});
