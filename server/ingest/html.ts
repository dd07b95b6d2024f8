/**
 * HTML reader (htmlparser2): title, description, canonical URL, language and publication date from the
 * head; from the main content (`<main>`, else `<article>`, else `[role=main]`, else `<body>`) the headings
 * become sections and paragraphs, lists, code and tables become Markdown blocks. Scripts, styles,
 * navigation, headers, footers, asides, forms and hidden elements are dropped. Block offsets point into the
 * HTML source, so a chunk can be traced back to the markup it came from.
 */
import GithubSlugger from 'github-slugger';
import { parseDocument } from 'htmlparser2';
import type { Block, DocumentDefaults, ParsedDocument, Section } from './document.ts';
import { dateField } from './markdown.ts';

/** The parts of domhandler's nodes this reader uses. */
interface Node {
  type: string;
  name?: string;
  attribs?: Record<string, string>;
  children?: Node[];
  data?: string;
  startIndex: number | null;
  endIndex: number | null;
}

const DROP = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'canvas',
  'nav',
  'header',
  'footer',
  'aside',
  'form',
  'iframe',
  'button',
  'select',
  'textarea',
  'head',
  'dialog',
  'menu',
]);
const HEADING = /^h([1-6])$/;
const TEXT_BLOCKS = new Set(['p', 'blockquote', 'figcaption', 'dt', 'dd', 'address', 'summary', 'caption', 'li']);

export function parseHtml(raw: string, defaults: DocumentDefaults): ParsedDocument {
  const html = raw.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const root = parseDocument(html, { withStartIndices: true, withEndIndices: true }) as unknown as Node;
  const all = (predicate: (n: Node) => boolean): Node[] => findAll(root, predicate);
  const meta = (key: string): string | null => {
    const node = all((n) => n.name === 'meta' && (n.attribs?.name === key || n.attribs?.property === key))[0];
    return node?.attribs?.content?.trim() || null;
  };

  const main =
    all((n) => n.name === 'main')[0] ??
    all((n) => n.name === 'article')[0] ??
    all((n) => n.attribs?.role === 'main')[0] ??
    all((n) => n.name === 'body')[0] ??
    root;

  const slugger = new GithubSlugger();
  const sections: Section[] = [];
  const stack: { depth: number; text: string }[] = [];
  let current: Section = { headingPath: [], anchor: null, blocks: [] };
  let firstH1: string | null = null;
  let inline: Node[] = [];

  const push = (block: Block | null): void => {
    if (block?.markdown) current.blocks.push(block);
  };
  const flush = (): void => {
    if (inline.length === 0) return;
    push(textBlock(inline));
    inline = [];
  };
  const visit = (node: Node): void => {
    if (node.type === 'text') return void inline.push(node);
    if (node.type !== 'tag' && node.type !== 'script' && node.type !== 'style') return;
    const name = node.name!.toLowerCase();
    if (DROP.has(name) || isHidden(node)) return;
    const heading = HEADING.exec(name);
    if (heading) {
      flush();
      const text = collapse(inlineMarkdown(node.children ?? [], false));
      const anchor = node.attribs?.id?.trim() || slugger.slug(text);
      if (!text) return;
      const depth = Number(heading[1]);
      if (depth === 1 && firstH1 === null) firstH1 = text;
      while (stack.length > 0 && stack[stack.length - 1]!.depth >= depth) stack.pop();
      stack.push({ depth, text });
      sections.push(current);
      current = { headingPath: stack.map((h) => h.text), anchor, blocks: [] };
    } else if (name === 'pre') {
      flush();
      push(codeBlock(node));
    } else if (name === 'ul' || name === 'ol') {
      flush();
      push(listBlock(node, name === 'ol'));
    } else if (name === 'table') {
      flush();
      push(tableBlock(node));
    } else if (TEXT_BLOCKS.has(name)) {
      flush();
      push(textBlock([node], name === 'blockquote' ? '> ' : ''));
    } else if (name === 'br' || name === 'hr' || !isInline(name)) {
      flush();
      for (const child of node.children ?? []) visit(child);
      flush();
    } else {
      inline.push(node);
    }
  };
  for (const child of main.children ?? []) visit(child);
  flush();
  sections.push(current);

  const titleNode = all((n) => n.name === 'title')[0];
  const title = collapse(textOf(titleNode)) || meta('og:title') || firstH1 || defaults.fileTitle;
  const canonical = all((n) => n.name === 'link' && /\bcanonical\b/i.test(n.attribs?.rel ?? ''))[0]?.attribs?.href;
  const htmlNode = all((n) => n.name === 'html')[0];
  return {
    title,
    description: meta('description') ?? meta('og:description'),
    url: resolveUrl(canonical, defaults.url) ?? defaults.url,
    format: 'html',
    sections: sections.filter((s) => s.blocks.length > 0),
    tags: (meta('keywords') ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
    language: htmlNode?.attribs?.lang?.trim() || meta('language') || null,
    publishedAt: dateField(meta('article:published_time') ?? meta('date') ?? meta('dc.date')),
  };
}

function findAll(node: Node, predicate: (n: Node) => boolean, out: Node[] = []): Node[] {
  for (const child of node.children ?? []) {
    if (predicate(child)) out.push(child);
    findAll(child, predicate, out);
  }
  return out;
}

function isHidden(node: Node): boolean {
  const a = node.attribs ?? {};
  return (
    'hidden' in a || a['aria-hidden'] === 'true' || a.role === 'navigation' || /display:\s*none/.test(a.style ?? '')
  );
}

const INLINE = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'cite',
  'code',
  'data',
  'del',
  'dfn',
  'em',
  'i',
  'img',
  'ins',
  'kbd',
  'label',
  'mark',
  'q',
  'rp',
  'rt',
  'ruby',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'var',
  'wbr',
]);
function isInline(name: string): boolean {
  return INLINE.has(name);
}

