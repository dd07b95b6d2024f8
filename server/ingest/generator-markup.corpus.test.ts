/**
 * Every page of three real documentation sites (VitePress, MkDocs Material, Railway's MDX; read in place from
 * ../shared/data) parsed and chunked as ingestion does: no chunk shows generator syntax to a visitor.
 *
 * Prose is checked outside code (inline code spans and fenced blocks removed first), because these sites
 * document their own syntax: "a block starts with `!!!`" and a ```` ```markdown ```` example of an admonition
 * are content. Code blocks are checked for what the generator would have hidden (twoslash directives, line
 * notation comments, annotation markers) and fence lines for meta (`[label]`, `{1,3-5}`, `title="…"`),
 * except in Markdown examples, which show that syntax on purpose. A table's rows must stay a table in every
 * part of it (table.ts: a padded header once outgrew the part and the rows were cut as prose).
 */
import { readFile } from 'node:fs/promises';
import { marked } from 'marked';
import { beforeAll, describe, expect, it } from 'vitest';
import { hasSharedData, sharedData } from '../../scripts/lib/shared-data.mjs';
import { chunkDocument } from './chunker.ts';
import { createEmbedder, type Embedder } from './embedder.ts';
import { resolveInputs } from './files.ts';
import { MODEL, MODEL_DIR } from './fixtures/paths.ts';
import { parseMarkdown } from './markdown.ts';

const SITES = {
  vite: 'docs-corpus/vite-docs/docs',
  'mkdocs-material': 'docs-corpus/mkdocs-material-docs/docs',
  railway: 'docs-corpus/railway-docs/content/docs',
};

/** Syntax a visitor must never read in prose. */
const PROSE = [
  [':::', /:::/],
  ['!!!', /!!!/],
  ['???', /\?\?\?/],
  ['=== "', /^\s*===\s*"/m],
  ['{ .md-…}', /\{\s*:?\s*\.md-/],
  ['{#id}', /\{\s*:?\s*#[\w-]+\s*\}/],
  ['--8<--', /--8<--/],
  [':icon:', /:(?:material|octicons|fontawesome|simple)-[\w-]+:/],
  ['<Badge', /<Badge/],
  ['<script setup', /<script\s+setup/],
  ['[[toc]]', /\[\[toc\]\]/],
  ['{{ }}', /(?<!\$)\{\{|\{%/],
  ['import/export', /^(?:import\s.*\sfrom\s+['"]|import\s+['"]|export\s+(?:const|let|default|function)\b)/m],
] as const;

/** What the generator hides in code, and fence meta. */
const CODE = [
  ['// ---cut---', /\/\/\s*---cut(?:-before|-after)?---/],
  ['// ^?', /\/\/\s*\^[?|]/],
  ['// @directive', /^\s*\/\/\s*@(?:errors|noErrors|filename|module|target|lib|jsx|strict|esModuleInterop)\b/m],
  ['[!code …]', /\[!code\b/],
  ['(1)! annotation', /(?:#|\/\/|--|;)\s*\(\d+\)!?\s*$/m],
] as const;
/** Meta after the language in a fence line. */
const FENCE_META = /\[|\{|=|\btwoslash\b/;

/** The leaks in one chunk's content: the names of the patterns found. */
function leaks(content: string): string[] {
  const found: string[] = [];
  const fences = /^(`{3,}|~{3,})([^\n]*)\n([\s\S]*?)^\1[ \t]*$/gm;
  for (const [, , info, code] of content.matchAll(fences)) {
    if (FENCE_META.test(info!)) found.push('fence meta');
    if (/^\s*(?:markdown|md)\b/.test(info!)) continue;
    for (const [name, re] of CODE) if (re.test(code!)) found.push(name);
  }
  const prose = content.replace(fences, '').replace(/(`+)[\s\S]*?\1/g, '');
  for (const [name, re] of PROSE) if (re.test(prose)) found.push(name);
  // A table part without its header is read as a paragraph, and its rows reach an answer as one line of
  // pipes: a paragraph made of rows (`| a | b |`), or rows already joined (`… | | **Next row** | …`).
  for (const token of marked.lexer(content))
    if (token.type === 'paragraph' && (/^\|[^\n]*\|\s*$/m.test(token.raw) || /\|\s\|\s/.test(token.raw)))
      found.push('table rows as prose');
  return [...new Set(found)];
}

let embedder: Embedder;
beforeAll(async () => {
  embedder = await createEmbedder({ model: MODEL, modelDir: MODEL_DIR });
});

describe.each(Object.entries(SITES))('generator markup on the %s site', (site, relative) => {
  it.skipIf(!hasSharedData(relative))('reaches no chunk', { timeout: 120_000 }, async () => {
    const { files } = await resolveInputs([sharedData(relative)]);
    const markdown = files.filter((f) => f.format === 'markdown');
    expect(markdown.length).toBeGreaterThan(40);
    let chunks = 0;
    const bad: { source: string; leaks: string[]; content: string }[] = [];
    for (const file of markdown) {
      const doc = parseMarkdown(await readFile(file.file, 'utf8'), { fileTitle: file.urlPath, url: null });
      for (const chunk of chunkDocument(doc, { countTokens: (t) => embedder.countTokens(t) })) {
        chunks += 1;
        const found = leaks(chunk.content);
        if (found.length > 0) bad.push({ source: file.urlPath, leaks: found, content: chunk.content });
      }
    }
    const byLeak = new Map<string, number>();
    for (const b of bad) for (const l of b.leaks) byLeak.set(l, (byLeak.get(l) ?? 0) + 1);
    console.log(
      `${site}: ${markdown.length} pages, ${chunks} chunks, ${bad.length} showing generator syntax ${JSON.stringify(Object.fromEntries(byLeak))}`,
    );
    if (process.env.SHOW_LEAKS) for (const b of bad) console.log(`--- ${b.source} ${b.leaks}\n${b.content}`);
    expect(bad.slice(0, 3)).toEqual([]);
  });
});
