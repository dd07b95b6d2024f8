/** What the Worker's static assets must satisfy; shared by scripts/build-worker.mjs and the workerd test. */

/** Cloudflare Workers' limit per static asset (wrangler refuses larger files, even in a dry run). */
export const MAX_ASSET_BYTES = 25 * 1024 * 1024;

/**
 * dist/public/_headers (Cloudflare's format). The widget runs on other sites, so its script, model and
 * wasm are fetched cross-origin; the ORT wasm never changes for a given file name.
 */
export const ASSET_HEADERS = ['/*', '  Access-Control-Allow-Origin: *', '/ort/*', '  Cache-Control: public, max-age=31536000, immutable', ''].join('\n');
