/**
 * PDF reader: text with positions and font sizes per page (unpdf, PDF.js built for servers, run in a worker
 * thread within limits by pdf-reader.ts). Lines are grouped into paragraphs by vertical gaps; a short line
 * set clearly larger than the page's body text is a heading. Every section lies on one page (a heading's
 * section continues on the next page as a new section with the same path), so every chunk carries the page
 * it came from.
 *
 * The source text for offsets is the pages' text, lines joined by \n and pages by \f.
 */
import type { Block, DocumentDefaults, ParsedDocument, Section } from './document.ts';
import { readPdf, type PdfTextItem } from './pdf-reader.ts';

interface Line {
  text: string;
  y: number;
  size: number;
  start: number;
}

/**
 * Parses a PDF read by pdf-reader.ts (in a worker thread, within PDF_LIMITS); throws PdfLimitError when a
 * limit is reached.
 */
export async function parsePdf(bytes: Uint8Array, defaults: DocumentDefaults): Promise<ParsedDocument> {
  const { pages, info } = await readPdf(bytes);
  const sections: Section[] = [];
  let offset = 0;
  let path: string[] = [];
  pages.forEach((pageItems, index) => {
    const page = index + 1;
    const lines = toLines(pageItems, offset);
    const pageText = lines.map((l) => l.text).join('\n');
    const body = bodySize(lines);
    let current: Section = { headingPath: path, anchor: null, page, blocks: [] };
    let paragraph: Line[] = [];
    const flush = (): void => {
      if (paragraph.length > 0) current.blocks.push(paragraphBlock(paragraph));
      paragraph = [];
    };
    lines.forEach((line, i) => {
      const previous = lines[i - 1];
      const isHeading = line.size >= body * 1.25 && line.text.length <= 120 && !/[.:,;]$/.test(line.text);
      if (isHeading) {
        flush();
        sections.push(current);
        path = [line.text];
        current = { headingPath: path, anchor: null, page, blocks: [] };
        return;
      }
      // A gap clearly taller than a line, or a change of font size, starts a new paragraph.
      if (
        previous &&
        (Math.abs(previous.y - line.y) > Math.max(line.size, previous.size) * 1.6 ||
          Math.abs(previous.size - line.size) > 0.5)
      ) {
        flush();
      }
      paragraph.push(line);
    });
    flush();
    sections.push(current);
    offset += pageText.length + 1; // the \f between pages
  });
  const title = typeof info.Title === 'string' && info.Title.trim() ? info.Title.trim() : defaults.fileTitle;
  return {
    title,
    description: typeof info.Subject === 'string' && info.Subject.trim() ? info.Subject.trim() : null,
    url: defaults.url,
    format: 'pdf',
    sections: sections.filter((s) => s.blocks.length > 0),
    tags:
      typeof info.Keywords === 'string'
        ? info.Keywords.split(/[,;]/)
            .map((t) => t.trim())
            .filter(Boolean)
        : [],
    language: typeof info.Language === 'string' && info.Language.trim() ? info.Language.trim() : null,
    publishedAt: pdfDate(info.CreationDate),
  };
}

/** Text items → lines (an item with hasEOL ends its line), with each line's offset in the source text. */
function toLines(items: PdfTextItem[], pageOffset: number): Line[] {
  const lines: Line[] = [];
  let text = '';
  let y = 0;
  let size = 0;
  let position = pageOffset;
  const end = (): void => {
    const trimmed = text.replace(/\s+/g, ' ').trim();
    if (trimmed) {
      lines.push({ text: trimmed, y, size, start: position });
      position += trimmed.length + 1;
    }
    text = '';
    size = 0;
  };
  for (const item of items) {
    // An item on another baseline starts a new line even when the previous one did not say so.
    if (text.trim() && item.str.trim() && Math.abs(item.y - y) > 1) end();
    if (!text.trim()) y = item.y;
    if (item.str.trim()) size = Math.max(size, item.fontSize);
    text += item.str;
    if (item.hasEOL) end();
  }
  end();
  return lines;
}

function paragraphBlock(lines: Line[]): Block {
  // Words hyphenated across a line break are joined again.
  const markdown = lines
    .map((l) => l.text)
    .join('\n')
    .replace(/(\p{Ll})-\n(\p{Ll})/gu, '$1$2')
    .replace(/\n/g, ' ');
  const last = lines[lines.length - 1]!;
  return { kind: 'text', markdown, start: lines[0]!.start, end: last.start + last.text.length };
}

/** The font size most of the page's text is set in (weighted by characters). */
function bodySize(lines: Line[]): number {
  const weight = new Map<number, number>();
  for (const line of lines) weight.set(line.size, (weight.get(line.size) ?? 0) + line.text.length);
  let best = 0;
  let bestWeight = -1;
  for (const [size, w] of weight)
    if (w > bestWeight || (w === bestWeight && size < best)) (best = size), (bestWeight = w);
  return best;
}

/** PDF dates look like `D:20240131120000+01'00'`. */
function pdfDate(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value !== 'string') return null;
  const m = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?/.exec(value);
  if (!m) return null;
  const date = new Date(Date.UTC(+m[1]!, +(m[2] ?? 1) - 1, +(m[3] ?? 1), +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0)));
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
