import { describe, expect, it } from 'vitest';
import {
  answerBlocks,
  containsAnswer,
  containsFact,
  markersOf,
  ndcgAt,
  percentile,
  proseSentences,
  recallAt,
  spread,
} from './metrics.ts';
import { sweep, suggest } from './sweep.ts';

describe('eval metrics', () => {
  const answer = [
    'Install it with Homebrew: [1]',
    '',
    '```sh',
    'brew install railway # see [2]',
    '```',
    '',
    'Then log in. It opens a browser. [2]',
    '',
    '- Run **`railway up`** to [deploy](/deploy). [3]',
    '',
    '| Plan | Days |',
    '| --- | --- |',
    '| Hobby | 7 |',
    '',
    '[1]',
  ].join('\n');

  it('reads answers as a visitor does: facts through Markdown, one marker per unit outside code, sentences and blocks', () => {
    expect(containsFact(answer, ['Run railway up to deploy'])).toBe(true);
    expect(containsFact(answer, ['`brew install railway`'])).toBe(true);
    expect(containsFact(answer, ['railway down'])).toBe(false);
    expect(markersOf(answer)).toEqual([1, 2, 3, 1]);
    expect(proseSentences(answer)).toBe(3);
    expect(answerBlocks(answer)).toBe(3);
  });

  it('nDCG@k and recall@k as BEIR computes them', () => {
    const relevant = new Map([
      ['a', 1],
      ['b', 1],
    ]);
    expect(ndcgAt(10, ['a', 'b', 'c'], relevant)).toBe(1);
    expect(ndcgAt(10, ['c', 'a'], relevant)).toBeCloseTo(1 / Math.log2(3) / (1 + 1 / Math.log2(3)), 12);
    expect(ndcgAt(1, ['c', 'a'], relevant)).toBe(0);
    expect(recallAt(2, ['c', 'a', 'b'], relevant)).toBe(0.5);
  });
  it('percentiles by nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 95)).toBe(95);
    expect(percentile([7], 95)).toBe(7);
  });
  it('containment ignores case, spacing and curly quotes', () => {
    expect(containsAnswer('It was built in  1066 by the Normans. [1]', ['the normans'])).toBe(true);
    expect(containsAnswer('Rock ’n’ roll [1]', ["rock 'n' roll"])).toBe(true);
    expect(containsAnswer('Nothing here', ['1066'])).toBe(false);
  });
  it('spreads a limit over the whole list', () => {
    expect(spread([1, 2, 3, 4, 5, 6], 3)).toEqual([1, 3, 5]);
    expect(spread([1, 2], 5)).toEqual([1, 2]);
  });
  it('sweeps the gate: answered in-KB vs refused out-of-KB per threshold', () => {
    const q = (inKb: boolean, coverage: number) => ({
      inKb,
      section: '',
      rows: [{ cosine: null, coverage, meta: {}, document_title: '' }],
    });
    const rows = sweep([q(true, 0.9), q(true, 0.5), q(false, 0.4), q(false, 0.1)], 'lexical', [0.3, 0.45, 0.6]);
    expect(rows).toEqual([
      { threshold: 0.3, answered_in_kb: 1, refused_out_of_kb: 0.5 },
      { threshold: 0.45, answered_in_kb: 1, refused_out_of_kb: 1 },
      { threshold: 0.6, answered_in_kb: 0.5, refused_out_of_kb: 1 },
    ]);
    expect(suggest(rows, 0.95)?.threshold).toBe(0.45);
  });
});
