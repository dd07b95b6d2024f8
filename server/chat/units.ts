/**
 * The quotable units of a chunk: what an extractive answer is made of. A chunk's content is Markdown that
 * keeps its source's blocks (server/ingest/chunker.ts joins them with blank lines and re-fences split code),
 * so marked's lexer recovers them here:
 *
 * - a paragraph gives one unit per sentence (Intl.Segmenter);
 * - a list, a fenced code block, a table or a block quote (a note) is one unit, quoted whole, within the
 *   bounds below (the rest stays behind the citation's "Show passage");
 * - a sentence ending in ":" right before a block is that block's lead-in: one brings the other.
 *
 * Every unit is verbatim source text (a paragraph's soft line breaks become spaces), so answers only ever
 * contain what the documentation says, in its own form.
 */
import { marked, type Token, type Tokens } from 'marked';
import { contentWords } from './text.ts';

export type UnitKind = 'sentence' | 'list' | 'code' | 'table' | 'note';

export interface Unit {
  kind: UnitKind;
  /** Verbatim Markdown, already cut to the bounds. */
  markdown: string;
  /** Content words the unit is scored on (a block's own words; a code block's are mostly its lead-in's). */
  words: Set<string>;
  /** Position in the chunk, in reading order. */
  index: number;
  /** Sentences: which paragraph of the chunk they belong to (consecutive sentences continue each other). */
  paragraph?: number;
  /** Sentence: index of the block it introduces. Block: index of its lead-in sentence. */
  leadIn?: number;
  introduces?: number;
  /** A sentence that only points elsewhere ("Please refer to [Refunds](/pricing/refunds).", "See …"). */
  pointer?: boolean;
  /**
   * A paragraph that is only a bold line (an FAQ entry's question: ingestion turns `<Collapse title="…">`
   * into one): a heading for the unit after it, not an answer itself.
   */
  title?: boolean;
}

/** Bounds of one quoted block: a screenful a visitor can read in the bubble. */
export const MAX_CODE_LINES = 12;
export const MAX_LIST_ITEMS = 8;
export const MAX_TABLE_ROWS = 6;

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
/** A bold-only line of at most 150 characters: a title, not a sentence. */
const TITLE = /^\*\*[^*\n]{1,150}\*\*$/;

/**
 * `question` picks a long table's rows: the header and the rows sharing a word with the question that not every
 * row holds (in table order), or the first rows when none does. Measured in docs/retrieval-and-answers.md,
 * "Round 12".
 */
export function unitsOf(markdown: string, question: Set<string>): Unit[] {
  const units: Unit[] = [];
  const push = (unit: Omit<Unit, 'index'>): Unit => {
    const full = { ...unit, index: units.length };
    units.push(full);
    return full;
  };
  // The last sentence of the paragraph just read, if the token before this one was a paragraph.
  let lastSentence: Unit | null = null;
  for (const token of marked.lexer(markdown)) {
    if (token.type === 'space') continue;
    const before = lastSentence;
    lastSentence = null;
    const block = blockUnit(token, question);
    if (block) {
      const unit = push(block);
      // A sentence ending in ":" right before the block introduces it.
      if (before && /:\s*$/.test(before.markdown)) {
        before.introduces = unit.index;
        unit.leadIn = before.index;
      }
    } else if ((token.type === 'paragraph' || token.type === 'text') && TITLE.test(token.raw.trim())) {
      const words = contentWords(token.raw);
      if (words.length > 0) push({ kind: 'sentence', markdown: token.raw.trim(), words: new Set(words), title: true });
    } else if (token.type === 'paragraph' || token.type === 'text') {
      const paragraph = units.length;
      for (const sentence of sentencesOf(token.raw.replace(/\s*\n\s*/g, ' ').trim())) {
        const words = contentWords(sentence);
        if (words.length === 0) {
          // A lead-in with no word of its own ("This is because:", "You can:") joins the sentence before it,
          // which then introduces the block: the list is not quoted without what it lists.
          if (lastSentence && /:\s*$/.test(sentence)) lastSentence.markdown += ` ${sentence}`;
          continue;
        }
        lastSentence = push({
          kind: 'sentence',
          markdown: sentence,
          words: new Set(words),
          paragraph,
          ...(isPointer(sentence) ? { pointer: true } : {}),
        });
      }
    }
  }
  return units;
}

