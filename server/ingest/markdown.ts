/**
 * Markdown (and MDX) reader: front matter (YAML only, front-matter.ts), site-generator extensions read as
 * structure (generator-markup.ts: VitePress, MkDocs Material and Docusaurus notes, tabs, code groups),
 * structure with marked's lexer, heading anchors with github-slugger (or the heading's own `{#id}`), code
 * fence meta and hidden code lines (fence-meta.ts), MDX components and raw HTML stripped (mdx.ts).
 */
import { marked, type Token, type Tokens } from 'marked';
import GithubSlugger from 'github-slugger';
import { codeMarkdown, cleanCode, readFenceInfo } from './fence-meta.ts';
import { readFrontMatter } from './front-matter.ts';
import { rewriteGeneratorMarkup } from './generator-markup.ts';
import { stripMdx } from './mdx.ts';
import { compactTable } from './table.ts';
import type { Block, DocumentDefaults, ParsedDocument, Section } from './document.ts';

/**
 * Parses a Markdown file. Title: front matter `title`, else the first H1, else the file name. URL: front
 * matter `url`, else `defaults.url`. Throws FrontMatterError when the front matter is not YAML (`---js`…).
 *
 * @example
 * parseMarkdown('---\ntitle: Refunds\n---\n## Requesting a refund\n…', { fileTitle: 'refunds', url: null })
 * // → { title: 'Refunds', sections: [{ headingPath: ['Requesting a refund'], anchor: 'requesting-a-refund', … }] }
 */
export function parseMarkdown(raw: string, defaults: DocumentDefaults): ParsedDocument {
  const source = raw.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const { data, content } = readFrontMatter(source);
  const body = stripMdx(rewriteGeneratorMarkup(content));
  const locate = locator(source, source.length - content.length);

  const slugger = new GithubSlugger();
  const sections: Section[] = [];
  const stack: { depth: number; text: string }[] = [];
  let current: Section = { headingPath: [], anchor: null, blocks: [] };
  let firstH1: string | null = null;

  const visit = (tokens: Token[]): void => {
    for (const token of tokens) {
      if (token.type === 'heading') {
        const heading = token as Tokens.Heading;
        let text = plainText(heading.tokens).replace(/\s+/g, ' ').trim();
        // VitePress and MkDocs headings may name their anchor (`## Options {#options}`); the site links to it.
        const custom = /\s*\{\s*#([\w-]+)\s*\}$/.exec(text);
        if (custom) text = text.slice(0, custom.index);
        // Every heading goes through the slugger, so duplicates get the same -1, -2 suffixes as on GitHub.
        const slug = slugger.slug(text);
        const anchor = custom ? custom[1]! : slug;
        if (!text) continue;
        if (heading.depth === 1 && firstH1 === null) firstH1 = text;
        while (stack.length > 0 && stack[stack.length - 1]!.depth >= heading.depth) stack.pop();
        stack.push({ depth: heading.depth, text });
        sections.push(current);
        current = { headingPath: stack.map((h) => h.text), anchor, blocks: [] };
      } else if (token.type === 'code' && (token as Tokens.Code).codeBlockStyle === 'indented') {
        // MDX has no indented code blocks: indentation comes from component bodies (`<Banner>\n    text`),
        // so the content is Markdown and is read again as such.
        visit(marked.lexer((token as Tokens.Code).text));
      } else {
        const block = toBlock(token);
        if (block) current.blocks.push(locate(block, token.raw.trim()));
      }
    }
  };
  visit(marked.lexer(body));
  sections.push(current);

  const title = stringField(data.title) ?? firstH1 ?? defaults.fileTitle;
  return {
    title,
    description: stringField(data.description),
    url: stringField(data.url) ?? defaults.url,
    format: 'markdown',
    sections: sections.filter((s) => s.blocks.length > 0),
    tags: tagsField(data.tags ?? data.keywords),
    language: stringField(data.lang) ?? stringField(data.language),
    publishedAt: dateField(data.published_at ?? data.publishedAt ?? data.date ?? data.published),
  };
}

/**
 * Finds blocks in the source text, in order, for character offsets. A block is usually a verbatim slice
 * of the file; when MDX stripping changed it, its first and last lines are looked for instead, and when
 * even those are not found it gets no offsets rather than wrong ones.
 */
function locator(source: string, from: number): (block: Block, raw: string) => Block {
  let cursor = from;
  return (block, raw) => {
    // A code block is rebuilt from its fence (fence-meta.ts): its Markdown as written is looked for first.
    const verbatim = source.indexOf(raw, cursor) >= 0 ? raw : block.markdown;
    let start = source.indexOf(verbatim, cursor);
    let end = start < 0 ? -1 : start + verbatim.length;
    if (start < 0) {
      // A note made from a callout component (mdx.ts) is quoted with "> "; its lines are in the source without.
      const lines = block.markdown
        .split('\n')
        .map((l) => l.trim().replace(/^>\s?/, ''))
        .filter((l) => l.length > 0);
      const first = lines[0]?.slice(0, 60);
      const last = lines[lines.length - 1]?.slice(-60);
      start = first ? source.indexOf(first, cursor) : -1;
      const lastAt = start >= 0 && last ? source.indexOf(last, start) : -1;
      end = lastAt < 0 ? -1 : lastAt + last!.length;
    }
    if (start < 0 || end < 0) return block;
    cursor = end;
    return { ...block, start, end };
  };
}

function tagsField(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
  return list.map((t) => (typeof t === 'string' || typeof t === 'number' ? String(t).trim() : '')).filter(Boolean);
}

/** YAML dates arrive as Date objects, strings as strings; anything unparseable is dropped. */
export function dateField(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value !== 'string' || !value.trim()) return null;
  const date = new Date(value.trim());
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

function toBlock(token: Token): Block | null {
  switch (token.type) {
    case 'space':
    case 'hr':
    case 'def':
      return null;
    case 'code': {
      const code = token as Tokens.Code;
      const info = readFenceInfo(code.lang ?? '');
      const text = cleanCode(code.text, info);
      if (!text.trim()) return null;
      return {
        kind: 'code',
        markdown: codeMarkdown(info.lang, text, info.label),
        lang: info.lang,
        code: text,
        ...(info.label ? { label: info.label } : {}),
      };
    }
    case 'list': {
      const list = token as Tokens.List;
      return { kind: 'list', markdown: list.raw.trim(), items: list.items.map((item) => item.raw.trim()) };
    }
    case 'table':
      return { kind: 'table', markdown: compactTable(token.raw) };
    case 'blockquote': {
      // generator-markup.ts writes a note's title as its first line in bold.
      const title = /^>[ \t]?\*\*([^*\n]+)\*\*[ \t]*(?:\n|$)/.exec(token.raw.trim())?.[1]?.trim();
      return { kind: 'note', markdown: token.raw.trim(), ...(title ? { title } : {}) };
    }
    default: {
      const markdown = token.raw.trim();
      return markdown ? { kind: 'text', markdown } : null;
    }
  }
}

/** The text a reader sees in inline tokens (heading text for paths and slugs). */
function plainText(tokens: Token[] | undefined): string {
  let text = '';
  for (const token of tokens ?? []) {
    if (token.type === 'html') continue;
    const children = (token as { tokens?: Token[] }).tokens;
    if (children && children.length > 0) text += plainText(children);
    else if ('text' in token && typeof token.text === 'string') text += decodeEntities(token.text);
  }
  return text;
}

function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

function stringField(value: unknown): string | null {
  if (typeof value === 'string' && value.trim()) return value.trim();
  if (typeof value === 'number') return String(value);
  return null;
}
