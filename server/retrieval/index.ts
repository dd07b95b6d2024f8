/**
 * Retrieval as the chat and search endpoints see it: the question (text and, when the browser could embed
 * it, its embedding) in; ranked chunks, the evidence verdict and a confidence out. The endpoints never
 * talk to match functions directly, so how retrieval works (vector, full-text, fused) can change here alone.
 *
 * One `search_chunks` call (hybrid by default, lexical without an embedding) for a pool of candidates,
 * then the evidence gate of gate.ts on the candidate with the best evidence (not on the fusion's first
 * row), then citable chunks: in order of evidence, those whose evidence reaches the citation floor (a share
 * of the mode's threshold, see gate.ts), one per document section, at most `matchCount`.
 */
import type { Confidence, RetrievalMode, SearchFilters } from '../../protocol/index.ts';
import type { ChatStore, ChunkMatch, JwtClaims, SearchChunkRow } from '../store/types.ts';
import {
  DEFAULT_CITATION_FLOOR,
  DEFAULT_HYBRID_MIN_COVERAGE,
  DEFAULT_HYBRID_THRESHOLD,
  DEFAULT_LEXICAL_THRESHOLD,
  DEFAULT_VECTOR_MIN_COVERAGE,
  eligible,
  HYBRID_VECTOR_CANDIDATE,
  evidenceOf,
  passes,
  type GateThresholds,
} from './gate.ts';
import { statesAskedValue, VALUE_MODES } from './asked-value.ts';
import { fieldBonuses, TITLE_NAMED_WEIGHT, titleNamedBonuses } from './fields.ts';
import { secondaryPenalties } from './secondary.ts';
import { effectiveMode, sqlFilters } from './search.ts';
import { DEFAULT_CONFIDENCE } from '../config/defaults.ts';

export { search, type SearchHit, type SearchInput, type SearchOutput } from './search.ts';
export {
  evidenceOf,
  DEFAULT_CITATION_FLOOR,
  DEFAULT_HYBRID_MIN_COVERAGE,
  DEFAULT_HYBRID_THRESHOLD,
  DEFAULT_LEXICAL_THRESHOLD,
  DEFAULT_VECTOR_MIN_COVERAGE,
  type GateThresholds,
} from './gate.ts';

export interface RetrievalOptions {
  /** Minimum cosine similarity of the best chunk in vector mode (CHAT_EVIDENCE_THRESHOLD). */
  evidenceThreshold: number;
  /** Minimum coverage of the best chunk in lexical mode (CHAT_LEXICAL_THRESHOLD). */
  lexicalThreshold?: number;
  /** Minimum mean of cosine and coverage of the best chunk in hybrid mode (CHAT_HYBRID_THRESHOLD). */
  hybridThreshold?: number;
  /** In hybrid mode, the least coverage of a chunk that passes the gate (CHAT_HYBRID_MIN_COVERAGE, 0…1). */
  hybridMinCoverage?: number;
  /** In vector mode, the least coverage of a chunk that passes the gate (CHAT_VECTOR_MIN_COVERAGE, 0…1). */
  vectorMinCoverage?: number;
  /**
   * Once the best chunk passed the gate, other chunks are cited when their evidence reaches this share of
   * the threshold (CHAT_CITATION_FLOOR, 0…1; 1 = every cited chunk must pass the gate itself).
   */
  citationFloor?: number;
  /** Chunks cited at most, after the gate and one per section (default 5). */
  matchCount?: number;
  /** Mode when the request has an embedding. Default hybrid; without an embedding it is always lexical. */
  mode?: RetrievalMode;
  filters?: SearchFilters;
  /** Best-chunk evidence from which confidence is high / medium (CHAT_CONFIDENCE_HIGH / _MEDIUM). */
  confidence?: { high: number; medium: number };
  /**
   * Order bonus of a candidate whose page title the question names (default TITLE_NAMED_WEIGHT, fields.ts);
   * not a setting: the replay sweeps (scripts/eval/site-sweep.ts) pass other values to measure it.
   */
  titleNamedWeight?: number;
  /**
   * In hybrid mode, only a chunk among the vector search's candidates carries the gate
   * (CHAT_HYBRID_VECTOR_CANDIDATE; default HYBRID_VECTOR_CANDIDATE, off, gate.ts).
   */
  hybridVectorCandidate?: boolean;
}

