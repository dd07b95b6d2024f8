/**
 * Smoke test of `npm run eval`'s SQuAD path on a few real SQuAD articles: ingestion by the real pipeline,
 * questions through the API, the report's keys and sane values. Not a quality gate (that is the eval).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasSharedData, sharedData } from '../lib/shared-data.mjs';
import { createEmbedder, type Embedder } from '../../server/ingest/embedder.ts';
import { evaluateSquad } from './evaluate.ts';
import { articleMarkdown, readSquad, type SquadArticle } from './squad.ts';

const SQUAD = 'squad-v2-dev-public.json';
let embedder: Embedder;
let articles: SquadArticle[];

beforeAll(async () => {
  embedder = await createEmbedder({ model: 'test-double/bert-384', modelDir: 'test/fixtures/models' });
  if (hasSharedData(SQUAD)) articles = await readSquad(sharedData(SQUAD));
});
afterAll(() => embedder?.dispose());

describe('npm run eval (SQuAD)', () => {
  it('writes one section per paragraph under the article title', () => {
    const md = articleMarkdown({
      title: 'Super_Bowl_50',
      paragraphs: [
        { context: 'One.\nTwo.', qas: [] },
        { context: 'Three.', qas: [] },
      ],
    });
    expect(md).toBe('# Super Bowl 50\n\n## Paragraph 1\n\nOne. Two.\n\n## Paragraph 2\n\nThree.\n');
  });

  it.skipIf(!hasSharedData(SQUAD))('reports hit@k, containment, refusals and latency through the API', async () => {
    const { report, inKb, outOfKb } = await evaluateSquad({
      kb: articles.slice(0, 2).map((a) => ({ ...a, paragraphs: a.paragraphs.slice(0, 12) })),
      outOfKb: articles.slice(2, 3).map((a) => ({ ...a, paragraphs: a.paragraphs.slice(0, 6) })),
      embedder,
      mode: 'hybrid',
      limit: 12,
      evidenceThreshold: 0.35,
    });
    expect(Object.keys(report)).toEqual([
      'hit_at_1',
      'hit_at_3',
      'hit_at_5',
      'containment',
      'citation_precision',
      'answer_precision',
      'in_kb_refusal',
      'out_of_kb_refusal',
      'p50_ms',
      'p95_ms',
    ]);
    expect([inKb, outOfKb]).toEqual([12, 12]);
    expect(report.hit_at_1).toBeLessThanOrEqual(report.hit_at_3);
    expect(report.hit_at_3).toBeLessThanOrEqual(report.hit_at_5);
    // A small knowledge base answers most of its own questions and refuses most others.
    expect(report.hit_at_5).toBeGreaterThan(0.5);
    expect(report.out_of_kb_refusal).toBeGreaterThan(0.5);
    expect(report.p95_ms).toBeGreaterThanOrEqual(report.p50_ms);
  });
});