function span(nodes: Node[]): { start?: number; end?: number } {
  const first = nodes[0]?.startIndex;
  const last = nodes[nodes.length - 1]?.endIndex;
  return first != null && last != null ? { start: first, end: last + 1 } : {};
}

function textBlock(nodes: Node[], prefix = ''): Block | null {
  const markdown = collapse(inlineMarkdown(nodes, true));
  return markdown ? { kind: 'text', markdown: prefix + markdown, ...span(nodes) } : null;
}

function codeBlock(node: Node): Block | null {
  const code = textOf(node).replace(/^\n/, '').replace(/\s+$/, '');
  if (!code) return null;
  const classes = `${node.attribs?.class ?? ''} ${findAll(node, (n) => n.name === 'code')[0]?.attribs?.class ?? ''}`;
  const lang = /(?:language|lang)-([\w+-]+)/.exec(classes)?.[1] ?? '';
  return { kind: 'code', markdown: `\`\`\`${lang}\n${code}\n\`\`\``, lang, code, ...span([node]) };
}

function listBlock(node: Node, ordered: boolean): Block | null {
  const items = (node.children ?? [])
    .filter((c) => c.name === 'li' && !isHidden(c))
    .map((li, i) => {
      const text = collapse(inlineMarkdown(li.children ?? [], true));
      return text ? `${ordered ? `${i + 1}.` : '-'} ${text}` : '';
    })
    .filter(Boolean);
  return items.length > 0 ? { kind: 'list', markdown: items.join('\n'), items, ...span([node]) } : null;
}

function tableBlock(node: Node): Block | null {
  const rows = findAll(node, (n) => n.name === 'tr').map((tr) =>
    (tr.children ?? [])
      .filter((c) => c.name === 'td' || c.name === 'th')
      .map((cell) => collapse(inlineMarkdown(cell.children ?? [], true)).replace(/\|/g, '\\|')),
  );
  const width = Math.max(0, ...rows.map((r) => r.length));
  if (width === 0) return null;
  const line = (cells: string[]): string =>
    `| ${Array.from({ length: width }, (_, i) => cells[i] ?? '').join(' | ')} |`;
  const [head, ...body] = rows;
  const markdown = [line(head!), line(Array(width).fill('---')), ...body.map(line)].join('\n');
  return { kind: 'table', markdown, ...span([node]) };
}

/** Inline content as Markdown: emphasis, inline code and absolute links kept, everything else as text. */
function inlineMarkdown(nodes: Node[], links: boolean): string {
  let out = '';
  for (const node of nodes) {
    if (node.type === 'text') {
      out += node.data ?? '';
      continue;
    }
    if (node.type !== 'tag') continue;
    const name = node.name!.toLowerCase();
    if (DROP.has(name) || isHidden(node)) continue;
    const inner = (): string => inlineMarkdown(node.children ?? [], links);
    if (name === 'br') out += ' ';
    else if (name === 'code' || name === 'kbd' || name === 'samp') out += `\`${textOf(node).replace(/`/g, "'")}\``;
    else if (name === 'strong' || name === 'b') out += wrap(inner(), '**');
    else if (name === 'em' || name === 'i') out += wrap(inner(), '*');
    else if (name === 'img') out += node.attribs?.alt ? ` ${node.attribs.alt} ` : '';
    else if (name === 'a' && links && /^https?:\/\//.test(node.attribs?.href ?? '')) {
      const text = collapse(inner());
      out += text ? `[${text}](${node.attribs!.href})` : '';
    } else out += isInline(name) ? inner() : ` ${inner()} `;
  }
  return out;
}

function wrap(text: string, mark: string): string {
  const trimmed = collapse(text);
  return trimmed ? `${mark}${trimmed}${mark}` : '';
}

function textOf(node: Node | undefined): string {
  if (!node) return '';
  if (node.type === 'text') return node.data ?? '';
  if (node.name && (node.name === 'script' || node.name === 'style')) return '';
  return (node.children ?? []).map(textOf).join('');
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function resolveUrl(href: string | undefined, base: string | null): string | null {
  if (!href?.trim()) return null;
  try {
    return new URL(href.trim(), base ?? undefined).toString();
  } catch {
    return null;
  }
}
