/**
 * Plain-text reader: one section without headings, paragraphs separated by blank lines.
 */
import type { DocumentDefaults, ParsedDocument } from './document.ts';

export function parseText(raw: string, defaults: DocumentDefaults): ParsedDocument {
  const paragraphs = raw
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  return {
    title: defaults.fileTitle,
    description: null,
    url: defaults.url,
    format: 'text',
    sections:
      paragraphs.length > 0
        ? [{ headingPath: [], anchor: null, blocks: paragraphs.map((markdown) => ({ kind: 'text', markdown })) }]
        : [],
  };
}
