/**
 * The page title and section headings as an order signal, as documentation search ranks them (DocSearch:
 * a match in the page title above one in a heading above one in body text): among candidates whose evidence
 * is close, the one whose title or headings name what the question asks is the page about it, the others
 * mention it in passing ("How long are logs kept?" belongs on the page titled "Logs", not under a pricing
 * table that lists log retention among twenty rows; "What port does the dev server use?" on "Server
 * Options › server.port", not on a release announcement or a migration guide that mentions the port).
 *
 * Words are compared as typed, folded only for plurals and -ing/-ed (chat/text.ts): "log in" does not meet
 * "Logging" here, although English stemming makes them one lexeme in full-text search.
 */
import { contentWords } from '../chat/text.ts';
import type { SearchChunkRow } from '../store/types.ts';

/**
 * Tiered weights as documentation search ranks (DocSearch: page title above heading above body): evidence
 * added, at most, for the question's content words in the page title / in the headings below it. Measured
 * per site with scripts/eval/site-sweep.ts; not in use (see FIELD_WEIGHT).
 */
export interface FieldWeights {
  title: number;
  heading: number;
  /** Question words weighted by their rarity among the candidates' titles and headings. */
  idf?: boolean;
}

/**
 * Evidence added, at most, to a candidate whose title and section path hold every content word of the
 * question, for ordering only (the gate and the citation floor read the evidence as it was). Measured on
 * the Railway tuning set with the page title in coverage (right page first / citation precision / fact
 * when the page is cited): 0 → 76.9 / 79.8 / 76.5 %, 0.05 → 77.9 / 80.0 / 76.5 %, 0.1 → 77.9 / 79.8 /
 * 75.6 %; demo-kb and SQuAD (300 + 300 questions) unchanged. The title-above-heading weights (FieldWeights)
 * were tried on three sites and not kept: no choice made on two sites helped the third
 * (docs/retrieval-and-answers.md, "Three sites").
 */
export const FIELD_WEIGHT = 0.05;

/** Share of the question's content words found in `text`. */
export function shareIn(question: Set<string>, text: string): number {
  if (question.size === 0) return 0;
  const fields = new Set(contentWords(text));
  let found = 0;
  for (const word of question) if (fields.has(word)) found++;
  return found / question.size;
}

/** Share of the question's content words found in the candidate's page title or section path. */
export function fieldMatch(question: Set<string>, row: Pick<SearchChunkRow, 'document_title' | 'meta'>): number {
  return shareIn(question, `${row.document_title ?? ''} ${row.meta.section ?? ''}`);
}

/**
 * Each question word weighs by how few candidate pages carry it in their title and headings (the inverse
 * document frequency among the candidates): a word in every title ("Vite" on the Vite docs, the product's
 * name) tells no page apart, a word in one page's title names that page.
 */
function fieldWeightsOf(words: Set<string>, rows: Pick<SearchChunkRow, 'document_title' | 'meta' | 'document_id'>[]) {
  const pages = new Map<string, Set<string>>();
  for (const row of rows) {
    const seen = pages.get(row.document_id) ?? new Set<string>();
    for (const w of contentWords(`${row.document_title ?? ''} ${row.meta.section ?? ''}`)) seen.add(w);
    pages.set(row.document_id, seen);
  }
  const n = pages.size;
  const weight = new Map<string, number>();
  for (const w of words) {
    const df = [...pages.values()].filter((p) => p.has(w)).length;
    weight.set(w, Math.log(1 + (n + 1) / (df + 0.5)));
  }
  return weight;
}

function weightedShare(weight: Map<string, number>, text: string): number {
  const total = [...weight.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return 0;
  const fields = new Set(contentWords(text));
  let found = 0;
  for (const [w, x] of weight) if (fields.has(w)) found += x;
  return found / total;
}

/** The section path below the page's own top heading (which repeats the title): the headings proper. */
function headingsOf(row: Pick<SearchChunkRow, 'meta'>): string {
  return (row.meta.section ?? '').split(' › ').slice(1).join(' ');
}

/** The order bonus of every row for `question` (0 everywhere without a question). */
export function fieldBonuses(
  question: string | undefined,
  rows: Pick<SearchChunkRow, 'document_title' | 'meta' | 'document_id'>[],
  weights?: FieldWeights,
): number[] {
  const words = new Set(contentWords(question ?? ''));
  if (!weights) return rows.map((row) => FIELD_WEIGHT * fieldMatch(words, row));
  if (weights.idf) {
    const weight = fieldWeightsOf(words, rows);
    return rows.map(
      (row) =>
        weights.title * weightedShare(weight, row.document_title ?? '') +
        weights.heading * weightedShare(weight, headingsOf(row)),
    );
  }
  return rows.map(
    (row) =>
      weights.title * shareIn(words, row.document_title ?? '') +
      weights.heading * shareIn(words, row.meta.section ?? ''),
  );
}
