/**
 * A short section is quoted whole rather than cut. A reference entry or an FAQ answer of a few lines says what
 * the thing is, then the value (the default, the limit, "only on the Pro plan"); the sentence that shares the
 * most words with the question is often the first, and a cut after it drops the line that holds the answer.
 *
 * Chosen leave one site out on the docs-QA tuning sets (docs/retrieval-and-answers.md, "The sentence that holds
 * the value"): bounds of 300…800 characters and 3…5 sentences were replayed; 500 characters and 4 sentences
 * help or hold every site whichever two sites choose them.
 */
import type { Unit } from './units.ts';

/** At most this many characters of prose (the sentences' Markdown) in a section quoted whole. */
export const SHORT_SECTION_CHARS = 500;
/** At most this many sentences (and one block) in a section quoted whole. */
export const SHORT_SECTION_SENTENCES = 4;

/** What the rule reads of a scored unit (extract.ts `Candidate`). */
export interface Quotable {
  unit: Unit;
  score: number;
  /** Index of the unit's chunk in retrieval order. */
  chunk: number;
  /** The words it is scored on. */
  words: Set<string>;
}

/** A lead-in whose block the chunk does not hold ("To solve this:" where the chunk was cut) introduces nothing. */
function dangling(unit: Unit): boolean {
  return unit.kind === 'sentence' && unit.introduces === undefined && /:\s*$/.test(unit.markdown);
}

/**
 * The units of chunk `chunk` in reading order when the chunk is a short section — at most SHORT_SECTION_CHARS of
 * prose in at most SHORT_SECTION_SENTENCES sentences, and at most `maxBlocks` blocks —, else none. Titles (an
 * FAQ entry's bold question) head what follows them and are not quoted.
 */
export function shortSection<T extends Quotable>(candidates: T[], chunk: number, maxBlocks: number): T[] {
  const units = candidates
    .filter((c) => c.chunk === chunk && !c.unit.title && !dangling(c.unit))
    .sort((a, b) => a.unit.index - b.unit.index);
  const sentences = units.filter((c) => c.unit.kind === 'sentence');
  if (units.length - sentences.length > maxBlocks || sentences.length > SHORT_SECTION_SENTENCES) return [];
  const chars = sentences.reduce((n, c) => n + c.unit.markdown.length, 0);
  return chars <= SHORT_SECTION_CHARS ? units : [];
}

/**
 * Quotes the short section `whole` (from shortSection) in `chosen`, the answer so far keyed by chunk and unit.
 * What the answer quoted from other chunks stays while it fits beside the section — a block only when the
 * section has none, sentences while the answer keeps to `maxSentences` — or when it names a word of the
 * question that the section lacks and that is rarer than every word the section matched (`weights`: each
 * question word's weight, rarity among the candidates): "not supported for Stylus" beside a section on `@import`.
 */
export function quoteWhole<T extends Quotable>(
  chosen: Map<string, T>,
  whole: T[],
  own: Set<string>,
  weights: Map<string, number>,
  maxSentences: number,
): void {
  if (whole.length === 0) return;
  const chunk = whole[0]!.chunk;
  const inWhole = (w: string) => whole.some((x) => x.words.has(w));
  const rarest = Math.max(0, ...[...own].filter(inWhole).map((w) => weights.get(w) ?? 0));
  const adds = (c: T) => [...own].some((w) => c.words.has(w) && !inWhole(w) && (weights.get(w) ?? 0) > rarest);
  const wholeSentences = whole.filter((c) => c.unit.kind === 'sentence').length;
  const wholeBlock = whole.some((c) => c.unit.kind !== 'sentence');
  // The other chunks' units, least relevant first: they give way first.
  const others = [...chosen.entries()].filter(([, c]) => c.chunk !== chunk).sort((a, b) => a[1].score - b[1].score);
  let otherSentences = others.filter(([, c]) => c.unit.kind === 'sentence').length;
  for (const [key, c] of others) {
    if (adds(c)) continue;
    if (c.unit.kind !== 'sentence' ? wholeBlock : otherSentences + wholeSentences > maxSentences) {
      chosen.delete(key);
      if (c.unit.kind === 'sentence') otherSentences -= 1;
    }
  }
  // A lead-in ("… use:") whose block gave way would introduce nothing.
  for (const [key, c] of chosen)
    if (
      c.unit.introduces !== undefined &&
      /:\s*$/.test(c.unit.markdown) &&
      !chosen.has(`${c.chunk}:${c.unit.introduces}`)
    )
      chosen.delete(key);
  for (const c of whole) chosen.set(`${c.chunk}:${c.unit.index}`, c);
}
