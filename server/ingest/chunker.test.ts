import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { chunkDocument, type Chunk } from './chunker.ts';
import type { ParsedDocument } from './document.ts';
import { createEmbedder, type Embedder } from './embedder.ts';
import { resolveInputs } from './files.ts';
import { parseMarkdown } from './markdown.ts';
import { MODEL, MODEL_DIR, RAILWAY_DOCS, RAILWAY_DOCS_PATH } from './fixtures/paths.ts';
import { hasSharedData } from '../../scripts/lib/shared-data.mjs';

let embedder: Embedder;
let chunk: (doc: ParsedDocument) => Chunk[];
beforeAll(async () => {
  embedder = await createEmbedder({ model: MODEL, modelDir: MODEL_DIR });
  chunk = (doc) => chunkDocument(doc, { countTokens: (t) => embedder.countTokens(t) });
});

const words = (n: number, word = 'lorem'): string => Array.from({ length: n }, (_, i) => `${word}${i % 7}`).join(' ');
const doc = (markdown: string, url: string | null = 'https://docs.example.com/page'): ParsedDocument =>
  parseMarkdown(markdown, { fileTitle: 'Page', url });

describe('chunkDocument', () => {
  it('gives each chunk its section, heading path, anchor and url', () => {
    const chunks = chunk(doc('# Title\n\nIntro text.\n\n## Setup\n\n### On Linux\n\nInstall it.'));
    expect(chunks.map((c) => c.meta)).toEqual([
      {
        section: 'Title',
        heading_path: ['Title'],
        anchor: 'title',
        url: 'https://docs.example.com/page#title',
        page: null,
        char_start: 9,
        char_end: 20,
      },
      {
        section: 'Title › Setup › On Linux',
        heading_path: ['Title', 'Setup', 'On Linux'],
        anchor: 'on-linux',
        url: 'https://docs.example.com/page#on-linux',
        page: null,
        char_start: 46,
        char_end: 57,
      },
    ]);
    expect(chunks.map((c) => c.content)).toEqual(['Intro text.', 'Install it.']);
    // The context line is embedded, not stored; the H1 equal to the title is not repeated.
    expect(chunks[1]!.embedText).toBe('Title › Setup › On Linux\n\nInstall it.');
  });

  it('uses the document url alone, or null, without headings', () => {
    expect(chunk(doc('Text.'))[0]!.meta).toMatchObject({
      section: null,
      heading_path: [],
      anchor: null,
      url: 'https://docs.example.com/page',
    });
    expect(chunk(doc('Text.', null))[0]!.meta.url).toBeNull();
  });

  it('splits a long section by paragraph, then sentence, into balanced chunks within 256 tokens', () => {
    const sentence = (i: number): string => `Sentence number ${i} talks about ${words(12, 'topic')}.`;
    const paragraphs = Array.from({ length: 12 }, (_, p) =>
      Array.from({ length: 4 }, (_, s) => sentence(p * 4 + s)).join(' '),
    );
    const longParagraph = Array.from({ length: 40 }, (_, i) => sentence(100 + i)).join(' ');
    const chunks = chunk(doc(`## Long\n\n${paragraphs.join('\n\n')}\n\n${longParagraph}`));
    const tokens = chunks.map((c) => embedder.countTokens(c.embedText));
    expect(chunks.length).toBeGreaterThan(4);
    expect(Math.max(...tokens)).toBeLessThanOrEqual(256);
    expect(Math.min(...tokens.slice(0, -1))).toBeGreaterThan(100); // balanced, not 256 + a sliver
    expect(chunks.every((c) => c.meta.section === 'Long')).toBe(true);
    // Nothing lost or reordered: every sentence appears once, in order.
    const joined = chunks.map((c) => c.content).join(' ');
    const positions = Array.from({ length: 48 }, (_, i) => joined.indexOf(`Sentence number ${i} `));
    expect(positions.every((p, i) => p >= 0 && (i === 0 || p > positions[i - 1]!))).toBe(true);
    // No sentence is cut in the middle.
    for (const c of chunks) expect(c.content).toMatch(/\.$/);
  });

  it('re-fences long code blocks and repeats table headers', () => {
    const code = Array.from({ length: 120 }, (_, i) => `const value${i} = compute(${i});`).join('\n');
    const rows = Array.from({ length: 80 }, (_, i) => `| plan ${i} | ${i} dollars |`).join('\n');
    const chunks = chunk(
      doc(`## Code\n\n\`\`\`js\n${code}\n\`\`\`\n\n## Table\n\n| Plan | Price |\n|---|---|\n${rows}`),
    );
    const codeChunks = chunks.filter((c) => c.meta.section === 'Code');
    const tableChunks = chunks.filter((c) => c.meta.section === 'Table');
    expect(codeChunks.length).toBeGreaterThan(1);
    expect(tableChunks.length).toBeGreaterThan(1);
    for (const c of codeChunks) expect(c.content).toMatch(/^```js\n[\s\S]+\n```$/);
    for (const c of tableChunks) expect(c.content.startsWith('| Plan | Price |\n| --- | --- |\n| plan')).toBe(true);
    for (const c of chunks) expect(embedder.countTokens(c.embedText)).toBeLessThanOrEqual(256);
  });

  it('cuts run-on text without sentence breaks between words', () => {
    const chunks = chunk(doc(`## Blob\n\n${words(900)} ${'x'.repeat(3000)}`));
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) expect(embedder.countTokens(c.embedText)).toBeLessThanOrEqual(256);
  });
});

describe.skipIf(!hasSharedData(RAILWAY_DOCS_PATH))('the whole Railway corpus', () => {
  it('never exceeds 256 tokens, loses no section and leaves no MDX in prose', async () => {
    const { files } = await resolveInputs([RAILWAY_DOCS]);
    expect(files.length).toBeGreaterThan(150);
    let total = 0;
    for (const file of files) {
      const parsed = parseMarkdown(readFileSync(file.file, 'utf8'), { fileTitle: 'x', url: '/x' });
      const chunks = chunk(parsed);
      total += chunks.length;
      for (const c of chunks) {
        // Counted again, independently of the chunker's own bookkeeping.
        const n = embedder.tokenizer.encode(c.embedText).length;
        if (n > 256) throw new Error(`${file.source}: chunk of ${n} tokens`);
        expect(c.content.trim()).not.toBe('');
        const prose = c.content.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
        if (/<\/?(?:[A-Z][a-z]\w*|a|img|div|br|video|span|p)[\s>/]/.test(prose)) {
          throw new Error(`${file.source}: markup left in ${JSON.stringify(c.content.slice(0, 200))}`);
        }
      }
      const sectionsWithText = parsed.sections.filter((s) => s.blocks.length > 0).length;
      expect(new Set(chunks.map((c) => c.meta.anchor ?? '')).size).toBe(sectionsWithText);
    }
    expect(total).toBeGreaterThan(1000);
  });
});
