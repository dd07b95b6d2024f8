/**
 * Pages that tell about the product relative to something else — a comparison with another product ("Railway
 * vs Vercel"), a migration guide ("Migrate from Heroku"), a release announcement ("Vite 6.0 is out!",
 * "Announcing Vite 2.0"), a changelog — mention every feature in passing, in the words a visitor uses, and so
 * often come before the page about the feature itself ("Do I pay extra for every member I add to my
 * workspace?" answered from Railway's Render comparison, "you end up paying extra for … seats", when the
 * workspace page says "Adding members to the workspace does not incur any additional seat cost").
 *
 * Such a page is recognised by its title (English keywords, as answer-type.ts reads questions) and gives way,
 * in the order of candidates only, to a page of about the same evidence — unless the question names the page:
 * a word of its title that the other pages of its kind and most candidates lack ("heroku", not the product's
 * own name that every comparison title and most passages carry).
 */
import { contentWords } from '../chat/text.ts';
import type { SearchChunkRow } from '../store/types.ts';

/**
 * Evidence taken off a comparison, migration, announcement or changelog page for ordering (the gate and the
 * citation floor read the evidence as it was). Chosen leaving one site out on the tuning sets (fact in
 * answer, `scripts/eval/site-sweep.ts … answers` with the value swept 0…0.15): docs/retrieval-and-answers.md,
 * "Round 6".
 */
export const SECONDARY_PAGE_PENALTY = 0.05;

const SECONDARY_TITLE =
  /\bvs\.?(?=\s|$)|\bversus\b|\bcompar(?:e|ed|ing|ison)\b|\bmigrat(?:e|es|ing|ion)\b|\bchangelog\b|\brelease notes\b|\bannouncing\b|\bis out\b/i;

/** Is the page a comparison, a migration guide, a release announcement or a changelog, by its title? */
export function isSecondary(title: string | null | undefined): boolean {
  return SECONDARY_TITLE.test(title ?? '');
}

type Row = Pick<SearchChunkRow, 'document_id' | 'document_title' | 'meta' | 'content'>;

/** The order discount of every row for `question`: SECONDARY_PAGE_PENALTY or 0. */
export function secondaryPenalties(question: string | undefined, rows: Row[]): number[] {
  const flagged = rows.map((row) => isSecondary(row.document_title));
  // Most questions meet no such page: nothing more is read.
  if (!flagged.includes(true)) return rows.map(() => 0);
  const asked = new Set(contentWords(question ?? ''));
  const titles = new Map<string, Set<string>>();
  const secondary = new Map<string, Set<string>>();
  for (const [i, row] of rows.entries()) {
    const words = new Set(contentWords(row.document_title ?? ''));
    titles.set(row.document_id, words);
    if (flagged[i]) secondary.set(row.document_id, words);
  }
  // A word common to the titles of its kind ("Railway vs …", "Vite 6.0 is out!") or to a third of the
  // candidates' passages is the product's name, not the page's subject. The titles are checked first; the
  // passages, only for a word that survives them (reading every passage's words costs milliseconds).
  const family = secondary.size >= 2 ? secondary : titles;
  const inFamily = (w: string) => [...family.values()].filter((t) => t.has(w)).length * 2 > family.size;
  let passages: Set<string>[] | undefined;
  const inPassages = (w: string) => {
    passages ??= rows.map((row) => new Set(contentWords(`${row.meta?.section ?? ''} ${row.content ?? ''}`)));
    return passages.filter((p) => p.has(w)).length * 3 >= passages.length;
  };
  const named = new Map<string, boolean>();
  for (const [id, words] of secondary)
    named.set(
      id,
      [...words].some((w) => asked.has(w) && !inFamily(w) && !inPassages(w)),
    );
  return rows.map((row, i) => (flagged[i] && !named.get(row.document_id) ? SECONDARY_PAGE_PENALTY : 0));
}
