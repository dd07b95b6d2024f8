/**
 * Heading-aware chunking, sized with the embedding model's own tokenizer.
 *
 * A chunk never crosses a section boundary, so its citation (section, anchor, url) is exact. Long sections
 * are split between blocks, then lists between items, code and tables between lines (re-fenced, header
 * repeated), text between sentences, and as a last resort between words. Sizes are balanced: a section of
 * 300 tokens becomes two chunks of ~150, not 256 + 44.
 *
 * Neighbouring chunks of one section overlap: a chunk after a split starts with the last sentence(s) of the
 * one before (at most `overlapTokens`), so a statement cut from its context is still found with it. The
 * overlap is prose only (never a code or table fragment) and is not part of `char_start`/`char_end`, which
 * locate the chunk's own text in the source (the widget deep-links with them).
 *
 * What gets embedded is the chunk prefixed with its context line ("Refunds › Requesting a refund"), so a
 * paragraph that never repeats its heading's words is still found by them; what gets stored is the chunk
 * alone, because answers quote it verbatim. The embedded text, [CLS] and [SEP] included, fits in
 * `maxTokens` (all-MiniLM-L6-v2 was trained on 256 word pieces and truncates beyond that).
 */
import type { ChunkMeta } from '../store/types.ts';
import type { Block, ParsedDocument, Section } from './document.ts';
import { codeMarkdown } from './fence-meta.ts';

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
  /** Upper bound of the text repeated from the previous chunk of the same section. Default 40; 0 = none. */
  overlapTokens?: number;
}

export const DEFAULT_MAX_TOKENS = 256;
export const DEFAULT_OVERLAP_TOKENS = 40;
const SEPARATOR = ' › ';
/** Below this content budget the context line is dropped rather than starving the chunk. */
const MIN_CONTENT_BUDGET = 96;

interface Unit {
  text: string;
  tokens: number;
  /** Offsets in the source text, when known. */
  start?: number;
  end?: number;
  /** Prose that may be repeated as overlap. */
  prose?: boolean;
}

export function chunkDocument(doc: ParsedDocument, options: ChunkOptions): Chunk[] {
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  const overlapTokens = options.overlapTokens ?? DEFAULT_OVERLAP_TOKENS;
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
    let units = section.blocks.flatMap((block) => fitBlock(block, budget, count));
    const total = units.reduce((sum, u) => sum + u.tokens, 0);
    // A section that needs several chunks leaves room in each for the overlap.
    const overlap = total > budget ? Math.min(overlapTokens, Math.floor(budget / 4)) : 0;
    if (overlap > 0) units = section.blocks.flatMap((block) => fitBlock(block, budget - overlap, count));
    let previous: Unit[] | null = null;
    for (const piece of packUnits(units, budget - overlap)) {
      const own = joinUnits(piece, '\n\n');
      const carried = previous && overlap > 0 ? tail(previous[previous.length - 1]!, overlap, count) : '';
      const content = carried ? `${carried}${sameBlock(previous!, piece) ? ' ' : '\n\n'}${own}` : own;
      const embedText = context ? `${context}\n\n${content}` : content;
      const located = piece.filter((u) => u.start !== undefined && u.end !== undefined);
      chunks.push({
        content,
        embedText,
        tokens: options.countTokens(embedText),
        meta: {
          ...chunkMeta(doc, section),
          char_start: located.length > 0 ? Math.min(...located.map((u) => u.start!)) : null,
          char_end: located.length > 0 ? Math.max(...located.map((u) => u.end!)) : null,
        },
      });
      previous = piece;
    }
  }
  for (const chunk of chunks) {
    // Guards the additivity assumption above; a violation is a bug, not something to store truncated.
    if (chunk.tokens > maxTokens) throw new Error(`chunk of ${chunk.tokens} tokens exceeds ${maxTokens}`);
  }
  return chunks;
}

/** The last sentences of a prose unit, at most `limit` tokens; '' when not prose or nothing fits. */
function tail(unit: Unit, limit: number, count: (text: string) => number): string {
  if (!unit.prose) return '';
  const parts = [...sentences.segment(unit.text)].map((s) => s.segment.trim()).filter(Boolean);
  let taken: string[] = [];
  for (let i = parts.length - 1; i >= 0; i--) {
    const candidate = [parts[i]!, ...taken];
    if (count(candidate.join(' ')) > limit) break;
    taken = candidate;
  }
  return taken.join(' ');
}

/** Both pieces split one block (sentences of one paragraph): the overlap continues the paragraph. */
function sameBlock(previous: Unit[], next: Unit[]): boolean {
  const a = previous[previous.length - 1]!;
  const b = next[0]!;
  // Only prose continues a sentence: a code block after a paragraph must start on its own line to stay a fence.
  return b.prose === true && a.end !== undefined && b.start !== undefined && b.start <= a.end + 2 && b.start >= a.end;
}

/** "Title › Section › Subsection": what is embedded before a chunk (reindex rebuilds it from the stored meta). */
export function contextLine(title: string, headingPath: string[]): string {
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
    page: section.page ?? null,
  };
}

