/**
 * `npm run bench [-- --quick] [--scales 1000,10000] [--keep] [--out <dir>] [--concurrency-at <n>|0]`
 *
 * Benchmarks (not tests: nothing passes or fails) of the embedded deployment, each scale a fresh
 * knowledge base built by the real ingestion pipeline and served by the real server in a child process:
 * ingest rate, database size, server memory, chat and search latency one request at a time, HNSW recall
 * against an exact scan, the query plans of search_chunks, and — at 10k chunks — many visitors at once.
 * Writes <out>/<date>.json and <out>/<date>.md (printed too) and <out>/<date>-explain-<scale>.txt.
 * --quick: 1k and 10k only (a few minutes on 2 cores). Temp folders are deleted unless --keep.
 *
 * --database postgres: the same questions against the Node server on PostgreSQL + pgvector instead
 * (bench/pg-scale.ts): each scale bulk-loaded into a database `kb_bench_<scale>` made on the server at
 * --database-url (or KB_BENCH_DATABASE_URL); default scales 10k, 100k and 1M. Writes <date>-postgres.{json,md}.
 * --resume keeps a database an earlier run loaded completely and builds only the indexes it lacks (a 1M load
 * takes most of an hour on 2 cores; an interrupted index build need not repeat it).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { concurrencyRun } from './bench/concurrency.ts';
import { explainSearches } from './bench/explain.ts';
import { benchPgScale, pgMarkdown, type PgScaleResult } from './bench/pg-scale.ts';
import { buildKb } from './bench/kb.ts';
import { chatLatency, searchLatency } from './bench/latency.ts';
import { embeddedQuestions } from './bench/questions.ts';
import { measureRecall } from './bench/recall.ts';
import { machineInfo, markdown, type BenchReport, type ScaleResult } from './bench/report.ts';
import { startServer } from './bench/server.ts';

const USAGE = [
  'usage: npm run bench -- [--quick] [--scales 1000,10000,100000] [--keep] [--out bench-results] [--concurrency-at 10000|0]',
  '       npm run bench -- --database postgres [--database-url postgres://…] [--scales 10000,100000,1000000] [--build-workers 1] [--resume]',
  '       npm run bench -- load [--help]    200 visitors on one server, then a 5-minute soak (scripts/bench/load.ts)',
  '       npm run bench -- fuzz [--help]    the API fuzz properties, long (scripts/bench/fuzz.ts)',
  '       npm run bench -- first-visit [--help]  first and later visits, throttled (scripts/bench/first-visit.ts)',
  '       npm run bench -- generation [--help]   generative mode in Chromium: first token, tokens/s (scripts/bench/generation.ts)',
  '       npm run bench -- sync [--help]         a re-sync of a docs site over local HTTP: seconds, bytes (scripts/bench/sync.ts)',
].join('\n');

// Scenarios beside the scale bench, on the same harness (KB builder, server child, client, statistics).
const SCENARIOS: Record<string, () => Promise<{ main(args: string[]): Promise<void> }>> = {
  load: () => import('./bench/load.ts'),
  fuzz: () => import('./bench/fuzz.ts'),
  'first-visit': () => import('./bench/first-visit.ts'),
  generation: () => import('./bench/generation.ts'),
  sync: () => import('./bench/sync.ts'),
};
const scenario = SCENARIOS[process.argv[2] ?? ''];
if (scenario) {
  await (await scenario()).main(process.argv.slice(3));
  process.exit(process.exitCode ?? 0);
}
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    scales: { type: 'string' },
    keep: { type: 'boolean', default: false },
    out: { type: 'string', default: 'bench-results' },
    'concurrency-at': { type: 'string', default: '10000' },
    database: { type: 'string', default: 'pglite' },
    'database-url': { type: 'string' },
    'build-workers': { type: 'string', default: '1' },
    resume: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const wholeNumbers = (raw: string, flag: string) =>
  raw.split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < 0) {
      console.error(`${flag}: "${s}" is not a whole number\n${USAGE}`);
      process.exit(2);
    }
    return n;
  });
if (values.database !== 'pglite' && values.database !== 'postgres') {
  console.error(`--database: "${values.database}" is neither pglite nor postgres\n${USAGE}`);
  process.exit(2);
}
const onPostgres = values.database === 'postgres';
const scales = values.scales
  ? wholeNumbers(values.scales, '--scales').filter((n) => n > 0)
  : onPostgres
    ? [10_000, 100_000, 1_000_000]
    : values.quick
      ? [1000, 10_000]
      : [1000, 10_000, 100_000];
const concurrencyAt = wholeNumbers(values['concurrency-at'], '--concurrency-at')[0] || null;
const VISITORS = [1, 10, 50, 200];
const ROUNDS = 3;
const QUESTIONS = 200;
/** Recall is measured on this many of the questions: ≈ 1 s at 100k, and the average is stable by then. */
const RECALL_QUESTIONS = 100;
const EF_SEARCH = [40, 100, 200, 400];

