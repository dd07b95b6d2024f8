/**
 * The quote from the answering page's best unit, not only from its best-ranked section: once extraction's best
 * unit has chosen the page (its first citation), the page's units are compared again on the question's own
 * words alone, without retrieval's rank discount (`CHUNK_RANK_PENALTY`), and a unit that holds clearly more of
 * them is quoted first. Only units of that page compete, so no other page can outrank it, and the page cited
 * first never changes. Measured in docs/retrieval-and-answers.md, "Round 11".
 */
import { type AnswerType, holdsType } from './answer-type.ts';
import type { Unit } from './units.ts';

/**
 * How much more of the question's words (a share: 1 is all of them, doubled for a unit holding the answer
 * type) a unit of the page must hold than the best unit to be quoted first. Swept on the tuning sets (fact in
 * answer, hybrid; Railway / Vite / MkDocs): 0 → +0 / 0 / +1 with 25 answers changed, 0.1 → +1 / 0 / +1 (16),
 * 0.3 → +1 / 0 / +1 (4), 0.4 → +1 / 0 / 0 (1).
 */
export const PAGE_LIFT_MARGIN = 0.3;

/** What the rule reads of extraction's candidates (extract.ts); `score` is rewritten for the unit lifted. */
export interface PageCandidate {
  unit: Unit;
  /** Index of the unit's chunk in retrieval order. */
  chunk: number;
  /** The unit's scored words (its own, its lead-in's, its heading's when it opens the section). */
  words: Set<string>;
  score: number;
  documentId: string;
}

/**
 * Lifts the unit of the best unit's page that holds more of the question's own words (`own`) than the best
 * unit by `margin`, counting for every unit its section's heading (`headingOf(chunk)`, content words), each
 * word weighted by its rarity among all candidates, the share doubled when the unit holds the answer `type`:
 * it gets just above the best unit's score, so it is quoted first and the best unit still qualifies.
 * Returns the unit lifted, if any.
 */
export function liftWithinPage<C extends PageCandidate>(
  candidates: C[],
  own: Set<string>,
  type: AnswerType | null,
  headingOf: (chunk: number) => string[],
  margin = PAGE_LIFT_MARGIN,
): C | undefined {
  const eligible = candidates.filter((c) => c.score > 0 && !c.unit.title);
  if (eligible.length === 0 || own.size === 0) return undefined;
  const top = eligible.reduce((a, b) => (b.score > a.score ? b : a));
  const weight = new Map<string, number>();
  for (const w of own) {
    const df = candidates.filter((c) => c.words.has(w)).length;
    weight.set(w, Math.log(1 + (candidates.length + 1) / (df + 0.5)));
  }
  const total = [...weight.values()].reduce((a, b) => a + b, 0) || 1;
  const share = (c: C): number => {
    const heading = new Set(headingOf(c.chunk));
    let held = 0;
    let any = false;
    for (const [w, x] of weight)
      if (c.words.has(w) || heading.has(w)) {
        held += x;
        any = true;
      }
    return (held / total) * (type !== null && any && holdsType(c.unit, type, own) ? 2 : 1);
  };
  const topShare = share(top);
  let best: C | undefined;
  let bestShare = topShare + margin;
  for (const c of eligible) {
    if (c === top || c.documentId !== top.documentId) continue;
    const s = share(c);
    if (s > bestShare || (best !== undefined && s === bestShare && c.score > best.score)) [best, bestShare] = [c, s];
  }
  if (best) best.score = top.score * 1.001;
  return best;
}
