/**
 * BM25's statistics as data (kb_lexemes, kb_corpus_stats; migration 20261123000000) on the real embedded
 * Postgres: they must equal a recount from the chunks after every kind of change, the BM25 that
 * search_chunks computes from them must equal the formula computed here from the raw chunks, and bounding
 * the full-text candidates to the rarest lexemes must not lose the chunk that has them.
 */
import { describe, expect, it } from 'vitest';
import type { IngestChunk } from '../store/types.ts';
import { useKbStore, VISITOR } from '../testing/store.ts';
import { basis } from '../testing/vectors.ts';

const kb = useKbStore();
const claims = VISITOR;

const chunk = (content: string, i = 0): IngestChunk => ({
  content,
  meta: { section: `S${i}` },
  embedding: basis(i % 384),
});
const doc = (source: string, contents: string[]) =>
  kb.store.ingestDocument({
    source,
    name: source,
    meta: {},
    checksum: source + contents.join(),
    model: 'm',
    chunks: contents.map(chunk),
  });

/** What the triggers maintain vs. the same numbers counted from scratch over searchable chunks. */
async function statistics() {
  const kept = await kb.store.db.query<{ lexeme: string; df: number }>(
    'select lexeme, df from kb_lexemes order by lexeme',
  );
  const counted = await kb.store.db.query<{ lexeme: string; df: number }>(
    `select lexeme, count(*)::int as df
     from kb_chunks c join kb_documents d on d.id = c.document_id and d.status = 'ready' and d.enabled,
       unnest(tsvector_to_array(c.fts)) lexeme
     group by lexeme order by lexeme`,
  );
  const corpus = await kb.store.db.query<{ chunks: string; total_length: string }>(
    'select chunks, total_length from kb_corpus_stats',
  );
  const corpusCounted = await kb.store.db.query<{ chunks: string; total_length: string }>(
    `select count(*) as chunks, coalesce(sum(c.fts_length), 0) as total_length
     from kb_chunks c join kb_documents d on d.id = c.document_id and d.status = 'ready' and d.enabled`,
  );
  return { kept: kept.rows, counted: counted.rows, corpus: corpus.rows[0], corpusCounted: corpusCounted.rows[0] };
}

async function expectConsistent(chunks: number) {
  const s = await statistics();
  expect(s.kept).toEqual(s.counted);
  expect(s.corpus).toEqual(s.corpusCounted);
  expect(Number(s.corpus!.chunks)).toBe(chunks);
}

describe('BM25 statistics kept with the documents', () => {
  it('stay equal to a recount through ingest, re-ingest, disable, enable, delete and prune', async () => {
    await expectConsistent(0);
    const a = await doc('a.md', ['Refunds are issued within 14 days.', 'Invoices are emailed monthly.']);
    await doc('b.md', ['Annual plans renew every year; refunds are pro rata.']);
    await expectConsistent(3);
    expect((await kb.store.db.query('select df from kb_lexemes where lexeme = $1', ['refund'])).rows).toEqual([
      { df: 2 },
    ]);

    await doc('a.md', ['Refunds take 30 days now.']); // replaced: old chunks out, new in
    await expectConsistent(2);
    expect((await kb.store.db.query('select 1 from kb_lexemes where lexeme = $1', ['invoic'])).rows).toEqual([]);

    expect(await kb.store.setDocumentEnabled(a, false)).toBe(true);
    await expectConsistent(1);
    await doc('a.md', ['Refunds take 45 days now.']); // re-ingesting a disabled document keeps it out
    await expectConsistent(1);
    expect(await kb.store.setDocumentEnabled(a, true)).toBe(true);
    await expectConsistent(2);

    expect(await kb.store.deleteDocument(a)).toBe(true);
    await expectConsistent(1);
    await kb.store.pruneDocuments('b', [], false);
    await expectConsistent(0);
    expect((await kb.store.db.query('select count(*)::int as n from kb_lexemes')).rows).toEqual([{ n: 0 }]);
  });

  it('count a chunk written into a ready document directly, and drop it when it is deleted', async () => {
    const id = await doc('a.md', ['Refunds are issued within 14 days.']);
    await kb.store.db.query(
      `insert into kb_chunks (document_id, position, content) values ($1, 1, 'Shipping is free.')`,
      [id],
    );
    await expectConsistent(2);
    await kb.store.db.query('update kb_chunks set content = $1 where position = 1', ['Shipping costs five dollars.']);
    await expectConsistent(2);
    await kb.store.db.query('delete from kb_chunks where position = 1');
    await expectConsistent(1);
  });

  it('are deferred during a bulk load and recounted when it ends (or when the next run repairs it)', async () => {
    await doc('a.md', ['Refunds are issued within 14 days.']);
    expect(await kb.store.deferEmbeddingIndex!()).toBe(true);
    await doc('b.md', ['Invoices are emailed monthly.']);
    await doc('a.md', ['Refunds take 30 days now.']);
    const during = await statistics();
    expect(Number(during.corpus!.chunks)).toBe(1); // not counted while deferred
    expect(await kb.store.restoreIndexes!()).toBe(2); // the HNSW index and the statistics
    await expectConsistent(2);
    expect((await kb.store.db.query('select count(*)::int as n from kb_deferred_indexes')).rows).toEqual([{ n: 0 }]);
  });

  it('can be recounted from scratch (kb_recount_statistics) with the same result', async () => {
    await doc('a.md', ['Refunds are issued within 14 days.', 'Invoices are emailed monthly.']);
    await kb.store.db.exec('update kb_lexemes set df = 99; update kb_corpus_stats set chunks = 7');
    await kb.store.db.query('select kb_recount_statistics()');
    await expectConsistent(2);
  });
});

