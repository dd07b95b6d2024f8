// Long file: one benchmark run end to end (server, crowd, soak, the report), whose steps share its counters.
/**
 * `npm run bench -- load [--visitors 200] [--chunks 10000] [--crowd-seconds 60] [--soak-seconds 300]
 *   [--rate 10] [--keep] [--out bench-results]`
 *
 * Load and soak of the embedded deployment, on the bench's harness (the real ingestion into a fresh PGlite
 * directory, the real server as a child process, the widget's HTTP client): a 10k-chunk knowledge base, then
 *
 * 1. **crowd** — every visitor signs in, then all of them ask at once and keep asking, back to back, for
 *    `--crowd-seconds`, each reading every answer to its end (a visitor told 503 waits its Retry-After, as the
 *    widget does). What one instance does with 200 visitors holding streams: the peak of streams open at once,
 *    answers per second, TTFB, 503s and errors.
 * 2. **soak** — `--rate` questions per second, round-robin over the same visitors, for `--soak-seconds`:
 *    errors, p50/p99, the server's RSS sampled every 10 s, its open file descriptors (sockets, pipes, files).
 *
 * Afterwards the server is stopped with SIGTERM (graceful: it drains and closes the database), the data
 * directory is opened again and every question the bench sent is looked up: answered or refused → its
 * question and exactly one answer are stored; turned away with 503 → nothing stored; a network error → at
 * most one of each. Writes <out>/<date>-load.json and .md (printed too).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openPgliteStore } from '../../server/store/pglite.ts';
import { chat, signIn, type ChatTiming } from './client.ts';
import { buildKb } from './kb.ts';
import type { Question } from './latency.ts';
import { embeddedQuestions } from './questions.ts';
import { machineInfo } from './report.ts';
import { startServer, type BenchServer } from './server.ts';
import { percentiles, type Percentiles } from './stats.ts';

const USAGE =
  'usage: npm run bench -- load [--visitors 200] [--chunks 10000] [--crowd-seconds 60] [--soak-seconds 300] [--rate 10] [--keep] [--out bench-results]';

/** The documented bound on the server's memory growth over the soak (docs/reliability.md). */
export const SOAK_RSS_GROWTH_BOUND_MB = 64;

interface Snapshot {
  at_s: number;
  rss_mb: number | null;
  handles: Record<string, number> | null;
  load_average: number[];
}

interface PhaseResult {
  phase: 'crowd' | 'soak';
  seconds: number;
  requests: number;
  answered: number;
  refused: number;
  unavailable_503: number;
  unavailable_with_retry_after: number;
  errors: number;
  error_samples: string[];
  answers_per_second: number;
  /** Most answer streams open at the same moment (from each stream's first byte to its end, client side). */
  peak_open_streams: number;
  ttfb_ms: Percentiles;
  total_ms: Percentiles;
}

interface StoredCheck {
  questions_sent: number;
  /** Served (answer or refusal) with exactly one stored question and exactly one stored answer. */
  served_stored_once: number;
  served_missing_or_doubled: string[];
  /** Turned away with 503: nothing may be stored. */
  unavailable_with_rows: string[];
  /** Network or stream errors: at most one question and one answer each. */
  errors_doubled: string[];
  /** Rows no request of the bench explains, or an answer without its question. */
  orphans: number;
  answers_per_question_max: number;
}

