/**
 * Small text helpers for extraction: content words of a question, sentence units of a Markdown chunk.
 * Intl.Segmenter is in every runtime we target (Node, workerd, browsers), so no tokenizer dependency.
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

function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/**
 * The sentences of a Markdown chunk in reading order, verbatim. Headings, code fences and table rows are not
 * answer material (the heading is already the citation's section); list items count as sentences.
 */
export function sentences(markdown: string): string[] {
  const out: string[] = [];
  let inFence = false;
  for (const block of markdown.split(/\n{2,}/)) {
    const lines: string[] = [];
    for (const line of block.split('\n')) {
      if (/^\s*(```|~~~)/.test(line)) {
        inFence = !inFence;
        continue;
      }
      if (inFence || /^\s*#{1,6}\s/.test(line) || /^\s*\|/.test(line)) continue;
      // A list item or a hard-broken line is its own unit; continuation lines join the previous one.
      if (/^\s*([-*+]|\d+[.)])\s+/.test(line) || lines.length === 0) lines.push(line.trim());
      else lines[lines.length - 1] += ` ${line.trim()}`;
    }
    for (const line of lines) {
      for (const { segment } of segmenter.segment(line)) {
        const sentence = segment.trim();
        if (contentWords(sentence).length > 0) out.push(sentence);
      }
    }
  }
  return out;
}
