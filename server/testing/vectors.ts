/**
 * Test support: unit vectors with exactly known cosine similarities, so retrieval and the evidence gate can
 * be tested at precise boundaries without depending on a model.
 */
import { EMBEDDING_DIMENSIONS } from '../../protocol/index.ts';

/** The i-th standard basis vector. */
export function basis(i: number): number[] {
  const v = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  v[i] = 1;
  return v;
}

/** A unit vector whose cosine similarity with basis(i) is exactly `similarity` (and 0 with basis(j ≠ i, k)). */
export function withSimilarity(i: number, similarity: number, k = EMBEDDING_DIMENSIONS - 1): number[] {
  const v = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  v[i] = similarity;
  v[k] = Math.sqrt(1 - similarity * similarity);
  return v;
}
