/** What the crawler (crawl.ts) reads from a response: its format, and an HTML page's links and canonical URL. */
import { Parser } from 'htmlparser2';
import type { SourceType } from './document.ts';

/** The format a response is parsed as, from its content type (and a Markdown file's extension); null: not read. */
export function formatOfResponse(contentType: string | null, url: string): SourceType | null {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'application/pdf') return 'pdf';
  if (type === 'text/markdown' || type === 'text/x-markdown') return 'markdown';
  const path = new URL(url).pathname.toLowerCase();
  if (/\.(md|mdx|markdown)$/.test(path) && (type === 'text/plain' || type === '')) return 'markdown';
  if (type === 'text/plain') return 'text';
  return null;
}

/** Links and the canonical URL of an HTML page, in one streaming pass. */
export function scanHtml(html: string): { links: string[]; canonical: string | null } {
  const links: string[] = [];
  let canonical: string | null = null;
  let nofollow = false;
  const parser = new Parser({
    onopentag(name, attrs) {
      if (name === 'a' && attrs.href && !/\bnofollow\b/i.test(attrs.rel ?? '')) links.push(attrs.href);
      if (name === 'link' && /\bcanonical\b/i.test(attrs.rel ?? '') && attrs.href && canonical === null)
        canonical = attrs.href;
      if (name === 'meta' && attrs.name?.toLowerCase() === 'robots' && /\bnofollow\b/i.test(attrs.content ?? ''))
        nofollow = true;
    },
  });
  parser.end(html);
  return { links: nofollow ? [] : links, canonical };
}

/** `raw` resolved against `base`, without its #fragment; null unless it is an http(s) URL. */
export function safeUrl(raw: string, base: string): URL | null {
  try {
    const url = new URL(raw, base);
    url.hash = '';
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

export function stripHash(url: string): string {
  const u = new URL(url);
  u.hash = '';
  return u.toString();
}