export interface RetrieveInput {
  claims: JwtClaims;
  question: string;
  embedding?: number[];
  /**
   * A follow-up's context (server/chat/context.ts): borrowed terms searched at half weight and the earlier
   * answer's documents and sections preferred, by `search_chunks` under `filters.context`.
   */
  context?: {
    terms: string;
    documents: string[];
    thread?: string[];
    sections: string[];
    points_back?: boolean;
    own_required?: boolean;
  };
}

/**
 * `chunks`: best first, each with `similarity` = its evidence in `mode` (cosine in vector mode).
 * `siblings`: the other candidates of the sections in `chunks` (one chunk per section is cited; a long
 * section's option reference can hold its description in one chunk and its "**Default:**" line in the next),
 * in candidate order; extraction reads them only for the value a question asks and the block it points at
 * (server/chat/extract.ts).
 * `evidence`: the best chunk's evidence, what the gate compared with `threshold`.
 */
export type Retrieval =
  | {
      kind: 'answer';
      mode: RetrievalMode;
      chunks: ChunkMatch[];
      siblings?: ChunkMatch[];
      confidence: Confidence;
      evidence: number;
      threshold: number;
    }
  | { kind: 'refuse'; mode: RetrievalMode; evidence: number; threshold: number; nearest: ChunkMatch[] };

/** Pages a refusal may name as the closest (server/chat/closest.ts decides whether it does). */
const NEAREST_PAGES = 3;

/**
 * Candidates fetched before the gate, as a multiple of `matchCount`. The gate and the citations use the
 * best evidence among them, so the pool must be deep enough that the right chunk is in it even when the
 * fusion ranked it low: on the SQuAD eval (1,000 questions) the right paragraph is among the first 15
 * fused rows for 95.4 % of the questions and among the first 30 for 98.2 %.
 */
const FETCH_FACTOR = 6;

export async function retrieve(store: ChatStore, input: RetrieveInput, options: RetrievalOptions): Promise<Retrieval> {
  const { mode, rows } = await gatherEvidence(store, input, options);
  return decide(rows, mode, options, input.question);
}

/** A chunk's document section: retrieval cites one chunk per section, and extraction reads the rest of it. */
export function sectionKey(chunk: Pick<ChunkMatch, 'document_id' | 'meta'>): string {
  return `${chunk.document_id}\u0000${chunk.meta.section ?? chunk.meta.anchor ?? ''}`;
}

/**
 * The gate and the citable chunks for candidates already fetched: what `retrieve` does after the search.
 * Pure, so the console's "try a question" shows exactly the decision a visitor's question gets.
 */
export function decide(
  rows: SearchChunkRow[],
  mode: RetrievalMode,
  options: RetrievalOptions,
  question?: string,
): Retrieval {
  const threshold = thresholdsOf(options)[mode];
  const scored = orderScores(rows, mode, question, options);
  // The gate reads only chunks that may carry it (in hybrid and vector mode: enough coverage, gate.ts); a
  // refusal reports the best of those, so one refused for lack of the question's words lists no closest pages.
  const minCoverage =
    mode === 'vector'
      ? (options.vectorMinCoverage ?? DEFAULT_VECTOR_MIN_COVERAGE)
      : (options.hybridMinCoverage ?? DEFAULT_HYBRID_MIN_COVERAGE);
  // In hybrid mode, only a chunk the vector search found too (gate.ts, HYBRID_VECTOR_CANDIDATE); when the
  // vector list is empty (no chunk embedded yet), the rule has nothing to read and is left out.
  const vectorCandidate =
    mode === 'hybrid' &&
    (options.hybridVectorCandidate ?? HYBRID_VECTOR_CANDIDATE) &&
    rows.some((r) => r.vector_rank != null);
  const best = Math.max(
    0,
    ...scored.filter((s) => eligible(s.row, mode, minCoverage, vectorCandidate)).map((s) => s.evidence),
  );
  if (!passes(best, threshold))
    return { kind: 'refuse', mode, evidence: best, threshold, nearest: nearestPages(scored) };
  // A question asking for a point in time, a count or a version, when no candidate states one beside its
  // most specific words (asked-value.ts): refused as one the knowledge base does not hold, with no closest
  // pages ("When was Railway founded?" matched "projects can be found on your dashboard").
  if (
    VALUE_MODES.includes(mode) &&
    !statesAskedValue(
      question,
      rows.map((r) => r.content),
    )
  )
    return { kind: 'refuse', mode, evidence: 0, threshold, nearest: [] };

  const floor = threshold * (options.citationFloor ?? DEFAULT_CITATION_FLOOR);
  const seen = new Set<string>();
  const chunks: ChunkMatch[] = [];
  // In order of evidence with the title and section bonus (fields.ts); each cited on its own evidence.
  for (const { row, evidence } of scored.sort((a, b) => b.order - a.order)) {
    if (!passes(evidence, floor)) continue;
    // Two chunks of one section cite the same place: keep the better one.
    const section = sectionKey(row);
    if (seen.has(section)) continue;
    seen.add(section);
    chunks.push(toChunkMatch(row, evidence));
    if (chunks.length >= (options.matchCount ?? 5)) break;
  }
  const kept = new Set(chunks.map((c) => c.chunk_id));
  const siblings = scored
    .filter(({ row }) => !kept.has(row.chunk_id) && seen.has(sectionKey(row)))
    .map(({ row, evidence }) => toChunkMatch(row, evidence));
  return {
    kind: 'answer',
    mode,
    chunks,
    siblings,
    confidence: confidenceOf(best, options.confidence),
    evidence: best,
    threshold,
  };
}

