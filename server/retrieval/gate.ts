/**
 * The evidence gate: one number per chunk, "how well does this chunk support an answer to the question",
 * computed the same way in every mode from the signals `search_chunks` returns, and one threshold per mode.
 *
 * - vector:  evidence = cosine similarity of question and chunk embeddings (CHAT_EVIDENCE_THRESHOLD, the
 *            first gate this project had, before the lexical and hybrid modes).
 * - lexical: evidence = coverage, the IDF-weighted share of the question's distinct lexemes (English
 *            stemming, stopwords removed) that the chunk contains. A word the knowledge base has never
 *            seen has the highest IDF, so a question about something that is not there covers little.
 * - hybrid:  evidence = the mean of cosine and coverage: a chunk must both be close in embedding space
 *            and contain the question's rare words (each alone lets through different false positives).
 *
 * The question is answered when the best candidate's evidence (the maximum over every candidate, whatever
 * its fusion rank) reaches the mode's threshold; in hybrid and vector mode only a candidate whose coverage also
 * reaches the mode's least coverage (DEFAULT_HYBRID_MIN_COVERAGE, DEFAULT_VECTOR_MIN_COVERAGE) counts, so a
 * high cosine cannot carry a chunk that lacks the question's rare words past the gate; in hybrid and keyword mode a
 * question asking for a point in time, a count or a version also needs a candidate stating one (asked-value.ts);
 * an opt-in (CHAT_HYBRID_VECTOR_CANDIDATE) lets only a chunk the vector search found too carry the hybrid gate.
 * The gate answers "does the knowledge base hold this?";
 * which sources to show is a second, softer question: chunks are cited in order of evidence while their
 * evidence reaches the citation floor, a share (DEFAULT_CITATION_FLOOR) of the threshold, so a relevant
 * paragraph just under the gate is not hidden behind the one that passed it.
 */
import type { RetrievalMode } from '../../protocol/index.ts';
import type { SearchChunkRow } from '../store/types.ts';

export interface GateThresholds {
  /** Cosine similarity (CHAT_EVIDENCE_THRESHOLD). */
  vector: number;
  /** Coverage (CHAT_LEXICAL_THRESHOLD). */
  lexical: number;
  /** Mean of cosine and coverage (CHAT_HYBRID_THRESHOLD). */
  hybrid: number;
}

/**
 * Lexical: calibrated with `npm run calibrate` on SQuAD 2.0 dev (20 articles in the knowledge base, 5 out) and
 * the test-double embedder; see docs/retrieval-and-answers.md ("Retrieval and the evidence gate") for the
 * trade-off table. Hybrid: calibrated there at 0.39, then chosen together with DEFAULT_HYBRID_MIN_COVERAGE
 * on the three docs sites (below).
 */
export const DEFAULT_LEXICAL_THRESHOLD = 0.65;
export const DEFAULT_HYBRID_THRESHOLD = 0.37;

/**
 * The least coverage a chunk must have to pass the hybrid gate, whatever its cosine (CHAT_HYBRID_MIN_COVERAGE):
 * the mean lets a high cosine make up for rare question words the chunk lacks, and with an embedder whose
 * cosine says little (the test double) that is how off-topic questions got through ("What is the price of a
 * Vite enterprise license?": cosine 0.536, coverage 0.266, mean 0.401). With the floor, the mean can be a
 * little lower, which answers in-KB questions whose cosine happened to be low.
 *
 * Threshold and floor chosen together on the tuning sets of Railway, Vite and MkDocs Material (`npx tsx
 * scripts/eval/gate-sweep.ts <signals.json> hybrid --base 0.39`), with coverage weighing a question word the
 * knowledge base never uses like its rarest word (migration 20261128030000; before it, on the Workers tests'
 * three-chunk knowledge base "How do refunds work?" covered 0.32 of the refunds chunk, "work" being in no
 * chunk, and the floor refused it): the most off-topic questions refused with no site's in-KB refusals
 * higher than at 0.39 without a floor. 0.37 / 0.35, against 0.39 / none: off-topic refused Railway 12 → 12 of
 * 15, Vite 10 → 11 of 14, MkDocs 11 → 13 of 14; in-KB refused 7 → 5 of 104, 1 → 0 of 38, 1 → 0 of 40; the demo
 * 0 of 28 / 8 of 8 both. Chosen on two sites and measured on the third, in-KB refusals fall on every site left
 * out; off-topic refused rises on Vite and MkDocs and falls by one on Railway (docs/retrieval-and-answers.md,
 * "The gate: a coverage floor").
 */
export const DEFAULT_HYBRID_MIN_COVERAGE = 0.35;

