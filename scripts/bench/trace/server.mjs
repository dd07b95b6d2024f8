/**
 * A preload for a bench server (`NODE_OPTIONS="--import ./scripts/bench/trace/server.mjs"`): where a request's
 * time goes inside the Node process, for telling a wait before the app from the app's own time. It stamps
 * Node's `connection` and `request` events and each response's `finish`, and records event-loop stalls over
 * 60 ms as they happen (a 10 ms timer's lateness, with the time since the first request): a histogram's p99
 * hides one 2 s stall among 2,000 samples. At exit it writes `<dir>/server-<pid>.json` (dir:
 * KB_TRACE_DIR, default the working directory): the stalls, accept → first request of each connection, and
 * request → finish by method, path and status.
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const STALL_MS = 60;
const TICK_MS = 10;
const acceptToRequest = [];
const byRoute = {};
const stalls = [];
let first = null;
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  if (first !== null && now - last > STALL_MS)
    stalls.push({ at_ms: Math.round(last - first), ms: Math.round(now - last - TICK_MS) });
  last = now;
}, TICK_MS).unref();

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function traced(name, a, b) {
  const now = performance.now();
  if (name === 'connection') {
    a.kbAccepted = now;
    a.kbServed = 0;
  }
  if (name === 'request') {
    first ??= now;
    const socket = a.socket;
    if (socket && socket.kbServed++ === 0) acceptToRequest.push(now - socket.kbAccepted);
    b.once('finish', () => {
      const key = `${a.method} ${a.url.split('?')[0]} ${b.statusCode}`;
      byRoute[key] ??= [];
      byRoute[key].push(performance.now() - now);
    });
  }
  // biome-ignore lint/complexity/noArguments: every argument of the event goes on to its listeners
  return emit.apply(this, arguments);
};

function percentiles(values) {
  const s = [...values].sort((x, y) => x - y);
  const at = (q) => (s.length ? Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))] * 10) / 10 : null);
  return { n: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: at(1) };
}

process.on('exit', () => {
  const out = {
    pid: process.pid,
    stalls,
    accept_to_request_ms: percentiles(acceptToRequest),
    request_to_finish_ms: Object.fromEntries(Object.entries(byRoute).map(([k, v]) => [k, percentiles(v)])),
  };
  writeFileSync(path.join(process.env.KB_TRACE_DIR ?? '.', `server-${process.pid}.json`), JSON.stringify(out, null, 1));
});
