/**
 * Retrieval as the chat and search endpoints see it: the question (text and, when the browser could embed
 * it, its embedding) in; ranked chunks, the evidence verdict and a confidence out. The endpoints never
 * talk to match functions directly, so how retrieval works (vector, full-text, fused) can change here alone.
 */
import type { Confidence, RetrievalMode } from '../../protocol/index.ts';
import { checkEvidence } from '../chat/evidence.ts';
import type { ChatStore, ChunkMatch, JwtClaims } from '../store/types.ts';

export interface RetrievalOptions {
  /** Minimum cosine similarity of the best chunk (CHAT_EVIDENCE_THRESHOLD). */
  evidenceThreshold: number;
  /** Chunks retrieved before the gate (seed: top-K = 5). */
  matchCount?: number;
}

export interface RetrieveInput {
  claims: JwtClaims;
  question: string;
  embedding?: number[];
}

export type Retrieval =
  | { kind: 'answer'; mode: RetrievalMode; chunks: ChunkMatch[]; confidence: Confidence }
  | { kind: 'refuse'; mode: RetrievalMode };

export async function retrieve(store: ChatStore, input: RetrieveInput, options: RetrievalOptions): Promise<Retrieval> {
  const { evidenceThreshold, matchCount = 5 } = options;
  if (!input.embedding) return { kind: 'refuse', mode: 'lexical' };
  const matches = await store.matchChunks(input.claims, input.embedding, evidenceThreshold, matchCount);
  const evidence = checkEvidence(matches, evidenceThreshold);
  if (evidence.kind === 'refuse') return { kind: 'refuse', mode: 'vector' };
  return { kind: 'answer', mode: 'vector', chunks: evidence.chunks, confidence: confidenceOf(evidence.chunks[0]!.similarity, evidenceThreshold) };
}

/** high: well above the gate; medium: clearly above; low: just over it. */
export function confidenceOf(best: number, threshold: number): Confidence {
  if (best >= threshold + 0.25) return 'high';
  if (best >= threshold + 0.1) return 'medium';
  return 'low';
}