/**
 * The least coverage a chunk must have to pass the vector gate, whatever its cosine (CHAT_VECTOR_MIN_COVERAGE;
 * vector rows carry a coverage since migration 20261128090000). With the test double a page that names the site
 * throughout is close to every question naming it: "Can Material for MkDocs file my taxes?" had cosine 0.80
 * with "Welcome to Material for MkDocs.", and half the three sites' off-topic questions passed the vector gate.
 * Off by default (0). Chosen with the cosine threshold on the tuning sets of the three sites (`npx tsx
 * scripts/eval/gate-sweep.ts <signals.json> vector --base 0.35`), the pair 0.23 / 0.3 refuses more off-topic
 * questions (Railway 7 → 12 of 15, Vite 7 → 14 of 14, MkDocs 7 → 12 of 14) and fewer in-KB ones (3 → 2 of 104,
 * 4 → 0 of 38, 3 → 1 of 40); but it moves CHAT_EVIDENCE_THRESHOLD, whose default of 0.35 is part of the
 * configuration contract and was set for MiniLM, from cosines of the test-double embedder. At 0.35 the floor
 * alone, chosen leaving one site out (`… vector --base 0.35 --floor-only`), is 0 in two folds of three. So
 * CHAT_EVIDENCE_THRESHOLD=0.23 CHAT_VECTOR_MIN_COVERAGE=0.3 is an opt-in until it is measured with the real model
 * (docs/retrieval-and-answers.md, "Round 5: the gate on three sites").
 */
export const DEFAULT_VECTOR_MIN_COVERAGE = 0;

/**
 * Share of the mode's threshold a chunk's own evidence must reach to be cited once the best chunk passed
 * (CHAT_CITATION_FLOOR). A share rather than an absolute number so that it follows the threshold of every
 * mode and every model's calibration. 0.75: on the SQuAD eval (test double) it puts the right paragraph
 * among the citations for 2–3 % more questions than 1.0 (cite only what passes) while still dropping the
 * unrelated candidates; lower values add little (see docs/retrieval-and-answers.md).
 */
export const DEFAULT_CITATION_FLOOR = 0.75;

/**
 * In hybrid mode, whether a chunk must also be among the vector search's candidates (the 50 nearest chunks
 * by embedding, `candidate_count` of `search_chunks`: its `vector_rank` is set) to carry the gate
 * (CHAT_HYBRID_VECTOR_CANDIDATE). Hybrid evidence is the mean of cosine and coverage, so a chunk the
 * full-text search alone found, on the question's words in another sense, can pass on its coverage: "Can
 * Vite renew my passport?" on "Vite is powering a renewed innovation race" (coverage 0.52, evidence 0.44),
 * "Is there a dark mode for the Railway dashboard?" on an SSL troubleshooting page. On the tuning sets of the
 * three docs sites (test double) no chunk that carried an off-topic question was among the 50 nearest, and
 * the rule refuses every one of them; a rank, not a cosine, because the cosine of the chunk carrying an in-KB
 * question ranges as widely (0.09 … 0.84) and no cosine floor separates them. **Off by default**: it also
 * refuses three in-KB Railway questions, whose answering chunk the test double does not put among the 50
 * nearest of Railway's 2,259 chunks, so chosen on Vite and MkDocs it does not hold on Railway (leave one site
 * out fails), on the held-out sets it refuses one off-topic question more and one in-KB question more, and it
 * refuses one later turn of Vite's tuning conversations that its complete rewrite answers; an
 * opt-in until it is measured with a semantic embedder (docs/retrieval-and-answers.md, "The gate, round 10").
 */
export const HYBRID_VECTOR_CANDIDATE = false;

/** pgvector stores float4: a similarity meant to equal the threshold may come out a hair below it. */
const FLOAT4_TOLERANCE = 1e-6;

/** The evidence of one chunk in `mode` (0 when a signal is missing: no text match, no embedding). */
export function evidenceOf(row: Pick<SearchChunkRow, 'cosine' | 'coverage'>, mode: RetrievalMode): number {
  const cosine = row.cosine ?? 0;
  const coverage = row.coverage ?? 0;
  if (mode === 'vector') return cosine;
  if (mode === 'lexical') return coverage;
  return (cosine + coverage) / 2;
}

/**
 * Whether a chunk may carry the gate in `mode`: in hybrid and vector mode only with coverage at least
 * `minCoverage` (the mode's own least coverage); in lexical mode always (its evidence is the coverage itself).
 * A missing coverage counts as 0: `search_chunks` returns none for a chunk holding none of the question's words.
 * With `vectorCandidate` (hybrid mode, HYBRID_VECTOR_CANDIDATE), only a chunk among the vector search's
 * candidates.
 */
export function eligible(
  row: Pick<SearchChunkRow, 'coverage'> & Partial<Pick<SearchChunkRow, 'vector_rank'>>,
  mode: RetrievalMode,
  minCoverage: number,
  vectorCandidate = false,
): boolean {
  if (mode === 'lexical') return true;
  if (vectorCandidate && mode === 'hybrid' && row.vector_rank == null) return false;
  return passes(row.coverage ?? 0, minCoverage);
}

export function passes(evidence: number, threshold: number): boolean {
  return evidence >= threshold - FLOAT4_TOLERANCE;
}
