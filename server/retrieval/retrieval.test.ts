/**
 * search_chunks and retrieve() on a real embedded Postgres (PGlite + pgvector, the real migrations):
 * reciprocal rank fusion, the three modes, BM25 and coverage, filters that do not starve the vector scan,
 * and the evidence gate of every mode at its boundary. Embeddings are exact unit vectors.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ChunkMeta, IngestChunk } from '../store/types.ts';
import { useKbStore, VISITOR } from '../testing/store.ts';
import { basis, withSimilarity } from '../testing/vectors.ts';
import { retrieve, search } from './index.ts';

const kb = useKbStore();
const claims = VISITOR;

const chunk = (content: string, embedding: number[], meta: ChunkMeta = {}): IngestChunk => ({
  content,
  meta,
  embedding,
});

async function doc(source: string, chunks: IngestChunk[], meta: Record<string, unknown> = {}): Promise<string> {
  return kb.store.ingestDocument({
    source,
    name: source.replace(/\.md$/, ''),
    meta,
    checksum: source,
    model: 'm',
    chunks,
  });
}

describe('search_chunks: modes and fusion', () => {
  beforeEach(async () => {
    await doc('billing.md', [
      chunk('Refunds are issued within 14 days of a charge.', basis(0), { section: 'Billing › Refunds' }),
      chunk('Invoices are emailed monthly.', basis(1), { section: 'Billing › Invoices' }),
    ]);
    await doc('plans.md', [
      chunk('Annual plans renew every year; refunds for annual plans are pro rata.', withSimilarity(0, 0.6, 5), {
        section: 'Plans',
      }),
    ]);
  });

  it('ranks by reciprocal rank fusion in hybrid mode: Σ 1 / (60 + rank) over both lists', async () => {
    const { mode, results } = await search(kb.store, {
      claims,
      question: 'annual refunds',
      embedding: basis(0),
      topK: 3,
    });
    expect(mode).toBe('hybrid');
    // Vector: Billing (1), Plans (2). Full text (BM25): Plans has both words (1), Billing only "refunds" (2).
    // Billing › Refunds and Plans tie at 1/61 + 1/62; Invoices is only in the vector list (rank 3).
    expect(results.map((r) => r.content)).toEqual([
      expect.stringMatching(/^(Refunds|Annual)/),
      expect.stringMatching(/^(Refunds|Annual)/),
      'Invoices are emailed monthly.',
    ]);
    expect(results.map((r) => r.score)).toEqual([
      expect.closeTo(1 / 61 + 1 / 62, 10),
      expect.closeTo(1 / 61 + 1 / 62, 10),
      expect.closeTo(1 / 63, 10),
    ]);
    const rows = await kb.store.searchChunks(claims, {
      embedding: basis(0),
      text: 'annual refunds',
      count: 3,
      mode: 'hybrid',
      filters: {},
    });
    const ranks = Object.fromEntries(rows.map((r) => [r.content.split(' ')[0], [r.vector_rank, r.lexical_rank]]));
    expect(ranks).toEqual({ Refunds: [1, 2], Annual: [2, 1], Invoices: [3, null] });
  });

  it('is lexical without an embedding: BM25 order, websearch syntax, OR between plain words', async () => {
    const lexical = await search(kb.store, { claims, question: 'annual refunds', topK: 5 });
    expect(lexical.mode).toBe('lexical');
    expect(lexical.results.map((r) => r.title)).toEqual(['plans', 'billing']);
    expect(lexical.results.every((r) => r.cosine === null)).toBe(true);
    // A quoted phrase and a negation are kept as the visitor typed them.
    const phrase = await search(kb.store, { claims, question: '"annual plans" -invoices', topK: 5 });
    expect(phrase.results.map((r) => r.title)).toEqual(['plans']);
    const negated = await search(kb.store, { claims, question: 'refunds -annual', topK: 5 });
    expect(negated.results.map((r) => r.title)).toEqual(['billing']);
  });

  it('is vector without text, and in vector mode orders by cosine with score = cosine', async () => {
    const { mode, results } = await search(kb.store, {
      claims,
      question: 'refunds',
      embedding: basis(0),
      mode: 'vector',
      topK: 2,
    });
    expect(mode).toBe('vector');
    expect(results.map((r) => r.score)).toEqual([expect.closeTo(1, 6), expect.closeTo(0.6, 6)]);
    expect((await search(kb.store, { claims, embedding: basis(1), topK: 1 })).mode).toBe('vector');
  });

  it('reports coverage: the IDF-weighted share of the question the chunk contains, an unseen word weighing as the rarest', async () => {
    const rows = await kb.store.searchChunks(claims, {
      embedding: null,
      text: 'invoices zebra',
      count: 1,
      mode: 'lexical',
      filters: {},
    });
    // N = 3 chunks; df(invoic) = 1, df(zebra) = 0; idf = ln(1 + (N − df + 0.5) / (df + 0.5)), a word no chunk
    // holds weighed as one a single chunk holds (migration 20261128030000): each half of the question.
    const idf = (df: number) => Math.log(1 + (3 - df + 0.5) / (df + 0.5));
    expect(rows[0]!.coverage).toBeCloseTo(idf(1) / (idf(1) + idf(1)), 10);
    expect(rows[0]!.coverage).toBeCloseTo(0.5, 10);
    const full = await kb.store.searchChunks(claims, {
      embedding: null,
      text: 'How are invoices sent?',
      count: 1,
      mode: 'lexical',
      filters: {},
    });
    expect(full[0]!.content).toBe('Invoices are emailed monthly.');
    expect(full[0]!.coverage).toBeLessThan(1);
  });

  it('finds the section title too (the chunk content does not repeat its heading)', async () => {
    const { results } = await search(kb.store, { claims, question: 'Billing', topK: 5 });
    expect(results.map((r) => r.title)).toEqual(['billing', 'billing']);
  });
});

describe('search_chunks: filters', () => {
  it('filters by document, source type, tags (any), language and date, in SQL', async () => {
    const a = await doc('a.md', [chunk('alpha refunds', basis(0))], {
      source_type: 'faq',
      tags: ['billing', 'eu'],
      language: 'en',
    });
    await doc('b.md', [chunk('beta refunds', basis(0))], {
      source_type: 'doc',
      tags: ['billing'],
      language: 'fr',
      published_at: '2020-01-01T00:00:00Z',
    });
    await doc('c.md', [chunk('gamma refunds', basis(0))], { tags: 'not-an-array' });
    const titles = async (filters: object) =>
      (await search(kb.store, { claims, question: 'refunds', embedding: basis(0), topK: 10, filters })).results
        .map((r) => r.title)
        .sort();
    expect(await titles({})).toEqual(['a', 'b', 'c']);
    expect(await titles({ document_ids: [a] })).toEqual(['a']);
    expect(await titles({ source_types: ['doc', 'web'] })).toEqual(['b']);
    expect(await titles({ tags: ['eu', 'nope'] })).toEqual(['a']);
    expect(await titles({ tags: ['billing'] })).toEqual(['a', 'b']);
    expect(await titles({ languages: ['fr'] })).toEqual(['b']);
    // b was published in 2020; a and c fall back to updated_at (now).
    expect(await titles({ date_to: '2021-01-01T00:00:00Z' })).toEqual(['b']);
    expect(await titles({ date_from: '2021-01-01T00:00:00Z' })).toEqual(['a', 'c']);
    expect(await titles({ document_ids: [], tags: [] })).toEqual(['a', 'b', 'c']);
  });

  it('never starves the vector scan: a filtered-out crowd of nearer chunks does not hide the match', async () => {
    const near = Array.from({ length: 300 }, (_, i) =>
      chunk(`near ${i}`, withSimilarity(0, 0.99 - i * 1e-4, 10 + (i % 300))),
    );
    await doc('crowd.md', near, { source_type: 'crowd' });
    await doc('wanted.md', [chunk('far away', withSimilarity(0, 0.2))], { source_type: 'wanted' });
    const { results } = await search(kb.store, {
      claims,
      embedding: basis(0),
      mode: 'vector',
      topK: 3,
      filters: { source_types: ['wanted'] },
    });
    expect(results.map((r) => r.title)).toEqual(['wanted']);
  });

  it('never returns disabled or unfinished documents', async () => {
    await doc('off.md', [chunk('refunds hidden', basis(0))]);
    await kb.store.db.exec("update kb_documents set enabled = false where source = 'off.md'");
    expect((await search(kb.store, { claims, question: 'refunds', embedding: basis(0), topK: 5 })).results).toEqual([]);
  });
});

describe('retrieve: the evidence gate per mode', () => {
  beforeEach(async () => {
    await doc('billing.md', [
      chunk('Refunds are issued within 14 days.', basis(0), { section: 'Billing › Refunds' }),
      chunk('Refunds for annual plans are pro rata.', withSimilarity(0, 0.5, 5), { section: 'Billing › Refunds' }),
      chunk('Invoices are emailed monthly.', basis(1), { section: 'Billing › Invoices' }),
    ]);
  });
  const ask = (question: string, embedding: number[] | undefined, options: object = {}) =>
    retrieve(
      kb.store,
      { claims, question, embedding },
      // Vector mode's coverage floor off: these questions are made of no words ("zzz"); the floor is tested
      // in vector-gate.test.ts.
      { evidenceThreshold: 0.35, lexicalThreshold: 0.6, hybridThreshold: 0.5, vectorMinCoverage: 0, ...options },
    );

  it('vector: the best cosine against CHAT_EVIDENCE_THRESHOLD, boundary included', async () => {
    expect((await ask('zzz', withSimilarity(0, 0.34), { mode: 'vector' })).kind).toBe('refuse');
    const at = await ask('zzz', withSimilarity(0, 0.35), { mode: 'vector' });
    expect(at).toMatchObject({ kind: 'answer', mode: 'vector', threshold: 0.35 });
    expect(at.evidence).toBeCloseTo(0.35, 5);
  });

  it('lexical (no embedding): coverage of the best chunk against the lexical threshold', async () => {
    const yes = await ask('When are refunds issued?', undefined);
    expect(yes).toMatchObject({ kind: 'answer', mode: 'lexical' });
    const no = await ask('When are zebras refunded?', undefined);
    expect(no).toMatchObject({ kind: 'refuse', mode: 'lexical' });
    expect(no.evidence).toBeLessThan(0.6);
    expect((await ask('the of and', undefined)).kind).toBe('refuse');
  });

  it('hybrid: the mean of cosine and coverage', async () => {
    // Coverage of "refunds issued" in the first chunk is 1; cosine 0 → mean 0.5 = threshold: answers.
    const at = await ask('refunds issued', withSimilarity(2, 1));
    expect(at).toMatchObject({ kind: 'answer', mode: 'hybrid' });
    expect(at.evidence).toBeCloseTo(0.5, 5);
    expect((await ask('refunds issued', withSimilarity(2, 1), { hybridThreshold: 0.51 })).kind).toBe('refuse');
    // A perfect embedding match without the words: cosine 1, coverage 0 → 0.5, but below the least coverage
    // (CHAT_HYBRID_MIN_COVERAGE) the chunk cannot carry the gate, and the refusal reports no evidence.
    expect((await ask('zebra', basis(1), { hybridMinCoverage: 0 })).evidence).toBeCloseTo(0.5, 5);
    expect(await ask('zebra', basis(1))).toMatchObject({ kind: 'refuse', evidence: 0 });
  });

  it('hybrid: a chunk carries the gate only with coverage at least the least coverage, boundary included', async () => {
    // "refunds zebra": the first chunk covers "refund" only (part of the IDF), cosine 1 → mean above 0.5.
    const found = await ask('refunds zebra', basis(0), { hybridThreshold: 0.3, hybridMinCoverage: 0 });
    expect(found.kind).toBe('answer');
    const coverage = 2 * found.evidence - 1;
    expect(coverage).toBeGreaterThan(0);
    expect(coverage).toBeLessThan(1);
    const exact = Math.floor(coverage * 1e4) / 1e4;
    expect((await ask('refunds zebra', basis(0), { hybridThreshold: 0.3, hybridMinCoverage: exact })).kind).toBe(
      'answer',
    );
    expect(
      (await ask('refunds zebra', basis(0), { hybridThreshold: 0.3, hybridMinCoverage: coverage + 0.01 })).kind,
    ).toBe('refuse');
    // The floor is hybrid's alone: in vector mode the same chunk answers on its cosine.
    expect((await ask('refunds zebra', basis(0), { mode: 'vector', hybridMinCoverage: 1 })).kind).toBe('answer');
  });

  it('cites, in order of evidence, chunks that reach the citation floor (a share of the threshold)', async () => {
    await doc('more.md', [
      chunk('Refund requests go through support.', withSimilarity(0, 0.32, 6), { section: 'Support' }),
      chunk('Refunds are rare.', withSimilarity(0, 0.28, 7), { section: 'Misc' }),
    ]);
    const question = withSimilarity(0, 1);
    // Threshold 0.4, floor 0.75 → 0.3: the best chunk (1) answers; 0.5 shares its section; 0.32 is cited, 0.28 is not.
    const found = await ask('zzz', question, { mode: 'vector', evidenceThreshold: 0.4 });
    if (found.kind !== 'answer') throw new Error('expected an answer');
    expect(found.chunks.map((c) => c.similarity)).toEqual([expect.closeTo(1, 5), expect.closeTo(0.32, 5)]);
    // Floor 1: only chunks that pass the gate themselves.
    const strict = await ask('zzz', question, { mode: 'vector', evidenceThreshold: 0.4, citationFloor: 1 });
    if (strict.kind !== 'answer') throw new Error('expected an answer');
    expect(strict.chunks.map((c) => c.similarity)).toEqual([expect.closeTo(1, 5)]);
    // Nothing below the threshold answers, however many chunks reach the floor.
    expect((await ask('zzz', withSimilarity(0, 0.39), { mode: 'vector', evidenceThreshold: 0.4 })).kind).toBe('refuse');
  });

  it('gates and cites by evidence, not by fusion rank: the best (cosine + coverage) / 2 among the candidates', async () => {
    // Both refund chunks tie in the fusion (vector 1 / full text 2 and vice versa); by evidence the annual
    // one wins: cosine 0.5 with every question word (0.75) against cosine 1 with only "refunds" (≈ 0.55).
    const found = await ask('annual plans pro rata refunds', basis(0), { hybridThreshold: 0.7 });
    if (found.kind !== 'answer') throw new Error('expected an answer');
    expect(found.evidence).toBeCloseTo(0.75, 5);
    expect(found.chunks[0]!.content).toBe('Refunds for annual plans are pro rata.');
  });

  it('cites only chunks that pass themselves with citationFloor 1, one per section, at most matchCount, similarity = evidence', async () => {
    const found = await ask('refunds', basis(0), {
      mode: 'vector',
      evidenceThreshold: 0.4,
      matchCount: 5,
      citationFloor: 1,
    });
    if (found.kind !== 'answer') throw new Error('expected an answer');
    // Both refund chunks pass (1 and 0.5) but share a section: only the better one is cited.
    expect(found.chunks.map((c) => [c.content, c.similarity])).toEqual([
      ['Refunds are issued within 14 days.', expect.closeTo(1, 5)],
    ]);
  });
});
