/**
 * The hybrid gate's coverage floor on a knowledge base of three chunks, with the default threshold and floor
 * (gate.ts): an everyday word of the question that no chunk uses must not outweigh the word the knowledge
 * base holds (migration 20261128030000 weighs it as a word one chunk holds), while a question whose rare
 * words the knowledge base lacks is still refused, whatever its cosine. The SQL search on real PGlite and,
 * with KB_TEST_DATABASE_URL, on PostgreSQL 15 + pgvector.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OpenStore } from '../store/sql-store.ts';
import { describeStores } from '../testing/pg.ts';
import { VISITOR } from '../testing/store.ts';
import { basis, withSimilarity } from '../testing/vectors.ts';
import { DEFAULT_HYBRID_MIN_COVERAGE, DEFAULT_HYBRID_THRESHOLD } from './gate.ts';
import { retrieve } from './index.ts';

describeStores('the coverage floor on a three-chunk knowledge base (defaults)', (kind) => {
  const kb = {} as { store: OpenStore };
  const ask = (question: string, embedding: number[]) =>
    retrieve(kb.store, { claims: VISITOR, question, embedding }, { evidenceThreshold: 0.35 });
  afterAll(() => kb.store?.close());
  beforeAll(async () => {
    kb.store = await kind.open();
    await kb.store.ingestDocument({
      source: 'billing.md',
      name: 'Billing',
      meta: {},
      checksum: 'billing',
      model: 'm',
      chunks: [
        {
          content: 'Refunds are issued within 14 days of a charge.',
          meta: { section: 'Refunds' },
          embedding: basis(0),
        },
        { content: 'Invoices are emailed monthly.', meta: { section: 'Invoices' }, embedding: basis(1) },
        { content: 'Support answers within a day.', meta: { section: 'Support' }, embedding: basis(2) },
      ],
    });
  });

  it('the floor is on by default', () => {
    expect(DEFAULT_HYBRID_MIN_COVERAGE).toBeGreaterThan(0);
  });

  it('answers a question whose everyday word ("work") is in no chunk, on a weak cosine', async () => {
    const embedding = withSimilarity(0, 0.3);
    const found = await ask('How do refunds work?', embedding);
    expect(found).toMatchObject({ kind: 'answer', mode: 'hybrid' });
    if (found.kind !== 'answer') return;
    expect(found.chunks[0]!.content).toMatch(/^Refunds are issued/);
    expect(found.evidence).toBeCloseTo(0.4, 6);
    expect(found.evidence).toBeGreaterThanOrEqual(DEFAULT_HYBRID_THRESHOLD);
    // "refund" (one chunk) and "work" (none) weigh the same: half the question, over the floor. Weighed at
    // df 0, "work" took 2.08 of the 3.06 the question weighs (coverage 0.32), under it.
    const [best] = await kb.store.searchChunks(VISITOR, {
      embedding,
      text: 'How do refunds work?',
      count: 1,
      mode: 'hybrid',
      filters: {},
    });
    expect(best!.coverage).toBeCloseTo(0.5, 10);
    const idf = (df: number) => Math.log(1 + (3 - df + 0.5) / (df + 0.5));
    expect(idf(1) / (idf(1) + idf(0))).toBeLessThan(DEFAULT_HYBRID_MIN_COVERAGE);
  });

  it('refuses an off-topic question however close its embedding, when it lacks the rare words', async () => {
    // Cosine 0.8 against the refunds chunk: without the floor the mean (0.8 + 1/3) / 2 would pass.
    const partly = await ask('Can I refund a zebra passport?', withSimilarity(0, 0.8));
    expect(partly).toMatchObject({ kind: 'refuse', mode: 'hybrid', evidence: 0 });
    const none = await ask('What is the price of a zebra licence?', withSimilarity(0, 0.8));
    expect(none).toMatchObject({ kind: 'refuse', mode: 'hybrid', evidence: 0 });
  });
});

describeStores('a follow-up on a three-chunk knowledge base (defaults)', (kind) => {
  const kb = {} as { store: OpenStore; billing: string };
  afterAll(() => kb.store?.close());
  beforeAll(async () => {
    kb.store = await kind.open();
    kb.billing = await kb.store.ingestDocument({
      source: 'billing.md',
      name: 'Billing',
      meta: {},
      checksum: 'billing',
      model: 'm',
      chunks: [
        { content: 'Refunds are issued within 14 days.', meta: { section: 'Refunds' }, embedding: basis(0) },
        { content: 'Invoices are emailed monthly.', meta: { section: 'Invoices' }, embedding: basis(1) },
        { content: 'Support answers within a day.', meta: { section: 'Support' }, embedding: basis(2) },
      ],
    });
  });

  it('weighs a word no chunk uses like the rarest one in a follow-up too, as in a complete question', async () => {
    // After an answer about refunds: "And how long do they take?" — "long" and "take" are in no chunk.
    const context = { terms: 'refunds', documents: [kb.billing], thread: [], sections: [], points_back: true };
    const [best] = await kb.store.searchChunks(VISITOR, {
      embedding: withSimilarity(0, 0.3),
      text: 'And how long do they take?',
      count: 1,
      mode: 'hybrid',
      filters: { context },
    });
    expect(best!.content).toMatch(/^Refunds/);
    // Own "long" and "take" at df 1 each, the borrowed "refund" (present on the thread's page) at half its
    // IDF, plus the last answer's page margin (0.01): 0.01 + 0.5 / (2 + 0.5) = 0.21. At df 0 the two absent
    // words weighed 2.08 each and the same chunk covered 0.115.
    const idf = (df: number) => Math.log(1 + (3 - df + 0.5) / (df + 0.5));
    expect(best!.coverage).toBeCloseTo(0.01 + idf(1) / 2 / (2 * idf(1) + idf(1) / 2), 6);
  });
});
