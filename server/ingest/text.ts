/**
 * Plain-text reader: one section without headings, paragraphs separated by blank lines, each with its
 * offsets in the text (line endings normalised to \n).
 */
import type { Block, DocumentDefaults, ParsedDocument } from './document.ts';

export function parseText(raw: string, defaults: DocumentDefaults): ParsedDocument {
  const source = raw.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const blocks: Block[] = [];
  for (const match of source.matchAll(/[^\n]*\S[^\n]*(?:\n[ \t]*\S[^\n]*)*/g)) {
    const markdown = match[0].trim();
    const start = match.index + match[0].indexOf(markdown[0]!);
    blocks.push({ kind: 'text', markdown, start, end: start + markdown.length });
  }
  return {
    title: defaults.fileTitle,
    description: null,
    url: defaults.url,
    format: 'text',
    sections: blocks.length > 0 ? [{ headingPath: [], anchor: null, blocks }] : [],
    tags: [],
    language: null,
    publishedAt: null,
  };
}
