/**
 * Content words for extraction: what a question and a quotable unit (units.ts) are compared on.
 */
const STOPWORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
him his how i if in into is it its itself just me more most my no nor not now of off on once only or other our
ours out over own same she should so some such than that the their theirs them then there these they this those
through to too under until up very was we were what when where which while who whom why will with would you your
yours tell please`.split(/\s+/),
);

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;

/** Lower-cased words without stopwords; light suffix folding so "refunds" meets "refund". */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).filter((w) => !STOPWORDS.has(w)).map(stem);
}

/**
 * Light suffix folding, enough for question words to meet documentation words ("supported" and "supports",
 * "browsers" and "browser", "refunds" and "refund"); not a full stemmer, and it only needs to agree with itself.
 */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  // "retried" meets "retry" ("If my command fails, does Railway retry it?" — "it will not be retried").
  if (word.length > 4 && word.endsWith('ied')) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed') && !word.endsWith('eed')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}
