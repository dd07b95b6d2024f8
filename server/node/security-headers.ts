/**
 * Headers every response of the Node server carries, and the policy of its own pages (the demo and the demo
 * docs). The API's JSON and SSE and the widget's files need only the first two; a CSP belongs to documents.
 * - `X-Content-Type-Options: nosniff`: a file is only ever what its Content-Type says (no JSON run as script);
 * - `Referrer-Policy: strict-origin-when-cross-origin`: citation links leave with the origin, not the path;
 * - the demo pages' CSP is what the README asks of a site that embeds the widget, and stricter: nothing but
 *   this origin, no inline script or style, WebAssembly compilation for the embedder, blob: workers (the
 *   cross-origin shim), and Trusted Types enforced — so every demo visit checks that the widget runs under it.
 */
import type { MiddlewareHandler } from 'hono';

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
    c.res.headers.set('X-Content-Type-Options', 'nosniff');
    c.res.headers.set('Referrer-Policy', 'strict-origin-when-cross-origin');
    if (c.res.headers.get('Content-Type')?.startsWith('text/html')) c.res.headers.set('Content-Security-Policy', DEMO_PAGE_CSP);
  };
}
