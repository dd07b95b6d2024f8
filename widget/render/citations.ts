/**
 * Inline `[n]` markers → citation badges tied to the answer's sources: a focusable button with a
 * hover/focus preview (title + excerpt). Built with DOM APIs on the sanitized fragment, so source titles and
 * excerpts are only ever text.
 */
import type { Citation } from '../../protocol/chat.ts';
import { format, type KbChatStrings } from '../i18n.ts';
import { enhanceBlocks } from './blocks.ts';
import { renderMarkdownFragment } from '../../markdown/render.ts';

const MARKER = /\[(\d{1,3})\]/g;

/** The first ~200 characters of a passage, as plain text (Markdown syntax removed). */
export function plainExcerpt(text: string | undefined, max = 200): string {
  if (!text) return '';
  const plain = text
    .replace(/[`*_#>|~]|\[(\d+)\]/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length > max ? `${plain.slice(0, max).replace(/\s+\S*$/, '')}…` : plain;
}

/**
 * The answer's Markdown as sanitized DOM, with `[n]` markers that match a source turned into badges (in
 * prose, list items and table cells; never inside code or links) and controls around code blocks and tables.
 */
export function answerElement(
  markdown: string,
  citations: readonly Citation[],
  idPrefix: string,
  s: KbChatStrings,
): HTMLElement {
  const root = document.createElement('div');
  root.className = 'markdown';
  root.append(renderMarkdownFragment(markdown));
  const byNumber = new Map(citations.map((c) => [c.n, c]));
  // A source is often cited more than once; each badge's preview needs an id of its own (aria-describedby).
  let count = 0;
  for (const text of proseTexts(root)) {
    const value = text.data;
    if (!MARKER.test(value)) continue;
    MARKER.lastIndex = 0;
    const parts: (string | Node)[] = [];
    let last = 0;
    for (const m of value.matchAll(MARKER)) {
      const citation = byNumber.get(Number(m[1]));
      if (!citation) continue;
      parts.push(value.slice(last, m.index), badge(citation, `${idPrefix}-${++count}`, s));
      last = m.index + m[0].length;
    }
    if (!parts.length) continue;
    parts.push(value.slice(last));
    text.replaceWith(...parts);
  }
  enhanceBlocks(root, s);
  return root;
}

/** The text nodes outside code and links: where `[n]` is a marker rather than part of the content. */
function proseTexts(root: Node): Text[] {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) =>
      node.parentElement?.closest('code, pre, a') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
  });
  const texts: Text[] = [];
  while (walker.nextNode()) texts.push(walker.currentNode as Text);
  return texts;
}

function badge(citation: Citation, id: string, s: KbChatStrings): HTMLElement {
  const wrap = document.createElement('span');
  wrap.className = 'cite';
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'cite__badge';
  button.setAttribute('part', 'citation');
  button.dataset.n = String(citation.n);
  button.setAttribute('aria-label', format(s.source, { n: citation.n }));
  button.setAttribute('aria-describedby', id);
  button.textContent = String(citation.n);
  const preview = document.createElement('span');
  preview.className = 'cite__preview';
  preview.id = id;
  preview.setAttribute('role', 'tooltip');
  preview.setAttribute('part', 'citation-preview');
  const title = document.createElement('strong');
  title.textContent = citation.title;
  preview.append(title);
  const excerpt = plainExcerpt(citation.excerpt);
  if (excerpt) preview.append(document.createElement('br'), excerpt);
  wrap.append(button, preview);
  return wrap;
}

/** Plain text of an answer for the clipboard: no Markdown syntax, no `[n]` markers (code keeps `[0]`), no sources. */
export function plainAnswer(markdown: string): string {
  const root = document.createElement('div');
  root.append(renderMarkdownFragment(markdown));
  for (const text of proseTexts(root)) text.data = text.data.replace(/ ?\[\d{1,3}\]/g, '');
  for (const cell of root.querySelectorAll('th:not(:last-child), td:not(:last-child)')) cell.append('\t');
  for (const block of root.querySelectorAll('p, li, pre, blockquote, tr')) block.append('\n');
  return (root.textContent ?? '').replace(/\n{3,}/g, '\n\n').trim();
}
