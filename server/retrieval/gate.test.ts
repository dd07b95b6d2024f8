import { describe, expect, it } from 'vitest';
import { eligible, evidenceOf, passes } from './gate.ts';
import { retrievalFromEnv } from './config.ts';
import { confidenceOf, decide, thresholdsOf } from './index.ts';
import { searchRow } from './search-row.ts';

describe('the evidence of a chunk per mode', () => {
  const row = { cosine: 0.8, coverage: 0.4 };
  it('is the cosine in vector mode, the coverage in lexical mode, their mean in hybrid mode', () => {
    expect(evidenceOf(row, 'vector')).toBe(0.8);
    expect(evidenceOf(row, 'lexical')).toBe(0.4);
    expect(evidenceOf(row, 'hybrid')).toBeCloseTo(0.6, 12);
  });
  it('counts a missing signal as 0 (no embedding, no word in common)', () => {
    expect(evidenceOf({ cosine: null, coverage: 0.9 }, 'hybrid')).toBeCloseTo(0.45, 12);
    expect(evidenceOf({ cosine: 0.9, coverage: null }, 'lexical')).toBe(0);
  });
});

describe('the gate', () => {
  it('lets a chunk carry the hybrid and vector gates only with enough coverage; lexical mode needs none', () => {
    expect(eligible({ coverage: 0.35 }, 'hybrid', 0.35)).toBe(true);
    expect(eligible({ coverage: 0.34 }, 'hybrid', 0.35)).toBe(false);
    expect(eligible({ coverage: null }, 'hybrid', 0.35)).toBe(false);
    expect(eligible({ coverage: null }, 'hybrid', 0)).toBe(true);
    expect(eligible({ coverage: 0.3 }, 'vector', 0.3)).toBe(true);
    expect(eligible({ coverage: 0.29 }, 'vector', 0.3)).toBe(false);
    expect(eligible({ coverage: null }, 'vector', 0.3)).toBe(false);
    expect(eligible({ coverage: null }, 'vector', 0)).toBe(true);
    expect(eligible({ coverage: 0 }, 'lexical', 0.35)).toBe(true);
  });
  it('with the vector-candidate rule, lets only a chunk the vector search found carry the hybrid gate', () => {
    expect(eligible({ coverage: 0.6, vector_rank: null }, 'hybrid', 0.35)).toBe(true);
    expect(eligible({ coverage: 0.6, vector_rank: null }, 'hybrid', 0.35, true)).toBe(false);
    expect(eligible({ coverage: 0.6, vector_rank: 50 }, 'hybrid', 0.35, true)).toBe(true);
    // Still the least coverage first; and the rule is hybrid's alone.
    expect(eligible({ coverage: 0.3, vector_rank: 1 }, 'hybrid', 0.35, true)).toBe(false);
    expect(eligible({ coverage: 0.6, vector_rank: null }, 'vector', 0.3, true)).toBe(true);
    expect(eligible({ coverage: 0, vector_rank: null }, 'lexical', 0.35, true)).toBe(true);
  });
  it('passes at the threshold (float4 tolerance) and not below it', () => {
    expect(passes(0.35, 0.35)).toBe(true);
    expect(passes(0.35 - 1e-7, 0.35)).toBe(true);
    expect(passes(0.349, 0.35)).toBe(false);
  });
  it('takes CHAT_EVIDENCE_THRESHOLD for vector mode and calibrated defaults for the others', () => {
    expect(thresholdsOf({ evidenceThreshold: 0.3 })).toEqual({ vector: 0.3, lexical: 0.65, hybrid: 0.37 });
    expect(thresholdsOf({ evidenceThreshold: 0.3, lexicalThreshold: 0.5, hybridThreshold: 0.4 })).toEqual({
      vector: 0.3,
      lexical: 0.5,
      hybrid: 0.4,
    });
  });
  it('maps the best evidence to a confidence tier', () => {
    expect(confidenceOf(0.7)).toBe('high');
    expect(confidenceOf(0.5)).toBe('medium');
    expect(confidenceOf(0.4)).toBe('low');
    expect(confidenceOf(0.5, { high: 0.5, medium: 0.3 })).toBe('high');
  });
});

