/** Small string helpers shared by the render functions. */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

const SAFE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

/**
 * Return `href` if it is safe to put in a link, else null. Only http(s) and mailto are allowed (no
 * `javascript:`, `data:`, `vbscript:` …). Relative URLs are resolved against the page, which also normalises
 * tricks such as `java\tscript:` the way the browser would.
 */
export function safeHref(href: string | null | undefined): string | null {
  if (!href) return null;
  let url: URL;
  try {
    url = new URL(href, document.baseURI);
  } catch {
    return null;
  }
  return SAFE_PROTOCOLS.has(url.protocol) ? url.href : null;
}
