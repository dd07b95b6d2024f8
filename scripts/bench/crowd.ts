/**
 * `npx tsx scripts/bench/crowd.ts --database-url postgres://…/kb_bench_10000 --start 2 [--visitors 200] [--questions 3]`
 * `npx tsx scripts/bench/crowd.ts --servers http://127.0.0.1:18300,http://127.0.0.1:18301 [--visitors 200]
 *   [--questions 3]`
 *
 * With `--start N` it starts N Node servers itself (bench/server.ts: the real entry, on free ports) on the
 * database of `--database-url` — one KB_JWT_SECRET and KB_ANSWER_WRITE_KEY for all, the test-double model,
 * the bench's raised rate limit — runs the crowd, and stops them; `--start 1` without `--database-url` is one
 * server on its own PGlite database (the demo knowledge base, made on first start).
 *
 * Many visitors at once against Node servers already running (e.g. two on one DATABASE_URL, sharing
 * KB_JWT_SECRET and KB_ANSWER_WRITE_KEY, started with KB_SIGNUP_LIMIT=0 and a KB_RATE_LIMIT above
 * --questions): visitor i signs in on server i mod N and asks there, as the widget asks — the question
 * embedded by the test-double model, the answer streamed and read to its end (concurrency.ts, the scale
 * bench's crowd); a 503 waits its Retry-After. Prints the run as JSON with the machine's 1-minute load
 * average before and after: on a shared machine a latency without it cannot be compared.
 *
 * TTFB is what a visitor waits for: request sent (its headers written to the socket, as a browser's TTFB
 * counts — bench/client.ts) → the first byte of the answer's body, which the server writes only once the
 * answer is ready (the stream's `answer_start`; the first words follow at once — `first_delta_ms`). How long
 * this one process took to send each request is printed apart (`client_send_delay_ms`). It is counted over the questions served; answers per second stands beside it, so
 * shedding everyone cannot pass for speed. This client runs on the same cores as the servers, so its own
 * event loop's lateness is printed too (`client_loop_delay_ms`): a TTFB it measured late is its delay, not
 * the server's, and a run where it is large says so.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { concurrencyRun } from './concurrency.ts';
import { embeddedQuestions } from './questions.ts';
import { cpuSeconds, postgresCpuSeconds } from './cpu-time.ts';
import { startServer, type BenchServer } from './server.ts';

const { values } = parseArgs({
  options: {
    servers: { type: 'string' },
    start: { type: 'string' },
    'database-url': { type: 'string' },
    visitors: { type: 'string', default: '200' },
    questions: { type: 'string', default: '3' },
  },
});
const started: BenchServer[] = [];
const dataDir = await mkdtemp(path.join(tmpdir(), 'kb-crowd-'));
const shared = {
  KB_JWT_SECRET: randomBytes(32).toString('hex'),
  KB_ANSWER_WRITE_KEY: randomBytes(32).toString('hex'),
  ...(values['database-url'] ? { DATABASE_URL: values['database-url'] } : {}),
};
try {
  for (let i = 0; i < Number(values.start ?? 0); i++)
    started.push(await startServer(path.join(dataDir, String(i)), 300_000, shared));
  await crowd([...(values.servers ?? '').split(',').filter(Boolean), ...started.map((s) => s.url)]);
} finally {
  for (const server of started) await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}

async function crowd(servers: string[]): Promise<void> {
  if (servers.length === 0) throw new Error('--servers or --start is required');
  const { questions } = await embeddedQuestions(200);
  const load = () => Math.round(loadavg()[0]! * 10) / 10;
  const before = load();
  const admin = values['database-url'] ? new pg.Client({ connectionString: values['database-url'] }) : null;
  await admin?.connect();
  const cpu = async () => ({
    client: process.cpuUsage(),
    servers: await Promise.all(started.map((s) => cpuSeconds(s.pid))),
    database: admin ? await postgresCpuSeconds(admin) : null,
  });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const cpu0 = await cpu();
  const run = await concurrencyRun(servers, questions, Number(values.visitors), Number(values.questions));
  const cpu1 = await cpu();
  loop.disable();
  await admin?.end();
  const perRequest = (seconds: number) => Math.round((seconds * 10_000) / run.requests) / 10;
  const clientSeconds = (cpu1.client.user + cpu1.client.system - cpu0.client.user - cpu0.client.system) / 1e6;
  const serverSeconds = cpu1.servers.map((s, i) => s - cpu0.servers[i]!);
  const databaseSeconds = cpu1.database === null ? null : cpu1.database - cpu0.database!;
  const cpuMs = {
    client: Math.round(clientSeconds * 1000),
    servers: serverSeconds.map((s) => Math.round(s * 1000)),
    database: databaseSeconds === null ? null : Math.round(databaseSeconds * 1000),
    per_request: {
      client: perRequest(clientSeconds),
      servers: perRequest(serverSeconds.reduce((a, b) => a + b, 0)),
      database: databaseSeconds === null ? null : perRequest(databaseSeconds),
    },
  };
  const ms = (ns: number) => Math.round(ns / 1e5) / 10;
  const clientLoop = { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) };
  console.log(
    JSON.stringify(
      { servers: servers.length, load_1m: [before, load()], ...run, client_loop_delay_ms: clientLoop, cpu_ms: cpuMs },
      null,
      1,
    ),
  );
}
