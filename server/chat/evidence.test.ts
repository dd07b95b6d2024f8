import { describe, expect, it } from 'vitest';
import type { ChunkMatch } from '../store/types.ts';
import { checkEvidence } from './evidence.ts';

const chunk = (similarity: number, id = String(similarity)): ChunkMatch => ({
  chunk_id: id,
  content: 'text',
  meta: {},
  document_id: 'd',
  document_title: 'Doc',
  document_url: null,
  similarity,
});

describe('checkEvidence (threshold 0.35)', () => {
  it('answers at exactly the threshold', () => {
    expect(checkEvidence([chunk(0.35)], 0.35)).toEqual({ kind: 'answer', chunks: [chunk(0.35)] });
  });

  it('refuses at 0.34', () => {
    expect(checkEvidence([chunk(0.34)], 0.35)).toEqual({ kind: 'refuse' });
  });

  it('answers at 0.36', () => {
    expect(checkEvidence([chunk(0.36)], 0.35).kind).toBe('answer');
  });

  it('refuses on no matches at all', () => {
    expect(checkEvidence([], 0.35)).toEqual({ kind: 'refuse' });
  });

  it('keeps only qualifying chunks, best first', () => {
    const result = checkEvidence([chunk(0.4), chunk(0.2), chunk(0.9)], 0.35);
    expect(result.kind === 'answer' && result.chunks.map((c) => c.similarity)).toEqual([0.9, 0.4]);
  });
});
