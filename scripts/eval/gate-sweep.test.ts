import { describe, expect, it } from 'vitest';
import { answered, countsOf, objective } from './gate-sweep.ts';
import type { SiteQuestion } from './site-signals.ts';

const row = (cosine: number, coverage: number | null) => ({ cosine, coverage }) as SiteQuestion['rows']['hybrid'][0];
const question = (source: string | null, rows: SiteQuestion['rows']['hybrid']): SiteQuestion => ({
  q: 'q',
  source,
  set: 'tuning',
  rows: { hybrid: rows, vector: rows, lexical: rows },
});

describe('the gate sweep', () => {
  // Cosine 0.536, coverage 0.266: mean 0.401, the off-topic Vite question the floor was measured on.
  const offTopic = question(null, [row(0.536, 0.266)]);
  const inKb = question('a.md', [row(0.3, 0.5)]);

  it('answers as decide does: the mean against the threshold, in hybrid and vector mode from a chunk with enough coverage', () => {
    expect(answered(offTopic, 'hybrid', 0.39, 0)).toBe(true);
    expect(answered(offTopic, 'hybrid', 0.39, 0.35)).toBe(false);
    // Vector mode weighs the cosine alone, and since the vector floor it too needs the coverage.
    expect(answered(offTopic, 'vector', 0.5, 0)).toBe(true);
    expect(answered(offTopic, 'vector', 0.5, 0.35)).toBe(false);
    expect(answered(offTopic, 'lexical', 0.25, 0.35)).toBe(true);
    expect(answered(inKb, 'hybrid', 0.4, 0.35)).toBe(true);
    expect(answered(inKb, 'hybrid', 0.41, 0)).toBe(false);
  });

  it('counts refusals per kind and never prefers a choice that refuses more in-KB questions', () => {
    const base = countsOf([offTopic, inKb], 'hybrid', 0.39, 0);
    expect(base).toEqual({ inRefused: 0, inKb: 1, offRefused: 0, off: 1 });
    const floor = countsOf([offTopic, inKb], 'hybrid', 0.39, 0.35);
    expect(floor).toEqual({ inRefused: 0, inKb: 1, offRefused: 1, off: 1 });
    expect(objective(floor, base)).toBeGreaterThan(objective(base, base));
    const strict = countsOf([offTopic, inKb], 'hybrid', 0.45, 0);
    expect(objective(strict, base)).toBe(Number.NEGATIVE_INFINITY);
  });
});
