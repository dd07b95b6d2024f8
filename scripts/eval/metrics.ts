/** Retrieval and answer metrics for `npm run eval` (pure functions, tested in metrics.test.ts). */

/** The p-th percentile (0…100) by nearest rank; NaN for no values. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** nDCG@k of a ranking against graded relevance judgements (BEIR's definition: gain = grade, log2 discount). */
export function ndcgAt(k: number, ranking: string[], relevant: Map<string, number>): number {
  let dcg = 0;
  ranking.slice(0, k).forEach((id, i) => {
    dcg += (relevant.get(id) ?? 0) / Math.log2(i + 2);
  });
  const ideal = [...relevant.values()].sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((sum, grade, i) => sum + grade / Math.log2(i + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}

/** Share of the relevant documents (grade > 0) found in the first k. */
export function recallAt(k: number, ranking: string[], relevant: Map<string, number>): number {
  const wanted = [...relevant].filter(([, grade]) => grade > 0).map(([id]) => id);
  if (wanted.length === 0) return 0;
  const top = new Set(ranking.slice(0, k));
  return wanted.filter((id) => top.has(id)).length / wanted.length;
}

/** Lower case, collapsed whitespace, curly quotes straightened: containment should not fail on typography. */
export function normalise(text: string): string {
  return text.toLowerCase().replace(/[’‘]/g, "'").replace(/[“”]/g, '"').replace(/\s+/g, ' ').trim();
}

/** Is any of the gold answers contained in the answer text? */
export function containsAnswer(answer: string, gold: string[]): boolean {
  const text = normalise(answer);
  return gold.some((g) => normalise(g).length > 0 && text.includes(normalise(g)));
}

/** `n` items spread evenly over `items` (all of them when n ≥ length): a limit that still covers every article. */
export function spread<T>(items: T[], n: number | null): T[] {
  if (n === null || n >= items.length) return items;
  const step = items.length / n;
  return Array.from({ length: n }, (_, i) => items[Math.floor(i * step)]!);
}

export const ratio = (part: number, whole: number): number => (whole === 0 ? 0 : part / whole);

/**
 * What a visitor reads in an answer's Markdown: link text without the URL, no emphasis or code-span marks,
 * no `[n]` markers. Expected fragments go through it too, so a fact wrapped in `**…**` or backticks counts.
 */
export function readableText(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\s\[\d{1,3}\]/g, '')
    .replace(/\*\*|__|`/g, '');
}

/** Does the answer contain any of the expected fragments (as a visitor reads them)? */
export function containsFact(answer: string, expect: string[]): boolean {
  return containsAnswer(readableText(answer), expect.map(readableText));
}

/** Fenced code blocks: their `[n]` are code, not markers, and their lines are not sentences. */
const FENCED = /^(```|~~~)[^\n]*\n[\s\S]*?^\1\s*$/gm;
const LIST = /^\s*([-*+]|\d+[.)])\s/;

/** The `[n]` markers of an answer in order: one per quoted unit (sentence, list, code block, table). */
export function markersOf(markdown: string): number[] {
  return [...markdown.replace(FENCED, '').matchAll(/\[(\d{1,3})\]/g)].map((m) => Number(m[1]));
}

/** Prose sentences of an answer (code blocks, lists and tables are blocks, not sentences). */
export function proseSentences(markdown: string): number {
  const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
  let count = 0;
  for (const block of markdown.replace(FENCED, '').split(/\n{2,}/)) {
    if (LIST.test(block) || /^\s*\|/.test(block)) continue;
    for (const { segment } of segmenter.segment(block.replace(/\s?\[\d{1,3}\]/g, '')))
      if (/[\p{L}\p{N}]/u.test(segment)) count++;
  }
  return count;
}

/** Blocks of an answer: fenced code, lists and tables, each counted once. */
export function answerBlocks(markdown: string): number {
  const fences = markdown.match(FENCED)?.length ?? 0;
  const rest = markdown.replace(FENCED, '').split(/\n{2,}/);
  return fences + rest.filter((b) => LIST.test(b) || /^\s*\|/.test(b)).length;
}
