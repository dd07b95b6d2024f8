/**
 * `npx tsx scripts/bench/crowd.ts --servers http://127.0.0.1:18600,http://127.0.0.1:18601 [--visitors 200]
 *   [--questions 3]`
 *
 * Many visitors at once against Node servers already running (e.g. two on one DATABASE_URL, sharing
 * KB_JWT_SECRET, started with KB_SIGNUP_LIMIT=0 and a KB_RATE_LIMIT above --questions): visitor i signs in on
 * server i mod N and asks there; all ask at once, each its questions back to back (JSON answers, a 503 waits
 * its Retry-After as the widget does). Prints answered/refused/503/errors and the time to the whole answer
 * p50/p95/p99 — the whole JSON answer, so an upper bound of the streamed TTFB.
 */
import { parseArgs } from 'node:util';
import { percentile } from './stats.ts';

const { values } = parseArgs({
  options: {
    servers: { type: 'string' },
    visitors: { type: 'string', default: '200' },
    questions: { type: 'string', default: '3' },
  },
});
const servers = (values.servers ?? '').split(',').filter(Boolean);
if (servers.length === 0) throw new Error('--servers is required');
const visitors = Number(values.visitors);
const questions = Number(values.questions);
const ASKED = ['How do I deploy?', 'How do refunds work?', 'What is a custom domain?', 'How do I add a variable?'];

const tokens = await Promise.all(
  Array.from({ length: visitors }, async (_, i) => {
    const r = await fetch(`${servers[i % servers.length]}/api/auth/anonymous`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    if (!r.ok) throw new Error(`sign-in ${r.status}: ${await r.text()}`);
    return ((await r.json()) as { access_token: string }).access_token;
  }),
);
const counts = { answer: 0, refusal: 0, shed: 0, errors: 0 };
const times: number[] = [];
const started = performance.now();
await Promise.all(
  tokens.map(async (token, i) => {
    const base = servers[i % servers.length]!;
    for (let q = 0; q < questions; q++) {
      const body = JSON.stringify({ message: ASKED[(i + q) % ASKED.length], message_id: crypto.randomUUID() });
      for (;;) {
        const t0 = performance.now();
        try {
          const r = await fetch(`${base}/api/chat`, {
            method: 'POST',
            headers: {
              'Content-Type': 'application/json',
              Accept: 'application/json',
              Authorization: `Bearer ${token}`,
            },
            body,
          });
          const json = (await r.json()) as { type?: string };
          if (r.status === 503 && r.headers.get('Retry-After')) {
            counts.shed++;
            await new Promise((res) => setTimeout(res, Number(r.headers.get('Retry-After')) * 1000));
            continue;
          }
          if (r.status !== 200) counts.errors++;
          else {
            times.push(performance.now() - t0);
            if (json.type === 'answer') counts.answer++;
            else counts.refusal++;
          }
        } catch {
          counts.errors++;
        }
        break;
      }
    }
  }),
);
const wall = (performance.now() - started) / 1000;
const sorted = times.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    servers: servers.length,
    visitors,
    questions,
    ...counts,
    per_second: Number(((counts.answer + counts.refusal) / wall).toFixed(1)),
    whole_answer_ms: { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) },
    wall_s: Number(wall.toFixed(1)),
  }),
);