export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      visitors: { type: 'string', default: '200' },
      chunks: { type: 'string', default: '10000' },
      'crowd-seconds': { type: 'string', default: '60' },
      'soak-seconds': { type: 'string', default: '300' },
      rate: { type: 'string', default: '10' },
      keep: { type: 'boolean', default: false },
      out: { type: 'string', default: 'bench-results' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return console.log(USAGE);
  const number = (flag: keyof typeof values) => {
    const n = Number(values[flag]);
    if (!Number.isFinite(n) || n <= 0)
      throw new Error(`--${flag}: "${values[flag]}" is not a positive number\n${USAGE}`);
    return n;
  };
  const visitors = number('visitors');
  const chunks = number('chunks');
  const crowdSeconds = number('crowd-seconds');
  const soakSeconds = number('soak-seconds');
  const rate = number('rate');

  const log = (line: string) => console.error(line);
  const started = new Date();
  const since = () => Math.round((Date.now() - started.getTime()) / 1000);
  const workDir = await mkdtemp(path.join(tmpdir(), 'kb-load-'));
  log(
    `kb-chat load: ${visitors} visitors, ${chunks} chunks, crowd ${crowdSeconds} s, soak ${soakSeconds} s at ${rate}/s; work in ${workDir}`,
  );
  try {
    const { questions, warmUp } = await embeddedQuestions(200);
    log(`[${since()} s] building the knowledge base`);
    const { dataDir, ...kb } = await buildKb(workDir, chunks, log);
    log(`    ${kb.chunks} chunks in ${kb.ingest_seconds} s`);

    const server = await startServer(dataDir);
    const timings: ChatTiming[] = [];
    let stop: Awaited<ReturnType<BenchServer['stop']>> | null = null;
    let snapshots: { before: Snapshot; after_crowd: Snapshot; after_soak: Snapshot; soak_samples: Snapshot[] };
    let phases: PhaseResult[];
    try {
      const snapshot = async (): Promise<Snapshot> => {
        const { rss_bytes } = await server.memory();
        return {
          at_s: since(),
          rss_mb: rss_bytes === null ? null : Math.round(rss_bytes / 2 ** 20),
          handles: await server.handles(),
          load_average: loadavg().map((x) => Math.round(x * 100) / 100),
        };
      };
      log(`[${since()} s] ${server.url}: signing in ${visitors} visitors, warming up`);
      const tokens = await signInAll(server.url, visitors);
      const warm = await signIn(server.url);
      for (const q of warmUp) timings.push(await chat(server.url, warm, q.text, q.embedding));
      // Idle keep-alive connections (the client's pool, 4 s; the server's, 5 s) close before each reading, so
      // the handles counted are the server's own, not this process's pooled sockets.
      await settle();
      const before = await snapshot();

      log(`[${since()} s] crowd: ${visitors} visitors at once for ${crowdSeconds} s`);
      const crowdTimings = await crowd(server.url, tokens, questions, crowdSeconds);
      timings.push(...crowdTimings);
      const crowdResult = summarize('crowd', crowdTimings, crowdSeconds);
      log(
        `    ${crowdResult.answers_per_second} answers/s; peak ${crowdResult.peak_open_streams} open streams; 503s ${crowdResult.unavailable_503}; errors ${crowdResult.errors}`,
      );
      await settle();
      const afterCrowd = await snapshot();

      log(`[${since()} s] soak: ${rate} questions/s for ${soakSeconds} s`);
      const samples: Snapshot[] = [];
      const sampler = setInterval(() => void snapshot().then((s) => samples.push(s)), 10_000);
      const soakTimings = await soak(server.url, tokens, questions, soakSeconds, rate).finally(() =>
        clearInterval(sampler),
      );
      timings.push(...soakTimings);
      const soakResult = summarize('soak', soakTimings, soakSeconds);
      log(
        `    ${soakResult.requests} questions; errors ${soakResult.errors}; TTFB p50 ${soakResult.ttfb_ms.p50} ms, p99 ${soakResult.ttfb_ms.p99} ms`,
      );
      await settle();
      const afterSoak = await snapshot();
      snapshots = { before, after_crowd: afterCrowd, after_soak: afterSoak, soak_samples: samples };
      phases = [crowdResult, soakResult];
    } finally {
      stop = await server.stop();
    }
    log(
      `[${since()} s] stopped (SIGTERM → exit in ${stop.seconds} s, code ${stop.code ?? stop.signal}); checking what was stored`,
    );
    const stored = await checkStored(dataDir, timings);

    const report = {
      date: started.toISOString().slice(0, 10),
      started_at: started.toISOString(),
      seconds: since(),
      options: { visitors, chunks, crowd_seconds: crowdSeconds, soak_seconds: soakSeconds, rate },
      machine: machineInfo(),
      kb: { chunks: kb.chunks, documents: kb.documents, ingest_seconds: kb.ingest_seconds },
      phases,
      snapshots,
      soak_rss_growth_mb: growth(snapshots.after_crowd.rss_mb, snapshots.after_soak.rss_mb),
      soak_rss_growth_bound_mb: SOAK_RSS_GROWTH_BOUND_MB,
      stop,
      stored,
    };
    const outDir = path.resolve(values.out);
    await mkdir(outDir, { recursive: true });
    const base = path.join(outDir, `${report.date}-load`);
    await writeFile(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
    const md = markdown(report);
    await writeFile(`${base}.md`, md);
    log(`wrote ${path.relative(process.cwd(), base)}.json and .md`);
    console.log(md);
  } finally {
    if (!values.keep) await rm(workDir, { recursive: true, force: true });
    else log(`kept ${workDir}`);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const settle = () => sleep(6_000);
const growth = (from: number | null, to: number | null) => (from === null || to === null ? null : to - from);

async function signInAll(base: string, count: number): Promise<string[]> {
  const tokens: string[] = [];
  while (tokens.length < count) {
    const batch = Math.min(20, count - tokens.length);
    tokens.push(...(await Promise.all(Array.from({ length: batch }, () => signIn(base)))));
  }
  return tokens;
}

/** Every visitor asks back to back until the time is up; a 503 waits its Retry-After first. */
async function crowd(base: string, tokens: string[], questions: Question[], seconds: number): Promise<ChatTiming[]> {
  const until = performance.now() + seconds * 1000;
  const timings: ChatTiming[] = [];
  await Promise.all(
    tokens.map(async (token, v) => {
      for (let i = v; performance.now() < until; i++) {
        const q = questions[i % questions.length]!;
        const timing = await chat(base, token, q.text, q.embedding);
        timings.push(timing);
        if (timing.status === 503) await sleep(1000 * Number(timing.retry_after ?? 1));
      }
    }),
  );
  return timings;
}

/**
 * Steady arrivals: one question every 1/rate s, from the visitors in turn. A visitor whose previous answer
 * is still coming is passed over (a visitor asks one thing at a time), so the rate is an upper bound.
 */
async function soak(
  base: string,
  tokens: string[],
  questions: Question[],
  seconds: number,
  rate: number,
): Promise<ChatTiming[]> {
  const timings: ChatTiming[] = [];
  const busy = new Set<number>();
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (let n = 0; ; n++) {
    const due = start + (n * 1000) / rate;
    if (due - start >= seconds * 1000) break;
    await sleep(Math.max(0, due - performance.now()));
    const v = n % tokens.length;
    if (busy.has(v)) continue;
    busy.add(v);
    const q = questions[n % questions.length]!;
    pending.push(
      chat(base, tokens[v]!, q.text, q.embedding).then((timing) => {
        timings.push(timing);
        busy.delete(v);
      }),
    );
  }
  await Promise.all(pending);
  return timings;
}

function summarize(phase: PhaseResult['phase'], timings: ChatTiming[], seconds: number): PhaseResult {
  const served = timings.filter((t) => t.kind === 'answer' || t.kind === 'refusal');
  const unavailable = timings.filter((t) => t.kind === 'http_error' && t.status === 503);
  const errors = timings.filter((t) => !served.includes(t) && !unavailable.includes(t));
  const answered = timings.filter((t) => t.kind === 'answer');
  return {
    phase,
    seconds,
    requests: timings.length,
    answered: answered.length,
    refused: served.length - answered.length,
    unavailable_503: unavailable.length,
    unavailable_with_retry_after: unavailable.filter((t) => t.retry_after !== null).length,
    errors: errors.length,
    error_samples: [...new Set(errors.map((t) => `${t.kind} ${t.status ?? ''} ${t.error ?? ''}`.trim()))].slice(0, 5),
    answers_per_second: Math.round((answered.length / seconds) * 10) / 10,
    peak_open_streams: peakOverlap(
      answered.map((t) => [t.started_ms + (t.ttfb_ms ?? 0), t.started_ms + t.total_ms] as const),
    ),
    ttfb_ms: percentiles(served.flatMap((t) => (t.ttfb_ms === null ? [] : [t.ttfb_ms]))),
    total_ms: percentiles(served.map((t) => t.total_ms)),
  };
}

/** The most intervals that contain one same moment. */
export function peakOverlap(intervals: readonly (readonly [number, number])[]): number {
  const edges = intervals.flatMap(([from, to]) => [[from, 1] as const, [to, -1] as const]);
  // At equal times an end comes before a start: a stream that ends as another begins is not two at once.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let peak = 0;
  for (const [, step] of edges) peak = Math.max(peak, (open += step));
  return peak;
}

/** Opens the stopped server's data directory and accounts for every question the bench sent. */
async function checkStored(dataDir: string, timings: ChatTiming[]): Promise<StoredCheck> {
  const store = await openPgliteStore(dataDir);
  try {
    // A question's id is its primary key, so it is stored once or not at all; its answers are counted.
    const { rows } = await store.db.query<{ id: string; answers: number }>(
      `select u.id, (select count(*) from chat_messages a where a.reply_to = u.id)::int as answers
       from chat_messages u where u.role = 'user'`,
    );
    const { rows: unanswerable } = await store.db.query<{ n: number }>(
      `select count(*)::int as n from chat_messages a
       where a.role = 'assistant' and not exists (select 1 from chat_messages u where u.id = a.reply_to and u.role = 'user')`,
    );
    const byId = new Map(rows.map((r) => [r.id, { users: 1, answers: r.answers }]));
    const check: StoredCheck = {
      questions_sent: timings.length,
      served_stored_once: 0,
      served_missing_or_doubled: [],
      unavailable_with_rows: [],
      errors_doubled: [],
      orphans: 0,
      answers_per_question_max: Math.max(0, ...rows.map((r) => r.answers)),
    };
    const sent = new Set<string>();
    for (const t of timings) {
      sent.add(t.message_id);
      const row = byId.get(t.message_id) ?? { users: 0, answers: 0 };
      if (t.kind === 'answer' || t.kind === 'refusal') {
        if (row.users === 1 && row.answers === 1) check.served_stored_once += 1;
        else check.served_missing_or_doubled.push(`${t.message_id}: ${row.users} questions, ${row.answers} answers`);
      } else if (t.kind === 'http_error' && t.status === 503) {
        if (row.users + row.answers > 0) check.unavailable_with_rows.push(t.message_id);
      } else if (row.users > 1 || row.answers > 1) {
        check.errors_doubled.push(t.message_id);
      }
    }
    check.orphans = rows.filter((r) => !sent.has(r.id)).length + unanswerable[0]!.n;
    return check;
  } finally {
    await store.close();
  }
}

type LoadReport = {
  options: { visitors: number; chunks: number; crowd_seconds: number; soak_seconds: number; rate: number };
  machine: ReturnType<typeof machineInfo>;
  seconds: number;
  date: string;
  kb: { chunks: number };
  phases: PhaseResult[];
  snapshots: { before: Snapshot; after_crowd: Snapshot; after_soak: Snapshot; soak_samples: Snapshot[] };
  soak_rss_growth_mb: number | null;
  soak_rss_growth_bound_mb: number;
  stop: { seconds: number; code: number | null; signal: string | null };
  stored: StoredCheck;
};

function markdown(r: LoadReport): string {
  const m = r.machine;
  const row = (cells: (string | number | null)[]) => `| ${cells.map((c) => c ?? 'n/a').join(' | ')} |`;
  const handles = (s: Snapshot) =>
    s.handles
      ? `${Object.values(s.handles).reduce((a, b) => a + b, 0)} (${Object.entries(s.handles)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ')})`
      : 'n/a';
  const rss = r.snapshots.soak_samples.map((s) => s.rss_mb);
  const loads = [r.snapshots.before, ...r.snapshots.soak_samples, r.snapshots.after_soak].map(
    (s) => s.load_average[0]!,
  );
  const s = r.stored;
  return `${[
    `# kb-chat load and soak, ${r.date}`,
    '',
    `${m.cpus} × ${m.cpu_model ?? 'CPU'}, Node ${m.node}; commit ${m.git_commit?.slice(0, 12) ?? 'unknown'}${m.git_dirty ? ' (with uncommitted changes)' : ''}. ` +
      `One server (\`server/runtime/node/start.ts\`, embedded PGlite), ${r.kb.chunks} chunks, ${r.options.visitors} visitors (each its own token). ` +
      `Load average (1 min) during the run: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} (other jobs share this machine). ` +
      `Command: \`npm run bench -- load\`; took ${r.seconds} s.`,
    '',
    row([
      'phase',
      'seconds',
      'requests',
      'answered',
      'refused',
      'answers/s',
      'peak open streams',
      'TTFB p50 / p99 ms',
      'whole answer p50 / p99 ms',
      '503s (with Retry-After)',
      'errors',
    ]),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
    ...r.phases.map((p) =>
      row([
        p.phase === 'crowd' ? `crowd: ${r.options.visitors} at once, back to back` : `soak: ${r.options.rate}/s`,
        p.seconds,
        p.requests,
        p.answered,
        p.refused,
        p.answers_per_second,
        p.peak_open_streams,
        `${p.ttfb_ms.p50} / ${p.ttfb_ms.p99}`,
        `${p.total_ms.p50} / ${p.total_ms.p99}`,
        `${p.unavailable_503} (${p.unavailable_with_retry_after})`,
        p.errors,
      ]),
    ),
    ...r.phases.flatMap((p) =>
      p.error_samples.map((e) => `\n- ${p.phase} error: ${e.replace(/\s+/g, ' ').slice(0, 200)}`),
    ),
    '',
    row(['server', 'before the crowd', 'after the crowd', 'after the soak']),
    row(['---', '---:', '---:', '---:']),
    row(['RSS MB', r.snapshots.before.rss_mb, r.snapshots.after_crowd.rss_mb, r.snapshots.after_soak.rss_mb]),
    row([
      'open file descriptors',
      handles(r.snapshots.before),
      handles(r.snapshots.after_crowd),
      handles(r.snapshots.after_soak),
    ]),
    '',
    `RSS during the soak (every 10 s): ${rss.join(', ')} MB. Growth over the soak: ${r.soak_rss_growth_mb ?? 'n/a'} MB ` +
      `(bound ${r.soak_rss_growth_bound_mb} MB: ${r.soak_rss_growth_mb !== null && r.soak_rss_growth_mb <= r.soak_rss_growth_bound_mb ? 'within' : '**exceeded**'}). ` +
      'Readings are taken 6 s after the traffic stops, once idle keep-alive connections have closed.',
    '',
    `SIGTERM → exit in ${r.stop.seconds} s (code ${r.stop.code ?? r.stop.signal}). Stored, checked in the data directory afterwards: ` +
      `${s.questions_sent} questions sent; ${s.served_stored_once} answered or refused, each with exactly one stored question and one stored answer` +
      `${s.served_missing_or_doubled.length ? ` — **${s.served_missing_or_doubled.length} not** (${s.served_missing_or_doubled.slice(0, 3).join('; ')})` : ''}; ` +
      `${s.unavailable_with_rows.length} of the 503s left a row; ${s.errors_doubled.length} errors doubled a row; ${s.orphans} rows no request explains; ` +
      `at most ${s.answers_per_question_max} answer per question.`,
  ].join('\n')}\n`;
}
