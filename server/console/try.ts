/**
 * "Try a question", the console's retrieval debugger: the question goes through the chat endpoint's own
 * functions — the same message cleaning and truncation, `gatherEvidence` (one `search_chunks` call),
 * `decide` (the evidence gate and the citable chunks) and `extractAnswer` — and the result shows every
 * candidate with its signals, the gate's decision and threshold, and the answer (or refusal) a visitor
 * would get. Nothing is stored: no session, no message, no content gap.
 */
import type { TryCandidate, TryRequest, TryResult } from '../../protocol/index.ts';
import { extractAnswer } from '../chat/extract.ts';
import { excerpt } from '../chat/excerpt.ts';
import { closestPages } from '../chat/closest.ts';
import { emptyKbRefusal, noEvidenceRefusal } from '../chat/refusal.ts';
import { cleanMessage, truncateForModel } from '../chat/request.ts';
import { fromStoreError } from '../http/errors.ts';
import {
  decide,
  DEFAULT_CITATION_FLOOR,
  evidenceOf,
  gatherEvidence,
  type RetrievalOptions,
} from '../retrieval/index.ts';
import type { ChatStore, JwtClaims } from '../store/types.ts';

/** Embeds one question as the widget's embedder would (same model); rejects when the model is unavailable. */
export type EmbedQuestion = (text: string) => Promise<number[]>;

export async function tryQuestion(
  store: ChatStore,
  claims: JwtClaims,
  request: TryRequest,
  retrieval: RetrievalOptions,
  embedQuestion?: EmbedQuestion,
  refusalSuggestions?: readonly string[],
  supportUrl: string | null = null,
): Promise<TryResult> {
  const { text: query } = truncateForModel(cleanMessage(request.message));
  // A visitor whose browser has loaded the model sends an embedding; the server embeds here when it can.
  const embedding =
    request.embedding ?? (embedQuestion ? await embedQuestion(query).catch(() => undefined) : undefined);
  const options: RetrievalOptions = { ...retrieval, ...(request.mode ? { mode: request.mode } : {}) };
  const { mode, rows } = await gatherEvidence(store, { claims, question: query, embedding }, options).catch((error) => {
    throw fromStoreError(error);
  });
  const verdict = decide(rows, mode, options, query);
  const base = {
    mode,
    embedded: embedding !== undefined,
    evidence: verdict.evidence,
    threshold: verdict.threshold,
    citation_floor: verdict.threshold * (options.citationFloor ?? DEFAULT_CITATION_FLOOR),
  };
  const candidates = (cited: Set<string>): TryCandidate[] =>
    rows.map((row) => ({
      chunk_id: row.chunk_id,
      document_id: row.document_id,
      title: row.document_title,
      section: row.meta.section ?? null,
      excerpt: excerpt(row.content, 300),
      cosine: row.cosine,
      coverage: row.coverage,
      bm25: row.bm25,
      vector_rank: row.vector_rank,
      lexical_rank: row.lexical_rank,
      score: row.score,
      evidence: evidenceOf(row, mode),
      cited: cited.has(row.chunk_id),
    }));

  if (verdict.kind === 'refuse') {
    const hasDocuments = await store.hasDocuments().catch((error) => {
      throw fromStoreError(error);
    });
    return {
      ...base,
      decision: 'refuse',
      confidence: null,
      candidates: candidates(new Set()),
      answer: null,
      refusal: hasDocuments
        ? noEvidenceRefusal(refusalSuggestions, closestPages(verdict), supportUrl)
        : emptyKbRefusal(),
    };
  }
  const answer = extractAnswer(query, verdict.chunks, {}, verdict.siblings);
  return {
    ...base,
    decision: 'answer',
    confidence: verdict.confidence,
    candidates: candidates(new Set(answer.citations.map((c) => c.chunk_id))),
    answer: { text: answer.text, citations: answer.citations, related: answer.related },
    refusal: null,
  };
}