const log = (line: string) => console.error(line);
const started = new Date();
const date = started.toISOString().slice(0, 10);
const outDir = path.resolve(values.out);
const workRoot = await mkdtemp(path.join(tmpdir(), 'kb-bench-'));
// Ctrl-C: the server child is killed by its own exit hook (bench/server.ts); the temp folders go here.
process.once('SIGINT', () => {
  if (!values.keep) rmSync(workRoot, { recursive: true, force: true });
  process.exit(130);
});
await mkdir(outDir, { recursive: true });
log(`kb-chat bench: scales ${scales.join(', ')}; concurrency at ${concurrencyAt ?? 'none'}; work in ${workRoot}`);

const { questions, warmUp } = await embeddedQuestions(QUESTIONS);

if (onPostgres) {
  const baseUrl = values['database-url'] ?? process.env.KB_BENCH_DATABASE_URL;
  if (!baseUrl) {
    console.error(`--database postgres needs --database-url or KB_BENCH_DATABASE_URL\n${USAGE}`);
    process.exit(2);
  }
  const buildWorkers = wholeNumbers(values['build-workers'], '--build-workers')[0]!;
  const results: PgScaleResult[] = [];
  const stem = path.join(outDir, `${date}-postgres`);
  for (const scale of scales) {
    results.push(
      await benchPgScale(scale, {
        baseUrl,
        questions,
        warmUp,
        recallQuestions: RECALL_QUESTIONS,
        efSearch: EF_SEARCH,
        buildWorkers,
        resume: values.resume,
        log,
      }),
    );
    // Written after each scale: the 1M one takes long, and what is measured by then is kept.
    const machine = machineInfo();
    await writeFile(
      `${stem}.json`,
      `${JSON.stringify({ date, started_at: started.toISOString(), machine, scales: results }, null, 2)}\n`,
    );
    await writeFile(`${stem}.md`, pgMarkdown(results));
  }
  await rm(workRoot, { recursive: true, force: true });
  console.log(pgMarkdown(results));
  process.exit(0);
}

const report: BenchReport = {
  date,
  started_at: started.toISOString(),
  seconds: 0,
  options: { scales, concurrency_at: concurrencyAt, visitors: VISITORS, rounds: ROUNDS, questions: questions.length },
  machine: machineInfo(),
  scales: [],
  concurrency: null,
};

try {
  for (const scale of scales) report.scales.push(await benchScale(scale));
} finally {
  if (!values.keep) await rm(workRoot, { recursive: true, force: true });
  else log(`kept ${workRoot}`);
}
report.seconds = Math.round((Date.now() - started.getTime()) / 1000);
const md = markdown(report);
await writeFile(path.join(outDir, `${date}.json`), `${JSON.stringify(report, null, 2)}\n`);
await writeFile(path.join(outDir, `${date}.md`), md);
log(`wrote ${path.relative(process.cwd(), path.join(outDir, `${date}.json`))} and .md`);
console.log(md);

