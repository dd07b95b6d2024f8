/**
 * A preload for the crowd client (`NODE_OPTIONS="--import ./scripts/bench/trace/client.mjs" npx tsx
 * scripts/bench/crowd.ts …`): where a request's time goes on the client's side, from undici's diagnostics
 * channels — created → headers written (the client's own wait: its event loop, a connection), headers →
 * body written, body written → response headers read (the network, the server, and the client reading).
 * On the same cores as the servers, the client's wait is part of what a crowd measures. At exit it writes
 * `<dir>/client-<pid>.json` (dir: KB_TRACE_DIR, default the working directory), by path and status.
 */
import diagnostics from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const times = new WeakMap();
const done = [];
diagnostics.subscribe('undici:request:create', ({ request }) => {
  times.set(request, { path: request.path, created: performance.now() });
});
diagnostics.subscribe('undici:client:sendHeaders', ({ request }) => {
  const t = times.get(request);
  if (t) t.headersSent = performance.now();
});
diagnostics.subscribe('undici:request:bodySent', ({ request }) => {
  const t = times.get(request);
  if (t) t.bodySent = performance.now();
});
diagnostics.subscribe('undici:request:headers', ({ request, response }) => {
  const t = times.get(request);
  if (!t) return;
  t.headers = performance.now();
  t.status = response.statusCode;
  done.push(t);
});

function percentiles(values) {
  const s = values.filter(Number.isFinite).sort((x, y) => x - y);
  const at = (q) => (s.length ? Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))] * 10) / 10 : null);
  return { n: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

process.on('exit', () => {
  const out = {};
  for (const key of new Set(done.map((t) => `${t.path} ${t.status}`))) {
    const group = done.filter((t) => `${t.path} ${t.status}` === key);
    out[key] = {
      created_to_headers_sent_ms: percentiles(group.map((t) => t.headersSent - t.created)),
      headers_to_body_sent_ms: percentiles(group.map((t) => t.bodySent - t.headersSent)),
      body_sent_to_response_headers_ms: percentiles(group.map((t) => t.headers - (t.bodySent ?? t.headersSent))),
    };
  }
  writeFileSync(path.join(process.env.KB_TRACE_DIR ?? '.', `client-${process.pid}.json`), JSON.stringify(out, null, 1));
});