/** Splits one block into units of at most `budget` tokens each. */
function fitBlock(block: Block, budget: number, count: (text: string) => number): Unit[] {
  const range = block.start !== undefined && block.end !== undefined ? { start: block.start, end: block.end } : {};
  const tokens = count(block.markdown);
  if (tokens <= budget) return [{ text: block.markdown, tokens, ...range, prose: block.kind === 'text' }];
  // Parts of a block that is a verbatim slice of the source get their own offsets; others the block's.
  const verbatim = block.start !== undefined && block.end! - block.start === block.markdown.length ? block.start : null;
  const within = (units: Unit[]): Unit[] => units.map((u) => (u.start === undefined ? { ...u, ...range } : u));
  switch (block.kind) {
    case 'code': {
      // Every part keeps the block's label over it, so a part of the `pnpm` tab still says which tab it is.
      const [head, tail] = codeMarkdown(block.lang ?? '', '\0', block.label).split('\0') as [string, string];
      return within(fitLines(codeLines(block), head, tail, budget, count));
    }
    case 'table': {
      const lines = block.markdown.split('\n');
      return within(fitLines(lines.slice(2), `${lines.slice(0, 2).join('\n')}\n`, '', budget, count));
    }
    case 'list': {
      const items = (block.items ?? [block.markdown]).flatMap((item) => fitItem(item, budget, count));
      return within(pack(items, budget, '\n').map((text) => ({ text, tokens: count(text) })));
    }
    default:
      return within(fitText(block.markdown, budget, count, verbatim).map((u) => ({ ...u, prose: true })));
  }
}

/**
 * A list item within budget: between sentences, or, when it holds a code block (a numbered step with its
 * command), between its blank-line-separated parts, so the fence keeps its lines and stays a code block.
 */
function fitItem(item: string, budget: number, count: (text: string) => number): Unit[] {
  if (count(item) <= budget || !/^\s*(`{3,}|~{3,})/m.test(item)) return fitText(item, budget, count, null);
  const parts: string[] = [];
  let fence: string | null = null;
  let current: string[] = [];
  for (const line of item.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence === null ? marker : null;
    }
    if (fence === null && line.trim() === '' && current.length > 0) {
      parts.push(current.join('\n'));
      current = [];
    } else current.push(line);
  }
  if (current.length > 0) parts.push(current.join('\n'));
  return parts.flatMap((part) => {
    const tokens = count(part);
    return tokens <= budget ? [{ text: part, tokens }] : fitText(part, budget, count, null);
  });
}

function codeLines(block: Block): string[] {
  return (block.code ?? block.markdown).split('\n');
}

/** Lines packed under a repeated head and tail (a code fence, a table header). */
function fitLines(lines: string[], head: string, tail: string, budget: number, count: (t: string) => number): Unit[] {
  const frame = count(head + tail);
  const inner = budget - frame;
  if (inner < 16) return fitText(head + lines.join('\n') + tail, budget, count, null);
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

/** Text split between sentences (then words), each unit within budget; offsets when `base` is known. */
function fitText(text: string, budget: number, count: (t: string) => number, base: number | null): Unit[] {
  const tokens = count(text);
  if (tokens <= budget) return [{ text, tokens, ...(base === null ? {} : { start: base, end: base + text.length }) }];
  const units = [...sentences.segment(text)].flatMap(({ segment, index }): Unit[] => {
    const sentence = segment.trim();
    if (!sentence) return [];
    const n = count(sentence);
    if (n > budget) return splitWords(sentence, budget, count);
    if (base === null) return [{ text: sentence, tokens: n }];
    const start = base + index + segment.indexOf(sentence);
    return [{ text: sentence, tokens: n, start, end: start + sentence.length }];
  });
  return packUnits(units, budget).map((piece) => {
    const t = joinUnits(piece, ' ');
    const located = piece.filter((u) => u.start !== undefined);
    return {
      text: t,
      tokens: count(t),
      ...(located.length === piece.length && piece.length > 0
        ? { start: piece[0]!.start!, end: piece[piece.length - 1]!.end! }
        : {}),
    };
  });
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
function packUnits(units: Unit[], budget: number): Unit[][] {
  const total = units.reduce((sum, u) => sum + u.tokens, 0);
  const target = Math.ceil(total / Math.max(1, Math.ceil(total / budget)));
  const pieces: Unit[][] = [];
  let current: Unit[] = [];
  let size = 0;
  for (const unit of units) {
    if (current.length > 0 && (size + unit.tokens > budget || size >= target)) {
      pieces.push(current);
      current = [];
      size = 0;
    }
    current.push(unit);
    size += unit.tokens;
  }
  if (current.length > 0) pieces.push(current);
  return pieces;
}

function pack(units: Unit[], budget: number, joiner: string): string[] {
  return packUnits(units, budget).map((piece) => joinUnits(piece, joiner));
}

function joinUnits(units: Unit[], joiner: string): string {
  return units.map((u) => u.text).join(joiner);
}
