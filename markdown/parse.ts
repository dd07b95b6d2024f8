/**
 * A small Markdown → HTML renderer for the subset documentation chunks use (paragraphs, headings, lists,
 * block quotes, fenced code, tables, emphasis, code spans, links). It replaces marked (≈ 15 KB gz), which
 * alone would have broken the chat UI's 40 KB budget.
 *
 * Safe by construction: every piece of source text is HTML-escaped before it is output, and the only tags
 * ever produced are the ones written below. Raw HTML in the Markdown therefore shows as text, images become
 * their alt text, and link targets are checked by the caller (DOMPurify hook) as a second line of defence.
 * Partial Markdown mid-stream is fine: an unclosed fence is code until the end, an unclosed `**` is text.
 */
import { escapeHtml } from './escape.ts';

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?/;
const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])\s+/;
const TABLE_SEP = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

export function markdownToHtml(markdown: string): string {
  return blocks(markdown.replace(/\r\n?/g, '\n').split('\n'));
}

function blocks(lines: string[]): string {
  let out = '';
  let i = 0;
  const paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length) out += `<p>${inline(paragraph.join('\n').trim())}</p>`;
    paragraph.length = 0;
  };
  while (i < lines.length) {
    const line = lines[i]!;
    let m: RegExpExecArray | null;
    if (!line.trim()) {
      flush();
      i++;
    } else if ((m = FENCE.exec(line))) {
      flush();
      const fence = m[1]!;
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.trim().startsWith(fence); i++) code.push(lines[i]!);
      i++;
      out += `<pre><code>${escapeHtml(code.join('\n'))}</code></pre>`;
    } else if ((m = HEADING.exec(line))) {
      flush();
      // Headings inside an answer are styled as strong paragraphs: real <h1>… would break the page outline.
      out += `<p class="md-heading"><strong>${inline(m[2]!)}</strong></p>`;
      i++;
    } else if (RULE.test(line) && !paragraph.length) {
      out += '<hr>';
      i++;
    } else if (QUOTE.test(line)) {
      flush();
      const quoted: string[] = [];
      for (; i < lines.length && QUOTE.test(lines[i]!); i++) quoted.push(lines[i]!.replace(QUOTE, ''));
      out += `<blockquote>${blocks(quoted)}</blockquote>`;
    } else if ((m = ITEM.exec(line)) && (!paragraph.length || /^[-*+]|^1[.)]/.test(m[2]!))) {
      flush();
      i = list(lines, i, (html) => (out += html));
    } else if (
      line.includes('|') &&
      i + 1 < lines.length &&
      TABLE_SEP.test(lines[i + 1]!) &&
      lines[i + 1]!.includes('-')
    ) {
      flush();
      const rows: string[] = [line];
      for (i += 2; i < lines.length && lines[i]!.includes('|') && lines[i]!.trim(); i++) rows.push(lines[i]!);
      out += table(rows);
    } else {
      paragraph.push(line);
      i++;
    }
  }
  flush();
  return out;
}

/** A list starting at `start`; items are separated by markers at the list's indent, nested lists are indented. */
function list(lines: string[], start: number, emit: (html: string) => void): number {
  const first = ITEM.exec(lines[start]!)!;
  const indent = first[1]!.length;
  const ordered = /\d/.test(first[2]!);
  const items: string[][] = [];
  let i = start;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const m = ITEM.exec(line);
    if (m && m[1]!.length === indent && /\d/.test(m[2]!) === ordered) {
      items.push([line.slice(m[0].length)]);
    } else if (!line.trim()) {
      // A blank line ends the list unless the next line continues it (indented or another item).
      const next = lines[i + 1];
      if (next === undefined || !(/^\s{2,}/.test(next) || ITEM.exec(next)?.[1]!.length === indent)) break;
      items[items.length - 1]!.push('');
    } else if (/^\s/.test(line) || !ITEM.test(line)) {
      if (!/^\s/.test(line) && (FENCE.test(line) || HEADING.test(line) || QUOTE.test(line))) break;
      items[items.length - 1]!.push(line.replace(/^\s{1,4}/, ''));
    } else break;
  }
  for (const item of items) while (item.length > 1 && item[item.length - 1] === '') item.pop();
  const startAttr = ordered && parseInt(first[2]!, 10) !== 1 ? ` start="${parseInt(first[2]!, 10)}"` : '';
  const tag = ordered ? 'ol' : 'ul';
  const body = items
    .map((item) => {
      const html = blocks(item);
      // Tight items: drop the single wrapping <p> so a plain list does not get paragraph spacing.
      return `<li>${item.length === 1 || !item.includes('') ? html.replace(/^<p>([\s\S]*?)<\/p>/, '$1') : html}</li>`;
    })
    .join('');
  emit(`<${tag}${startAttr}>${body}</${tag}>`);
  return i;
}

function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

function table(rows: string[]): string {
  const [head, ...body] = rows.map(cells);
  const th = head!.map((c) => `<th>${inline(c)}</th>`).join('');
  const tr = body.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`).join('');
  return `<table><thead><tr>${th}</tr></thead><tbody>${tr}</tbody></table>`;
}

// Code spans | images | links | autolinks | strong | emphasis | strike-through. Order matters: code first.
const INLINE =
  /(`+)([\s\S]*?[^`])\1(?!`)|!\[([^\]]*)\]\([^)]*\)|\[([^\]]+)\]\(\s*<?([^)\s]*?)>?(?:\s+["'][^"']*["'])?\s*\)|<(https?:\/\/[^>\s]+)>|\*\*(?=\S)([\s\S]*?\S)\*\*|__(?=\S)([\s\S]*?\S)__(?!\w)|(?<![\w*])\*(?=[^\s*])([\s\S]*?[^\s*])\*(?!\*)|(?<![\w_])_(?=[^\s_])([\s\S]*?[^\s_])_(?![\w_])|~~(?=\S)([\s\S]*?\S)~~/g;

export function inline(text: string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    out += escapeHtml(text.slice(last, m.index)).replace(/\n/g, ' ');
    last = m.index + m[0].length;
    const [, , code, alt, label, href, auto, strong1, strong2, em1, em2, del] = m;
    if (code !== undefined) out += `<code>${escapeHtml(code.replace(/^ (.*) $/s, '$1'))}</code>`;
    else if (alt !== undefined) out += escapeHtml(alt);
    else if (label !== undefined) out += `<a href="${escapeHtml(href ?? '')}">${inline(label)}</a>`;
    else if (auto !== undefined) out += `<a href="${escapeHtml(auto)}">${escapeHtml(auto)}</a>`;
    else if (strong1 !== undefined || strong2 !== undefined) out += `<strong>${inline(strong1 ?? strong2!)}</strong>`;
    else if (em1 !== undefined || em2 !== undefined) out += `<em>${inline(em1 ?? em2!)}</em>`;
    else if (del !== undefined) out += `<del>${inline(del)}</del>`;
  }
  return out + escapeHtml(text.slice(last)).replace(/\n/g, ' ');
}
