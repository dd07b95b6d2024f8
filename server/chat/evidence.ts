/**
 * The evidence gate (seed 000 "Evidence Threshold & Refusal"): answer only from chunks whose cosine
 * similarity reaches the threshold; with none, refuse. Kept separate so the boundary is tested exactly.
 */
import type { ChunkMatch } from '../store/types.ts';

/** pgvector stores float4: a similarity meant to equal the threshold may come out a hair below it. */
const FLOAT4_TOLERANCE = 1e-6;

export type Evidence = { kind: 'answer'; chunks: ChunkMatch[] } | { kind: 'refuse' };

export function checkEvidence(matches: ChunkMatch[], threshold: number): Evidence {
  const chunks = matches.filter((m) => m.similarity >= threshold - FLOAT4_TOLERANCE).sort((a, b) => b.similarity - a.similarity);
  return chunks.length > 0 ? { kind: 'answer', chunks } : { kind: 'refuse' };
}
