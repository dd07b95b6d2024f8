/**
 * The Node server's files and pages: the base headers (server/http/security-headers.ts) on everything it
 * serves, and a CSP on its own pages (the demo and the demo docs; a CSP belongs to documents):
 * - the demo pages' CSP is what docs/widget.md asks of a site that embeds the widget, and stricter: nothing but
 *   this origin, no inline script or style, WebAssembly compilation for the embedder, blob: workers (the
 *   cross-origin shim), and Trusted Types enforced — so every demo visit checks that the widget runs under it.
 */
import type { MiddlewareHandler } from 'hono';
import { setBaseSecurityHeaders } from '../../http/security-headers.ts';

export const DEMO_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self' blob:",
  "connect-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
].join('; ');

export function securityHeaders(): MiddlewareHandler {
  return async function securityHeadersMiddleware(c, next) {
    await next();
    setBaseSecurityHeaders(c.res.headers);
    if (c.res.headers.get('Content-Type')?.startsWith('text/html'))
      c.res.headers.set('Content-Security-Policy', DEMO_PAGE_CSP);
  };
}
