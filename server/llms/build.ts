/**
 * The llms.txt files (https://llmstxt.org): `/llms.txt`, a Markdown index of the knowledge base's pages —
 * a title, a summary, then one line per page with its link and description, grouped by section — and
 * `/llms-full.txt`, the pages' text. Both from the enabled, ready documents, as the widget answers from.
 */
import type { AssistantPage } from '../store/types.ts';

/** Past this much text, /llms-full.txt stops and says so: it is held in memory and sent whole. */
export const FULL_TEXT_MAX_CHARS = 8 * 1024 * 1024;

/** The page's absolute http(s) link, or null (a file without a URL, or a scheme that is not the web's). */
export function pageUrl(url: string | null, origin: string): string | null {
  if (!url) return null;
  try {
    const href = new URL(url, origin);
    return href.protocol === 'https:' || href.protocol === 'http:' ? href.href : null;
  } catch {
    return null;
  }
}

/** A page's section: its own (`meta.section`), else the folder of its URL path ("docs" for /docs/x), else none. */
export function sectionOf(page: AssistantPage, origin: string): string {
  if (page.section?.trim()) return page.section.trim();
  const url = pageUrl(page.url, origin);
  const folders = url ? new URL(url).pathname.split('/').filter(Boolean).slice(0, -1) : [];
  return folders.length > 0 ? folders.map(decodeSegment).join(' / ') : 'Pages';
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Text on one line, without the Markdown that would break the list item it goes in. */
function inline(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/([[\]])/g, '\\$1')
    .trim();
}

export function llmsIndex(pages: AssistantPage[], origin: string): string {
  const host = new URL(origin).host;
  const sections = new Map<string, string[]>();
  for (const page of pages) {
    const url = pageUrl(page.url, origin);
    const title = inline(page.title) || 'Untitled';
    const description = inline(page.description);
    const line = `- ${url ? `[${title}](${url})` : title}${description ? `: ${description}` : ''}`;
    const section = sectionOf(page, origin);
    sections.set(section, [...(sections.get(section) ?? []), line]);
  }
  const parts = [
    `# ${host} documentation`,
    '',
    `> The ${pages.length} page${pages.length === 1 ? '' : 's'} of this documentation. Their full text: ${origin}/llms-full.txt. Cited answers from them: the MCP server at ${origin}/mcp.`,
  ];
  for (const [section, lines] of [...sections].sort(([a], [b]) => a.localeCompare(b))) {
    parts.push('', `## ${section}`, '', ...lines);
  }
  return `${parts.join('\n')}\n`;
}

/**
 * Neighbouring chunks of a section overlap (server/ingest/chunker.ts repeats the last sentences of one at the
 * start of the next): the repeat is dropped, so the page's text reads once.
 */
export function withoutOverlap(previous: string, next: string): string {
  const max = Math.min(previous.length, next.length, 2000);
  for (let length = max; length >= 20; length -= 1) {
    if (previous.endsWith(next.slice(0, length))) return next.slice(length).trimStart();
  }
  return next;
}

export function llmsFull(pages: AssistantPage[], origin: string): string {
  const parts: string[] = [`# ${new URL(origin).host} documentation: full text`, ''];
  let size = 0;
  for (const page of pages) {
    const url = pageUrl(page.url, origin);
    const chunks = page.chunks ?? [];
    const text = chunks.map((chunk, i) => (i === 0 ? chunk : withoutOverlap(chunks[i - 1]!, chunk))).filter(Boolean);
    const block = [`## ${inline(page.title) || 'Untitled'}`, ...(url ? [`Source: ${url}`] : []), '', text.join('\n\n')];
    const joined = block.join('\n');
    if (size + joined.length > FULL_TEXT_MAX_CHARS) {
      parts.push(`(The rest is left out: this file stops at ${FULL_TEXT_MAX_CHARS} characters.)`, '');
      break;
    }
    size += joined.length;
    parts.push(joined, '');
  }
  return parts.join('\n');
}