describe('the vector-candidate rule in decide (CHAT_HYBRID_VECTOR_CANDIDATE)', () => {
  const row = (content: string, cosine: number, coverage: number, vector_rank: number | null) =>
    searchRow({
      document_id: content,
      content,
      cosine,
      coverage,
      vector_rank,
      // Found by the full-text search alone, or by the vector search alone.
      bm25: vector_rank === null ? 1 : null,
      lexical_rank: vector_rank === null ? 1 : null,
      score: 0.01,
    });
  // "Can Vite renew my passport?" on the Vite tuning set: the chunk that carried it was found by the full-text
  // search alone (coverage 0.52, cosine 0.36: evidence 0.44); the vector search's nearest cover 0.03.
  const passport = [
    row('Vite is powering a renewed innovation race in Web frameworks.', 0.36, 0.52, null),
    row('Play online with Vite 8 using vite.new.', 0.6, 0.03, 1),
  ];
  const options = { evidenceThreshold: 0.35, mode: 'hybrid' as const };
  it('refuses when only a chunk outside the vector candidates passes, answers without the rule', () => {
    expect(decide(passport, 'hybrid', options, 'Can Vite renew my passport?').kind).toBe('answer');
    const refused = decide(
      passport,
      'hybrid',
      { ...options, hybridVectorCandidate: true },
      'Can Vite renew my passport?',
    );
    expect(refused).toMatchObject({ kind: 'refuse', evidence: 0 });
  });
  it('answers on a chunk both searches found', () => {
    const both = [row('Vite requires Node.js version 20.19+.', 0.5, 0.8, 12), ...passport];
    const found = decide(
      both,
      'hybrid',
      { ...options, hybridVectorCandidate: true },
      'Which Node.js version does Vite need?',
    );
    expect(found).toMatchObject({ kind: 'answer' });
    expect(found.evidence).toBeCloseTo(0.65, 5);
  });
  it('is left out when the vector search returned nothing (no chunk embedded yet) and in keyword mode', () => {
    const textOnly = [row('Vite is powering a renewed innovation race.', 0.36, 0.52, null)];
    expect(decide(textOnly, 'hybrid', { ...options, hybridVectorCandidate: true }, 'renew?').kind).toBe('answer');
    expect(decide(passport, 'lexical', { ...options, hybridVectorCandidate: true, lexicalThreshold: 0.5 }).kind).toBe(
      'answer',
    );
  });
});

describe('retrievalFromEnv', () => {
  it('reads the lexical and hybrid thresholds and the citation floor, 0…1', () => {
    expect(retrievalFromEnv({})).toEqual({});
    expect(
      retrievalFromEnv({ CHAT_LEXICAL_THRESHOLD: '0.5', CHAT_HYBRID_THRESHOLD: '0.4', CHAT_CITATION_FLOOR: '1' }),
    ).toEqual({
      lexicalThreshold: 0.5,
      hybridThreshold: 0.4,
      citationFloor: 1,
    });
    expect(() => retrievalFromEnv({ CHAT_CITATION_FLOOR: '1.5' })).toThrow(/CHAT_CITATION_FLOOR/);
    expect(retrievalFromEnv({ CHAT_HYBRID_MIN_COVERAGE: '0' })).toEqual({ hybridMinCoverage: 0 });
    expect(retrievalFromEnv({ CHAT_VECTOR_MIN_COVERAGE: '0.2' })).toEqual({ vectorMinCoverage: 0.2 });
    expect(() => retrievalFromEnv({ CHAT_VECTOR_MIN_COVERAGE: '-1' })).toThrow(/CHAT_VECTOR_MIN_COVERAGE/);
    expect(() => retrievalFromEnv({ CHAT_HYBRID_MIN_COVERAGE: 'half' })).toThrow(/CHAT_HYBRID_MIN_COVERAGE/);
  });
  it('reads the vector-candidate rule, off unless set', () => {
    expect(retrievalFromEnv({ CHAT_HYBRID_VECTOR_CANDIDATE: '1' })).toEqual({ hybridVectorCandidate: true });
    expect(retrievalFromEnv({ CHAT_HYBRID_VECTOR_CANDIDATE: 'false' })).toEqual({ hybridVectorCandidate: false });
    expect(() => retrievalFromEnv({ CHAT_HYBRID_VECTOR_CANDIDATE: 'yes' })).toThrow(/CHAT_HYBRID_VECTOR_CANDIDATE/);
  });
});
