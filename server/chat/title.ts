/** Session titles: deterministic, no model. */
const MAX_TITLE_CHARS = 80;
// A title cut after "in" or "and" reads as broken; trim such words from the end before the ellipsis.
const DANGLING = new Set([
  'a',
  'an',
  'and',
  'as',
  'at',
  'by',
  'for',
  'from',
  'in',
  'of',
  'on',
  'or',
  'the',
  'to',
  'with',
]);

/**
 * The first 80 characters of the first message, cut at the last word boundary, with "…" when cut.
 * @example sessionTitle('Refund?') // 'Refund?'
 */
export function sessionTitle(message: string): string {
  const text = message.replace(/\s+/g, ' ').trim();
  if (text.length <= MAX_TITLE_CHARS) return text;
  const words = text.slice(0, MAX_TITLE_CHARS + 1).split(' ');
  words.pop(); // the word the limit cut through (or the one just past it)
  while (words.length > 1 && DANGLING.has(words.at(-1)!.toLowerCase())) words.pop();
  const head = words.join(' ').replace(/[\s,;:.!?–—-]+$/, '');
  return `${head || text.slice(0, MAX_TITLE_CHARS)}…`;
}
