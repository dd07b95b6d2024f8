import { describe, expect, it } from 'vitest';
import { eligible, evidenceOf, passes } from './gate.ts';
import { retrievalFromEnv } from './config.ts';
import { confidenceOf, thresholdsOf } from './index.ts';

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
});
