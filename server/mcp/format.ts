/**
 * What the MCP tools return: plain text an assistant can quote as it stands — each passage or source with its
 * title, section path and a link to the passage, and an answer's `[n]` markers matching its numbered sources,
 * as the widget shows them (widget/render/sources.ts builds the same text-fragment links in the browser).
 */
import type { Citation, Refusal, Related } from '../../protocol/index.ts';
import { excerpt } from '../chat/excerpt.ts';
import type { AnswerOutcome } from '../chat/answer.ts';
import type { SearchHit } from '../retrieval/index.ts';

/** Longest passage a search result quotes: a section's worth, not a whole page. */
export const PASSAGE_CHARS = 1200;

/**
 * An absolute link to the passage: relative URLs (a knowledge base ingested from files with `url: /docs/x`)
 * resolved against the server's origin, and a web page deep-linked with a text fragment (`#:~:text=`) made of
 * the passage's first words. Anything but http(s) is left out: an assistant must not be handed `javascript:`.
 */
export function passageLink(url: string | null, passage: string, origin: string): string | null {
  if (!url) return null;
  let href: URL;
  try {
    href = new URL(url, origin);
  } catch {
    return null;
  }
  if (href.protocol !== 'https:' && href.protocol !== 'http:') return null;
  // The excerpt drops every `_` (emphasis), but on the page `CHAT_EVIDENCE_THRESHOLD` keeps them: a fragment
  // must match the page's text, so words that held one are put back from the passage.
  const words = excerpt(passage, 400)
    .replace(/…$/, '')
    .split(' ')
    .filter(Boolean)
    .slice(0, 6)
    .map((word) => underscored(passage, word));
  if (words.length < 2) return href.href;
  // In a text directive `-`, `,` and `&` are syntax and must be percent-encoded inside the text.
  const text = encodeURIComponent(words.join(' ')).replace(/-/g, '%2D').replace(/,/g, '%2C');
  return `${href.href}${href.hash ? '' : '#'}:~:text=${text}`;
}

function underscored(passage: string, word: string): string {
  if (word.length < 3) return word;
  const pattern = word
    .split('')
    .map((ch) => ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('_?');
  return new RegExp(pattern).exec(passage)?.[0] ?? word;
}

/** "Title › Heading › Subheading": where the passage sits in its page. */
export function sectionPath(title: string, meta: { heading_path?: string[]; section?: string | null }): string {
  const headings = Array.isArray(meta.heading_path) && meta.heading_path.length > 0 ? meta.heading_path : [];
  const path = headings.length > 0 ? headings : meta.section ? [meta.section] : [];
  // A page's H1 usually repeats its title.
  return [title, ...path.filter((h, i) => !(i === 0 && h === title))].join(' › ');
}

/**
 * The passage as stored (Markdown, so `CHAT_EVIDENCE_THRESHOLD` keeps its underscores and code stays code),
 * cut at a word within PASSAGE_CHARS, as a Markdown block quote.
 */
export function quoted(content: string): string {
  let text = content.trim();
  if (text.length > PASSAGE_CHARS) {
    const cut = text.slice(0, PASSAGE_CHARS - 1);
    text = `${cut.slice(0, Math.max(cut.lastIndexOf(' '), PASSAGE_CHARS / 2)).trimEnd()}…`;
  }
  return text
    .split('\n')
    .map((line) => (line.trim() ? `> ${line}` : '>'))
    .join('\n');
}

export function formatSearch(query: string, hits: SearchHit[], origin: string): string {
  if (hits.length === 0) return `No passage of the documentation matches "${query}".`;
  const blocks = hits.map((hit) => {
    const link = passageLink(hit.url, hit.content, origin);
    return [`[${hit.rank}] ${sectionPath(hit.title, hit.meta)}`, link ? `URL: ${link}` : null, '', quoted(hit.content)]
      .filter((line) => line !== null)
      .join('\n');
  });
  return `${hits.length} passage${hits.length === 1 ? '' : 's'} from the documentation for "${query}", best first. Quote them with their URL.\n\n${blocks.join('\n\n')}`;
}

function sourceLine(source: Citation, origin: string): string {
  const link = passageLink(source.url, source.excerpt ?? '', origin);
  const where =
    source.section && source.section !== source.title ? `${source.title} › ${source.section}` : source.title;
  return `[${source.n}] ${where}${link ? ` — ${link}` : ''}`;
}

function pageLine(page: Related, origin: string): string {
  const link = passageLink(page.url, '', origin);
  return `- ${page.section ? `${page.title} › ${page.section}` : page.title}${link ? ` — ${link}` : ''}`;
}

/** The extractive answer with its numbered sources: what the widget shows, as text. */
export function formatAnswer(outcome: AnswerOutcome, origin: string): string {
  const sources = [...outcome.citations].sort((a, b) => a.n - b.n).map((c) => sourceLine(c, origin));
  return [
    outcome.text,
    '',
    'Sources:',
    ...sources,
    '',
    `Confidence: ${outcome.confidence}. The answer quotes the documentation verbatim; each [n] is the numbered source.`,
    ...(outcome.warning ? [`Note: ${outcome.warning}`] : []),
  ].join('\n');
}

/** A refusal: no answer, why, and the closest pages only as pages that may not answer it. */
export function formatRefusal(refusal: Refusal, origin: string): string {
  const lines = [
    `Not answered from the documentation (reason: ${refusal.reason}).`,
    refusal.message,
    'Do not present an answer to this question as coming from this documentation.',
  ];
  if (refusal.closest && refusal.closest.length > 0) {
    lines.push('', 'Closest pages (they may not answer this):', ...refusal.closest.map((p) => pageLine(p, origin)));
  }
  return lines.join('\n');
}