/**
 * Each candidate's evidence (what the gate and the citation floor read) and its order score: the evidence plus
 * the title and section bonus and the bonus of a page the question names (fields.ts), less the discount of a
 * comparison, migration or announcement page (secondary.ts). In the rows' order, not sorted.
 */
export function orderScores(
  rows: SearchChunkRow[],
  mode: RetrievalMode,
  question: string | undefined,
  options: Pick<RetrievalOptions, 'titleNamedWeight'> = {},
): { row: SearchChunkRow; evidence: number; order: number }[] {
  const bonus = fieldBonuses(question, rows);
  // The page the question names by its title comes before pages that mention what is asked (fields.ts).
  const named = titleNamedBonuses(question, rows, options.titleNamedWeight ?? TITLE_NAMED_WEIGHT);
  // Comparison, migration and announcement pages give way to the page about what is asked (secondary.ts).
  const penalty = secondaryPenalties(question, rows);
  return rows.map((row, i) => ({
    row,
    evidence: evidenceOf(row, mode),
    order: evidenceOf(row, mode) + bonus[i]! + named[i]! - penalty[i]!,
  }));
}

/** The best candidate of each document, best first, at most NEAREST_PAGES of them. */
function nearestPages(scored: { row: SearchChunkRow; evidence: number }[]): ChunkMatch[] {
  const seen = new Set<string>();
  const out: ChunkMatch[] = [];
  for (const { row, evidence } of [...scored].sort((a, b) => b.evidence - a.evidence)) {
    if (evidence <= 0 || seen.has(row.document_id)) continue;
    seen.add(row.document_id);
    out.push(toChunkMatch(row, evidence));
    if (out.length >= NEAREST_PAGES) break;
  }
  return out;
}

/** The search behind `retrieve`, before the gate: what `npm run calibrate` sweeps thresholds over. */
export async function gatherEvidence(
  store: ChatStore,
  input: RetrieveInput,
  options: Pick<RetrievalOptions, 'matchCount' | 'mode' | 'filters'>,
): Promise<{ mode: RetrievalMode; rows: SearchChunkRow[] }> {
  const embedding = input.embedding ?? null;
  const mode = effectiveMode(options.mode, input.question.trim() !== '', embedding !== null);
  const rows = await store.searchChunks(input.claims, {
    embedding,
    text: input.question,
    count: (options.matchCount ?? 5) * FETCH_FACTOR,
    mode,
    filters: { ...sqlFilters(options.filters), ...(input.context ? { context: input.context } : {}) },
  });
  return { mode, rows };
}

export function thresholdsOf(
  options: Pick<RetrievalOptions, 'evidenceThreshold' | 'lexicalThreshold' | 'hybridThreshold'>,
): GateThresholds {
  return {
    vector: options.evidenceThreshold,
    lexical: options.lexicalThreshold ?? DEFAULT_LEXICAL_THRESHOLD,
    hybrid: options.hybridThreshold ?? DEFAULT_HYBRID_THRESHOLD,
  };
}

/** high / medium from configurable evidence levels; anything that passed the gate below them is low. */
export function confidenceOf(best: number, levels: { high: number; medium: number } = DEFAULT_CONFIDENCE): Confidence {
  if (best >= levels.high) return 'high';
  if (best >= levels.medium) return 'medium';
  return 'low';
}

function toChunkMatch(row: SearchChunkRow, evidence: number): ChunkMatch {
  return {
    chunk_id: row.chunk_id,
    content: row.content,
    meta: row.meta,
    document_id: row.document_id,
    document_title: row.document_title,
    document_url: row.document_url,
    similarity: evidence,
  };
}
