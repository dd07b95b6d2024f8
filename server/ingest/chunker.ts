/**
 * Heading-aware chunking, sized with the embedding model's own tokenizer.
 *
 * A chunk never crosses a section boundary, so its citation (section, anchor, url) is exact. Long sections
 * are split between blocks, then lists between items, code and tables between lines (re-fenced, header
 * repeated), text between sentences, and as a last resort between words. Sizes are balanced: a section of
 * 300 tokens becomes two chunks of ~150, not 256 + 44.
 *
 * What gets embedded is the chunk prefixed with its context line ("Refunds › Requesting a refund"), so a
 * paragraph that never repeats its heading's words is still found by them; what gets stored is the chunk
 * alone, because answers quote it verbatim. The embedded text, [CLS] and [SEP] included, fits in
 * `maxTokens` (all-MiniLM-L6-v2 was trained on 256 word pieces and truncates beyond that).
 */
import type { ChunkMeta } from '../store/types.ts';
import type { Block, ParsedDocument, Section } from './document.ts';

export interface Chunk {
  /** Markdown stored and shown to visitors. */
  content: string;
  /** `content` with its context line: the text that gets embedded. */
  embedText: string;
  /** Word pieces of `embedText`, [CLS] and [SEP] included. */
  tokens: number;
  meta: ChunkMeta;
}

export interface ChunkOptions {
  /** Word pieces of a text including the special tokens (the model tokenizer's `encode(text).length`). */
  countTokens: (text: string) => number;
  /** Hard limit per embedded text, special tokens included. Default 256. */
  maxTokens?: number;
}

export const DEFAULT_MAX_TOKENS = 256;
const SEPARATOR = ' › ';
/** Below this content budget the context line is dropped rather than starving the chunk. */
const MIN_CONTENT_BUDGET = 96;

interface Unit {
  text: string;
  tokens: number;
}

export function chunkDocument(doc: ParsedDocument, options: ChunkOptions): Chunk[] {
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  const special = options.countTokens('');
  // Word pieces without [CLS]/[SEP]. BERT's pre-tokenizer splits on whitespace first, so the pieces of
  // texts joined by whitespace add up exactly.
  const count = (text: string): number => options.countTokens(text) - special;
  const chunks: Chunk[] = [];
  for (const section of doc.sections) {
    let context = contextLine(doc.title, section.headingPath);
    let budget = maxTokens - special - count(context);
    if (budget < MIN_CONTENT_BUDGET) {
      context = '';
      budget = maxTokens - special;
    }
    const units = section.blocks.flatMap((block) => fitBlock(block, budget, count));
    for (const content of pack(units, budget, '\n\n')) {
      const embedText = context ? `${context}\n\n${content}` : content;
      chunks.push({ content, embedText, tokens: options.countTokens(embedText), meta: chunkMeta(doc, section) });
    }
  }
  for (const chunk of chunks) {
    // Guards the additivity assumption above; a violation is a bug, not something to store truncated.
    if (chunk.tokens > maxTokens) throw new Error(`chunk of ${chunk.tokens} tokens exceeds ${maxTokens}`);
  }
  return chunks;
}

function contextLine(title: string, headingPath: string[]): string {
  const path = headingPath[0]?.toLowerCase() === title.toLowerCase() ? headingPath.slice(1) : headingPath;
  return [title, ...path].join(SEPARATOR);
}

function chunkMeta(doc: ParsedDocument, section: Section): ChunkMeta {
  const path = section.headingPath;
  return {
    section: path.length > 0 ? path.join(SEPARATOR) : null,
    heading_path: path,
    anchor: section.anchor,
    url: doc.url === null ? null : section.anchor ? `${doc.url}#${section.anchor}` : doc.url,
    page: null,
  };
}

/** Splits one block into units of at most `budget` tokens each. */
function fitBlock(block: Block, budget: number, count: (text: string) => number): Unit[] {
  const tokens = count(block.markdown);
  if (tokens <= budget) return [{ text: block.markdown, tokens }];
  switch (block.kind) {
    case 'code':
      return fitLines(codeLines(block), `\`\`\`${block.lang ?? ''}\n`, '\n```', budget, count);
    case 'table': {
      const lines = block.markdown.split('\n');
      return fitLines(lines.slice(2), `${lines.slice(0, 2).join('\n')}\n`, '', budget, count);
    }
    case 'list': {
      const items = (block.items ?? [block.markdown]).flatMap((item) => fitText(item, budget, count));
      return pack(items, budget, '\n').map((text) => ({ text, tokens: count(text) }));
    }
    default:
      return fitText(block.markdown, budget, count);
  }
}

function codeLines(block: Block): string[] {
  return (block.code ?? block.markdown).split('\n');
}

/** Lines packed under a repeated head and tail (a code fence, a table header). */
function fitLines(lines: string[], head: string, tail: string, budget: number, count: (t: string) => number): Unit[] {
  const frame = count(head + tail);
  const inner = budget - frame;
  if (inner < 16) return fitText(head + lines.join('\n') + tail, budget, count);
  const units = lines.flatMap((line) => {
    const tokens = count(line);
    return tokens <= inner ? [{ text: line, tokens }] : splitWords(line, inner, count);
  });
  return pack(units, inner, '\n').map((body) => {
    const text = head + body + tail;
    return { text, tokens: count(text) };
  });
}

const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });

/** Text split between sentences (then words), each unit within budget. */
function fitText(text: string, budget: number, count: (t: string) => number): Unit[] {
  const tokens = count(text);
  if (tokens <= budget) return [{ text, tokens }];
  const units = [...sentences.segment(text)].flatMap(({ segment }) => {
    const sentence = segment.trim();
    if (!sentence) return [];
    const n = count(sentence);
    return n <= budget ? [{ text: sentence, tokens: n }] : splitWords(sentence, budget, count);
  });
  return pack(units, budget, ' ').map((t) => ({ text: t, tokens: count(t) }));
}

/** Last resort for run-on text: between words, and inside a word longer than the budget. */
function splitWords(text: string, budget: number, count: (t: string) => number): Unit[] {
  const units: Unit[] = [];
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const tokens = count(word);
    if (tokens <= budget) {
      units.push({ text: word, tokens });
      continue;
    }
    let rest = word;
    while (rest) {
      let size = Math.min(rest.length, budget);
      while (size > 1 && count(rest.slice(0, size)) > budget) size = Math.floor(size / 2);
      units.push({ text: rest.slice(0, size), tokens: count(rest.slice(0, size)) });
      rest = rest.slice(size);
    }
  }
  return pack(units, budget, ' ').map((t) => ({ text: t, tokens: count(t) }));
}

/**
 * Greedy packing towards balanced sizes: with n = ⌈total / budget⌉ pieces needed, each aims for total / n
 * and never exceeds the budget.
 */
function pack(units: Unit[], budget: number, joiner: string): string[] {
  const total = units.reduce((sum, u) => sum + u.tokens, 0);
  const target = Math.ceil(total / Math.max(1, Math.ceil(total / budget)));
  const pieces: string[] = [];
  let current: string[] = [];
  let size = 0;
  for (const unit of units) {
    if (current.length > 0 && (size + unit.tokens > budget || size >= target)) {
      pieces.push(current.join(joiner));
      current = [];
      size = 0;
    }
    current.push(unit.text);
    size += unit.tokens;
  }
  if (current.length > 0) pieces.push(current.join(joiner));
  return pieces;
}