describe('BM25 from the kept statistics', () => {
  it('equals the formula computed from the raw chunks (k1 1.2, b 0.75, idf ln(1 + (N - df + .5)/(df + .5)))', async () => {
    const texts = [
      'Refunds are issued within 14 days of a refund request.',
      'Invoices are emailed monthly; refunds appear on the next invoice.',
      'Annual plans renew every year.',
      'Shipping refunds are handled by the carrier, not by us.',
    ];
    await doc('a.md', texts);
    const question = 'refund invoice carrier';
    const rows = await kb.store.searchChunks(claims, {
      embedding: null,
      text: question,
      count: 10,
      mode: 'lexical',
      filters: {},
    });

    const vectors = await kb.store.db.query<{
      content: string;
      lexemes: { lexeme: string; n: number }[];
      length: number;
    }>(
      `select content, fts_length as length,
         (select json_agg(json_build_object('lexeme', u.lexeme, 'n', coalesce(array_length(u.positions, 1), 1))) from unnest(fts) u) as lexemes
       from kb_chunks`,
    );
    const terms = (
      await kb.store.db.query<{ t: string[] }>("select tsvector_to_array(to_tsvector('english', $1)) as t", [question])
    ).rows[0]!.t;
    const n = vectors.rows.length;
    const avgdl = vectors.rows.reduce((s, r) => s + r.length, 0) / n;
    const df = (t: string) => vectors.rows.filter((r) => r.lexemes.some((l) => l.lexeme === t)).length;
    const expected = new Map(
      vectors.rows.map((r) => {
        let score = 0;
        for (const t of terms) {
          const tf = r.lexemes.find((l) => l.lexeme === t)?.n ?? 0;
          if (!tf) continue;
          const idf = Math.log(1 + (n - df(t) + 0.5) / (df(t) + 0.5));
          score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * r.length) / avgdl));
        }
        return [r.content, score];
      }),
    );
    expect(rows.length).toBe(3); // "Annual plans renew every year." shares no lexeme
    for (const row of rows) expect(row.bm25).toBeCloseTo(expected.get(row.content)!, 9);
    expect(rows.map((r) => r.bm25)).toEqual([...rows.map((r) => r.bm25!)].sort((x, y) => y - x));
  });
});

describe('bounded full-text candidates', () => {
  it('finds the chunk with the rare word first, even when the common word is in 400 chunks', async () => {
    const filler = Array.from({ length: 400 }, (_, i) => `The service answers request number ${i} quickly.`);
    await doc('filler.md', filler);
    await doc('rare.md', ['A service request about the zeppelin hangar is answered by the night shift.']);
    const rows = await kb.store.searchChunks(claims, {
      embedding: null,
      text: 'service request zeppelin',
      count: 5,
      mode: 'lexical',
      filters: {},
    });
    expect(rows[0]!.content).toMatch(/zeppelin/);
    expect(rows[0]!.coverage).toBeCloseTo(1, 9);
    // The common words bring no candidates of their own here (the rare word's chunks are within the
    // budget), so only the zeppelin chunk is scored.
    expect(rows).toHaveLength(1);
  });

  it('still answers a question made only of common words (the rarest of them probes, capped)', async () => {
    const filler = Array.from({ length: 400 }, (_, i) => `The service answers request number ${i} quickly.`);
    await doc('filler.md', filler);
    const rows = await kb.store.searchChunks(claims, {
      embedding: null,
      text: 'service request',
      count: 5,
      mode: 'lexical',
      filters: {},
    });
    expect(rows).toHaveLength(5);
    expect(rows.every((r) => r.coverage === 1)).toBe(true);
  });
});
