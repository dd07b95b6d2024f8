/**
 * The committed docs-QA sets are data the README's numbers rest on: every item must name a page of its
 * corpus that contains (verbatim) every expected fragment. And `npm run eval -- --qa` on the demo set, end to
 * end through the real pipeline and API: the report's keys, and the widget question answered with its snippet.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasSharedData } from '../lib/shared-data.mjs';
import { createEmbedder, type Embedder } from '../../server/ingest/embedder.ts';
import { migratedTemplate } from '../../server/testing/pglite-template.ts';
import { byKind, evaluateQa, readQaFile, type QaResult } from './docs-qa.ts';

/**
 * The sets whose every fragment is verbatim in its page. Sets that list alternatives (any one fragment may hold the
 * fact: vite-values, mkdocs-values, mkdocs-material-more) are checked by fragments.test.ts, which every set passes.
 */
const SETS = [
  'scripts/eval/qa/demo-kb.json',
  'scripts/eval/qa/railway-docs.json',
  'scripts/eval/qa/railway-heldout.json',
  'scripts/eval/qa/railway-heldout-2.json',
  'scripts/eval/qa/railway-heldout-3.json',
  'scripts/eval/qa/railway-heldout-4.json',
  'scripts/eval/qa/railway-tuning-2.json',
  'scripts/eval/qa/vite-docs.json',
  'scripts/eval/qa/vite-docs-more.json',
  'scripts/eval/qa/vite-heldout.json',
  'scripts/eval/qa/vite-heldout-2.json',
  'scripts/eval/qa/vite-heldout-3.json',
  'scripts/eval/qa/vite-heldout-4.json',
  'scripts/eval/qa/vite-tuning-2.json',
  'scripts/eval/qa/mkdocs-material-docs.json',
  'scripts/eval/qa/mkdocs-heldout.json',
  'scripts/eval/qa/mkdocs-heldout-2.json',
  'scripts/eval/qa/mkdocs-heldout-3.json',
  'scripts/eval/qa/mkdocs-heldout-4.json',
  'scripts/eval/qa/mkdocs-tuning-2.json',
];

describe('docs-QA sets', () => {
  for (const file of SETS) {
    // The shared corpora (Railway, Vite, MkDocs Material) are read from ../shared in place; where it is absent there is nothing to check against.
    // A corpus inside the repository (demo/kb) must be there: it never skips.
    const corpus = (JSON.parse(readFileSync(file, 'utf8')) as { corpus: string }).corpus;
    const shared = /^\.\.\/shared\/data\/(.+)$/.exec(corpus)?.[1];
    it.skipIf(shared !== undefined && !hasSharedData(shared))(
      `${file}: every expected fragment is in its answering page`,
      async () => {
        const qa = await readQaFile(file);
        expect(qa.items.length).toBeGreaterThanOrEqual(15);
        const missing = qa.items.flatMap((item) => {
          const page = path.join(qa.corpus, item.source);
          if (!existsSync(page)) return [`${item.q}: no page ${item.source}`];
          const text = readFileSync(page, 'utf8');
          return item.expect
            .filter((fragment) => !text.includes(fragment))
            .map((f) => `${item.q}: "${f}" not in ${item.source}`);
        });
        expect(missing).toEqual([]);
      },
    );
  }
});

describe('byKind', () => {
  const result = (kind: string, cited: string[], fact: boolean, candidateRank: number): QaResult => ({
    item: { q: kind, expect: ['x'], source: 'a.md', kind },
    reply:
      cited.length > 0
        ? { kind: 'answer', text: fact ? 'x' : 'y', citations: [], mode: 'hybrid', ms: 1 }
        : { kind: 'refusal', reason: 'no_evidence', ms: 1 },
    cited,
    fact,
    candidateRank,
  });

  it('credits retrieval and extraction separately, per kind', () => {
    const rows = byKind([
      result('list', ['a.md'], true, 0),
      result('list', ['b.md', 'a.md'], false, 2),
      result('list', [], false, -1),
      result('number', ['b.md'], false, 1),
    ]);
    expect(rows.map((r) => r.kind)).toEqual(['list', 'number']);
    const list = rows[0]!;
    expect([list.n, list.fact_in_answer, list.right_page_first]).toEqual([3, 1 / 3, 1 / 3]);
    // Retrieval alone: first candidate once, among the first five twice; extraction alone: 1 fact of 2 cited.
    expect([list.retrieval_top1, list.retrieval_top5, list.fact_when_cited, list.cited]).toEqual([
      1 / 3,
      2 / 3,
      0.5,
      2,
    ]);
    expect(rows[1]!.fact_when_cited).toBe(0);
  });
});

describe('npm run eval -- --qa (demo set)', () => {
  let embedder: Embedder;
  beforeAll(async () => {
    embedder = await createEmbedder({ model: 'test-double/bert-384', modelDir: 'test/fixtures/models' });
  });
  afterAll(() => embedder?.dispose());

  it('reports what a visitor reads, and answers the widget question with its snippet', {
    timeout: 60_000,
  }, async () => {
    const qa = await readQaFile('scripts/eval/qa/demo-kb.json');
    const { report, results, offTopic } = await evaluateQa({
      qa,
      embedder,
      mode: 'hybrid',
      evidenceThreshold: 0.35,
      loadDataDir: await migratedTemplate(),
    });
    expect(results).toHaveLength(qa.items.length);
    expect(offTopic).toHaveLength(qa.out_of_kb.length);
    for (const key of ['fact_in_answer', 'right_page_first', 'right_page_cited', 'citation_precision'] as const) {
      expect(report[key]).toBeGreaterThanOrEqual(0);
      expect(report[key]).toBeLessThanOrEqual(1);
    }
    expect(report.right_page_first).toBeLessThanOrEqual(report.right_page_cited);
    const widget = results.find((r) => r.item.q === 'How do I add the widget to my website?')!;
    expect(widget.fact).toBe(true);
    expect(widget.cited[0]).toBe('getting-started.md');
    expect(widget.reply.kind === 'answer' && widget.reply.text).toMatch(
      /```html\n<script type="module"[^\n]*\n<kb-chat><\/kb-chat>\n```/,
    );
  });
});
