/**
 * "Closest pages" under a refusal: when the best passage came close to the evidence gate without passing
 * it, the pages it came from are likely where the visitor should look, so the refusal names them — labelled
 * as pages that may not answer the question. Further below the gate they are noise, and an off-topic
 * question must get none: a list of unrelated pages reads like an answer.
 */
import { CLOSEST_PAGES_MAX, type Related, type RetrievalMode } from '../../protocol/index.ts';
import type { Retrieval } from '../retrieval/index.ts';
import { toRelated } from './extract.ts';

/**
 * How far below the threshold (a share of it) a refused question's best evidence may be for its closest
 * pages to be listed, per mode. Measured with the test-double embedder on scripts/eval/qa/*.json
 * (`npx tsx scripts/eval/closest-band.ts --mode <mode> scripts/eval/qa/*.json`, docs/retrieval-and-answers.md, "Closest pages"),
 * in-sample: the widest round band in which no refused off-topic question (`out_of_kb`) comes that close.
 * Hybrid: 1 %. At the gate of 0.37 with the least coverage 0.35 (server/retrieval/gate.ts) the nearest
 * off-topic refusal on demo-kb and Railway ("How do I reset my Netflix password?") is 1.6 % below it (2 of 5
 * in-KB refusals get pages); at 0.39 without the floor it was 4.2 %, and the band 4 %.
 * Vector: at the default gate (0.35, no coverage floor) the nearest off-topic refusal is 12.7 % below it, so 10 %
 * (8 of 11 in-KB refusals get pages). With the opt-in floor (0.23 / 0.3, gate.ts) the nearest off-topic refusal
 * ("How do I export all chat conversations to a CSV file?", demo) is 9.8 % below: that pair would want a
 * band of 5 %, not configurable today. Lexical: an off-topic question ("How many
 * employees does Railway have?") came within 1 % of the gate, above every refused in-KB question, so no
 * band separates them and keyword answers list none.
 */
export const CLOSEST_BAND: Readonly<Record<RetrievalMode, number>> = { hybrid: 0.01, vector: 0.1, lexical: 0 };

/** The closest pages a refusal lists: none unless the best evidence is within the mode's band. */
export function closestPages(
  found: Extract<Retrieval, { kind: 'refuse' }>,
  band: Readonly<Record<RetrievalMode, number>> = CLOSEST_BAND,
): Related[] {
  const share = band[found.mode];
  if (!(share > 0) || found.evidence < found.threshold * (1 - share)) return [];
  return found.nearest.slice(0, CLOSEST_PAGES_MAX).map(toRelated);
}