async function benchScale(scale: number): Promise<ScaleResult> {
  const name = scale % 1000 === 0 ? `${scale / 1000}k` : String(scale);
  const phase = (what: string) => log(`[${name}] ${what} (${Math.round((Date.now() - started.getTime()) / 1000)} s)`);
  phase(`writing and ingesting ${scale} documents`);
  const { dataDir, sample_document_ids, ...kb } = await buildKb(path.join(workRoot, name), scale, log);
  log(
    `    ${kb.chunks} chunks in ${kb.ingest_seconds} s: ${kb.ingest_chunks_per_second} chunks/s; ${(kb.db_bytes / 2 ** 20).toFixed(0)} MB on disk`,
  );

  phase('HNSW recall@10 against an exact scan');
  const recall = await measureRecall(
    dataDir,
    questions.slice(0, RECALL_QUESTIONS).map((q) => q.embedding),
    EF_SEARCH,
  );
  for (const r of recall)
    log(`    ef_search ${r.ef_search}: recall@10 ${r.recall_at_10} (${r.hnsw_ms} ms vs exact ${r.exact_ms} ms)`);

  phase('EXPLAIN ANALYZE of search_chunks');
  const q = questions[0]!;
  const searches = [
    { label: 'hybrid', embedding: q.embedding, text: q.text, matchCount: 8, mode: 'hybrid' as const },
    { label: 'lexical', embedding: null, text: q.text, matchCount: 8, mode: 'lexical' as const },
    {
      label: 'hybrid, filtered by document_ids',
      embedding: q.embedding,
      text: q.text,
      matchCount: 8,
      mode: 'hybrid' as const,
      filters: { document_ids: sample_document_ids },
    },
  ];
  const plans = await explainSearches(dataDir, searches);
  const explainFile = path.join(outDir, `${date}-explain-${name}.txt`);
  await writeFile(
    explainFile,
    searches
      .map(
        (s, i) =>
          `=== ${s.label}: ${JSON.stringify({ text: s.text, filters: s.filters ?? {} })}\n\n${shortenVectors(plans[i]!)}\n`,
      )
      .join('\n'),
  );

  phase('starting the server');
  const server = await startServer(dataDir);
  try {
    log(`    ${server.url} (pid ${server.pid}) ready in ${server.startup_seconds} s`);
    phase(`${questions.length} chat questions, one at a time`);
    const chat = await chatLatency(server.url, questions, warmUp);
    log(
      `    answered ${chat.answered}, refused ${chat.refused}, errors ${chat.errors}; TTFB p50 ${chat.ttfb_ms.p50} ms`,
    );
    const search = [];
    for (const mode of ['vector', 'lexical', 'hybrid'] as const) {
      phase(`${questions.length} ${mode} searches, one at a time`);
      search.push(await searchLatency(server.url, questions, warmUp, mode));
    }
    const memory = await server.memory();
    if (scale === concurrencyAt) {
      const runs = [];
      for (const visitors of VISITORS) {
        phase(`${visitors} visitors at once, ${ROUNDS} questions each`);
        const run = await concurrencyRun(server.url, questions, visitors, ROUNDS);
        log(`    ${run.answers_per_second} answers/s; 503s ${run.unavailable_503}; errors ${run.errors}`);
        runs.push(run);
      }
      report.concurrency = { scale, server_peak_rss_bytes: (await server.memory()).peak_rss_bytes, runs };
    }
    return {
      scale,
      kb,
      recall,
      explain_file: path.basename(explainFile), // beside the report
      server: { startup_seconds: server.startup_seconds, ...memory },
      chat,
      search,
    };
  } finally {
    await server.stop();
    if (!values.keep) await rm(path.join(workRoot, name), { recursive: true, force: true });
  }
}

/** The plans quote the question's vector in full (384 numbers, several times per plan): one short mention is enough. */
function shortenVectors(plan: string): string {
  return plan.replace(
    /'\[(-?[\d.e+-]+,){8}[^\]']*\]'/g,
    (v) => `'[${v.slice(2, 30)}… ${v.split(',').length} numbers]'`,
  );
}
