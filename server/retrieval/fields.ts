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
 * (docs/retrieval-and-answers.md, "Three sites"). A share of words cannot tell the page *about* what is asked
 * from one that mentions it in its title among others; the page the question names in full gets
 * TITLE_NAMED_WEIGHT on top of this (below, round 9a).
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

/**
 * Evidence added, for ordering only, to a candidate whose page the question names: every content word of its
 * title is among the question's ("How long are logs kept?" names the page "Logs"; "What does `server.port`
 * set?" names neither "Server Options" nor "Vite 3.0 is out!"). DocSearch ranks a hit in the page title above
 * one in a heading or body; this is that tier, asked of the whole title, so a long guide title that shares one
 * word with the question is not lifted. Like FIELD_WEIGHT, for the order only: the gate, the citation floor
 * and the cited similarity read the evidence as it was. Swept 0…0.3 on the tuning sets of three sites, hybrid
 * and keyword, leaving one site out (`npx tsx scripts/eval/site-sweep.ts <signals> titled hybrid|lexical`):
 * every fold's choice (0.02…0.15) left the third site's fact in answer equal or higher (one, keyword at 0.02,
 * cost Railway one right page first); 0.06…0.15 is a plateau where no site loses a fact or a right page first
 * (Railway hybrid right page first 76.9 → 80.8…81.7 %); at 0.2 Railway loses two facts. 0.06, the low end,
 * has Railway's best hybrid fact (63.5 → 64.4 %; keyword 42.3 → 44.2 %) and the best fact-when-cited on the
 * plateau (docs/retrieval-and-answers.md, "Round 9a").
 */
export const TITLE_NAMED_WEIGHT = 0.06;

type TitledRow = Pick<SearchChunkRow, 'document_title' | 'document_id'>;

/**
 * Words in the titles of more than half of the candidate pages (at least two of them): the site's or the
 * product's name ("Railway" in "Railway vs Render", "Railway Metal"…; "Vite" on the Vite docs), which a question
 * about one page need not repeat and which names no page. Counted per page, not per chunk, so a page with many
 * candidate chunks does not make its own title words common.
 */
export function commonTitleWords(rows: TitledRow[]): Set<string> {
  const pages = new Map<string, Set<string>>();
  for (const row of rows)
    if (!pages.has(row.document_id)) pages.set(row.document_id, new Set(contentWords(row.document_title ?? '')));
  const count = new Map<string, number>();
  for (const words of pages.values()) for (const w of words) count.set(w, (count.get(w) ?? 0) + 1);
  const common = new Set<string>();
  for (const [w, n] of count) if (n >= 2 && n * 2 > pages.size) common.add(w);
  return common;
}

/**
 * Does the question name the page titled `title`? True when every content word of the title, less the
 * `common` ones (commonTitleWords), is among the question's content words; a title with no such word (empty,
 * only stopwords, only the site's name) is named by no question.
 */
export function namesTitle(question: Set<string>, title: string | null | undefined, common?: Set<string>): boolean {
  const words = contentWords(title ?? '').filter((w) => !common?.has(w));
  return words.length > 0 && words.every((w) => question.has(w));
}

/** The order bonus of every row for `question`: `weight` when the question names its page, else 0. */
export function titleNamedBonuses(
  question: string | undefined,
  rows: TitledRow[],
  weight: number = TITLE_NAMED_WEIGHT,
): number[] {
  const words = new Set(contentWords(question ?? ''));
  if (words.size === 0 || weight === 0) return rows.map(() => 0);
  const common = commonTitleWords(rows);
  return rows.map((row) => (namesTitle(words, row.document_title, common) ? weight : 0));
}
