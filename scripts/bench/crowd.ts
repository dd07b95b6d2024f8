/**
 * `npx tsx scripts/bench/crowd.ts --servers http://127.0.0.1:18300,http://127.0.0.1:18301 [--visitors 200]
 *   [--questions 3]`
 *
 * Many visitors at once against Node servers already running (e.g. two on one DATABASE_URL, sharing
 * KB_JWT_SECRET and KB_ANSWER_WRITE_KEY, started with KB_SIGNUP_LIMIT=0 and a KB_RATE_LIMIT above
 * --questions): visitor i signs in on server i mod N and asks there, as the widget asks — the question
 * embedded by the test-double model, the answer streamed and read to its end (concurrency.ts, the scale
 * bench's crowd); a 503 waits its Retry-After. Prints the run as JSON with the machine's 1-minute load
 * average before and after: on a shared machine a latency without it cannot be compared.
 *
 * TTFB is what a visitor waits for: request sent → the first byte of the answer's body, which the server
 * writes only once the answer is ready (the stream's `answer_start`; the first words follow at once —
 * `first_delta_ms`). It is counted over the questions served; answers per second stands beside it, so
 * shedding everyone cannot pass for speed. This client runs on the same cores as the servers, so its own
 * event loop's lateness is printed too (`client_loop_delay_ms`): a TTFB it measured late is its delay, not
 * the server's, and a run where it is large says so.
 */
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { concurrencyRun } from './concurrency.ts';
import { embeddedQuestions } from './questions.ts';

const { values } = parseArgs({
  options: {
    servers: { type: 'string' },
    visitors: { type: 'string', default: '200' },
    questions: { type: 'string', default: '3' },
  },
});
const servers = (values.servers ?? '').split(',').filter(Boolean);
if (servers.length === 0) throw new Error('--servers is required');
const { questions } = await embeddedQuestions(200);
const load = () => Math.round(loadavg()[0]! * 10) / 10;
const before = load();
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
const run = await concurrencyRun(servers, questions, Number(values.visitors), Number(values.questions));
loop.disable();
const ms = (ns: number) => Math.round(ns / 1e5) / 10;
const clientLoop = { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) };
console.log(
  JSON.stringify(
    { servers: servers.length, load_1m: [before, load()], ...run, client_loop_delay_ms: clientLoop },
    null,
    1,
  ),
);
