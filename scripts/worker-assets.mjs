/** What the Worker's static assets must satisfy; shared by scripts/build-worker.mjs and the workerd test. */

/** Cloudflare Workers' limit per static asset (wrangler refuses larger files, even in a dry run). */
export const MAX_ASSET_BYTES = 25 * 1024 * 1024;

/** In dist/public: the versioned URLs of this build's files, read by the Worker (server/runtime/workers/worker.ts) for /api/config. */
export const ASSET_MANIFEST = 'kb-assets.json';

/** The console page's CSP: the same as the Node server gives its pages (DEMO_PAGE_CSP). */
export const ADMIN_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
].join('; ');

/**
 * dist/public/_headers (Cloudflare's format). The widget runs on other sites, so its script, model and wasm
 * are fetched cross-origin. The loader keeps its name (sites paste it), so browsers revalidate it on every
 * use (Cloudflare answers its ETag with 304); everything else is named by content or version (the chat UI
 * and embedder by hash, /ort/<ORT version>/, /models/v-<hash>/) and cached for a year. One rule sets each
 * path's Cache-Control: Cloudflare joins the values of every matching rule.
 */
export const ASSET_HEADERS = [
  '/*',
  '  Access-Control-Allow-Origin: *',
  // The base headers of every response (server/http/security-headers.ts; the API sets them itself).
  '  X-Content-Type-Options: nosniff',
  '  Referrer-Policy: strict-origin-when-cross-origin',
  '/kb-chat.js',
  '  Cache-Control: public, no-cache',
  '/kb-chat-ui.*',
  '  Cache-Control: public, max-age=31536000, immutable',
  '/kb-chat-embedder.*',
  '  Cache-Control: public, max-age=31536000, immutable',
  '/kb-chat-generator.*',
  '  Cache-Control: public, max-age=31536000, immutable',
  '/kb-chat-generative.*',
  '  Cache-Control: public, max-age=31536000, immutable',
  '/kb-chat-captcha.*',
  '  Cache-Control: public, max-age=31536000, immutable',
  '/ort/*',
  '  Cache-Control: public, max-age=31536000, immutable',
  '/models/v-*',
  '  Cache-Control: public, max-age=31536000, immutable',
  // The console: its page, script and styles keep their names (revalidated); the page gets the demo's strict
  // CSP (server/runtime/node/security-headers.ts) and may not be framed.
  '/admin/*',
  '  Cache-Control: public, no-cache',
  `  Content-Security-Policy: ${ADMIN_PAGE_CSP}`,
  `/${ASSET_MANIFEST}`,
  '  Cache-Control: no-store',
  '',
].join('\n');
