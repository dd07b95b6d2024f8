/**
 * What a generated answer must pass before the widget shows it. Pure.
 *
 * The model's text is as hostile as the passages it copies from: it may cite passages that do not exist, echo
 * HTML, or say it cannot answer. Here: invented `[n]` markers are dropped, a half-written marker at the end of
 * a stream is held back, and "I cannot answer" is recognised so the widget shows the extractive answer
 * instead. HTML is left to the widget's Markdown renderer + DOMPurify (markdown/render.ts).
 */
import { CANNOT_ANSWER } from './prompt.ts';

/** `[1]`, `[1, 2]`, `[1,2; 3]`, `[ 4 ]`: a citation marker with its list of numbers. */
const MARKER = /(\s?)\[\s*(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\s*\]/g;

/**
 * The text with every number not in `allowed` removed from its marker: `[9]` goes (with the space before
 * it), `[9, 1]` becomes `[1]`. Numbers are kept in the order written, without repeats.
 *
 * @example
 * validateCitations('Refunds take 30 days [1][9]. Or [9, 2].', new Set([1, 2])); // 'Refunds take 30 days [1]. Or [2].'
 */
export function validateCitations(text: string, allowed: ReadonlySet<number>): string {
  return outsideCode(text, (prose) =>
    prose.replace(MARKER, (_marker, space: string, list: string) => {
      const numbers = [...new Set(list.split(/\s*[,;]\s*/).map(Number))].filter((n) => allowed.has(n));
      return numbers.length ? `${space}[${numbers.join(', ')}]` : '';
    }),
  );
}

/** The distinct numbers the text's markers cite (outside code), in the order they first appear. */
export function citationsIn(text: string): number[] {
  const seen = new Set<number>();
  outsideCode(text, (prose) => {
    for (const match of prose.matchAll(MARKER)) for (const n of match[2]!.split(/\s*[,;]\s*/)) seen.add(Number(n));
    return prose;
  });
  return [...seen];
}

/** Fenced blocks (also one still open at the end of a stream) and inline code spans: `items[1]` is not a citation. */
const CODE = /(```[\s\S]*?(?:```|$)|`[^`\n]*`)/;

/** `edit` applied to the text between code blocks and spans; code is kept as written. */
function outsideCode(text: string, edit: (prose: string) => string): string {
  return text
    .split(CODE)
    .map((part, i) => (i % 2 ? part : edit(part)))
    .join('');
}

/**
 * A streamed text so far, minus a citation marker still being written at its end (`… days [`, `[1`, `[1, `),
 * so a partial `[9` never flashes on screen before validation can judge it. The held-back part arrives with
 * the next delta.
 */
export function streamableText(partial: string): string {
  return partial.replace(/\s?\[\s*(?:\d{1,3}\s*(?:[,;]\s*(?:\d{1,3}\s*)?)*)?$/, '');
}

const normalize = (text: string) => text.toLowerCase().replace(/[’`]/g, "'").replace(/\s+/g, ' ');
/** "I cannot answer", "I'm unable to answer", "we can't answer": a first person declining, not "the widget cannot find". */
const REFUSAL =
  /\b(?:i|we) ?(?:can ?not|can't|am unable to|'m unable to|are unable to|am not able to|'m not able to) answer\b/;

/**
 * True when the model declined: it wrote the instruction's fixed sentence (or a first-person "cannot answer"),
 * or nothing but markers, punctuation and spaces. The widget then keeps the extractive answer.
 */
export function isCannotAnswer(text: string): boolean {
  const plain = normalize(text.replace(MARKER, ' '));
  if (!/[\p{L}\p{N}]/u.test(plain)) return true;
  return plain.includes(normalize(CANNOT_ANSWER).slice(0, -1)) || REFUSAL.test(plain);
}