/**
 * Sentences of a paragraph. Intl.Segmenter ends a sentence at a full stop inside quotes (`the reply "The
 * knowledge base is empty." …`) and inside code spans; such pieces are joined back to their sentence.
 */
export function sentencesOf(text: string): string[] {
  const out: string[] = [];
  let open = '';
  for (const { segment } of segmenter.segment(text)) {
    open += segment;
    const quotes = (open.match(/"/g) ?? []).length + (open.match(/“/g) ?? []).length - (open.match(/”/g) ?? []).length;
    const ticks = (open.match(/`/g) ?? []).length;
    if (quotes % 2 === 1 || ticks % 2 === 1) continue;
    if (open.trim()) out.push(open.trim());
    open = '';
  }
  if (open.trim()) out.push(open.trim());
  return out;
}

const POINTER =
  /^(please\s+)?(see|refer\s+to|read|visit|check\s+out|learn\s+more|for\s+more\s+(information|details))\b/i;

/** Mostly a link, or a "see …" sentence: it tells the visitor where the answer is instead of answering. */
function isPointer(sentence: string): boolean {
  const linkText = [...sentence.matchAll(/\[([^\]]*)\]\([^)]*\)/g)].reduce((n, m) => n + m[1]!.length, 0);
  const plain = sentence.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  return POINTER.test(plain) || linkText > plain.length / 2;
}

function blockUnit(token: Token, question: Set<string>): Omit<Unit, 'index'> | null {
  switch (token.type) {
    case 'code': {
      const code = token as Tokens.Code;
      if (code.codeBlockStyle === 'indented') return null;
      const lines = code.text.split('\n');
      const shown = lines.slice(0, MAX_CODE_LINES);
      const fence = /^(`{3,}|~{3,})/.exec(code.raw.trim())?.[1] ?? '```';
      return {
        kind: 'code',
        markdown: `${fence}${code.lang ?? ''}\n${shown.join('\n')}\n${fence}`,
        words: new Set(contentWords(code.text)),
      };
    }
    case 'list': {
      const list = token as Tokens.List;
      const items = list.items.map((item) => item.raw.trimEnd());
      const shown = items.slice(0, MAX_LIST_ITEMS);
      return {
        kind: 'list',
        markdown: shown.join('\n'),
        words: new Set(contentWords(items.join(' '))),
      };
    }
    case 'table': {
      const lines = token.raw.trim().split('\n');
      const [header, rule, ...rows] = lines;
      if (header === undefined || rule === undefined) return null;
      let shown = rows;
      if (rows.length > MAX_TABLE_ROWS) {
        // A word every row holds ("Deployment" in each status's description) picks no row.
        const rowWords = rows.map((row) => new Set(contentWords(row)));
        const telling = [...question].filter((w) => !rowWords.every((r) => r.has(w)));
        const matching = rows.filter((_, i) => telling.some((w) => rowWords[i]!.has(w)));
        shown = (matching.length > 0 ? matching : rows).slice(0, MAX_TABLE_ROWS);
      }
      return {
        kind: 'table',
        markdown: [header, rule, ...shown].join('\n'),
        words: new Set(contentWords([header, ...shown].join(' '))),
      };
    }
    case 'blockquote': {
      const markdown = token.raw.trim();
      const words = contentWords(markdown);
      return words.length > 0 ? { kind: 'note', markdown, words: new Set(words) } : null;
    }
    default:
      return null;
  }
}
