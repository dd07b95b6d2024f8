/**
 * One scale of `npm run bench -- --database postgres`: the knowledge base bulk-loaded into its own database
 * (pg-kb.ts), HNSW recall against an exact scan (pg-recall.ts), then the real Node server started on that
 * database (DATABASE_URL) and asked the bench questions one at a time, as the PGlite scale bench does. The
 * machine's 1-minute load average is kept beside every timing: the machine is shared, and a timing without
 * the load it was taken under cannot be compared with another.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { chatLatency, searchLatency, type ChatLatency, type Question, type SearchLatency } from './latency.ts';
import { buildPgKb, type PgKb } from './pg-kb.ts';
import { measurePgRecall } from './pg-recall.ts';
import type { RecallAtEf } from './recall.ts';
import { SERVED_EF_SEARCH } from './report.ts';
import { startServer } from './server.ts';
import type { Percentiles } from './stats.ts';

export interface PgScaleResult {
  scale: number;
  kb: Omit<PgKb, 'url' | 'sample_document_ids'>;
  recall: RecallAtEf[];
  recall_load_1m: number;
  server: { startup_seconds: number; rss_bytes: number | null; peak_rss_bytes: number | null; pool_size: number };
  chat: ChatLatency;
  search: SearchLatency[];
  /** The 1-minute load average before and after the one-at-a-time questions. */
  questions_load_1m: [number, number];
}

export interface PgScaleOptions {
  baseUrl: string;
  questions: Question[];
  warmUp: Question[];
  recallQuestions: number;
  efSearch: number[];
  buildWorkers: number;
  /** Keep a database an earlier run loaded completely (pg-kb.ts): only missing indexes are built. */
  resume?: boolean;
  log: (line: string) => void;
}

const load = () => Math.round(loadavg()[0]! * 10) / 10;

export async function benchPgScale(scale: number, options: PgScaleOptions): Promise<PgScaleResult> {
  const { log, questions, warmUp } = options;
  log(`[pg ${scale}] bulk-loading ${scale} documents (load ${load()})`);
  const {
    url,
    sample_document_ids: _,
    ...kb
  } = await buildPgKb(options.baseUrl, scale, {
    buildWorkers: options.buildWorkers,
    resume: options.resume ?? false,
    log,
  });
  log(
    `    HNSW index ${(kb.hnsw_index_bytes / 2 ** 20).toFixed(0)} MB; database ${(kb.database_bytes / 2 ** 20).toFixed(0)} MB`,
  );

  log(`[pg ${scale}] HNSW recall@10 against an exact scan (load ${load()})`);
  const recallLoad = load();
  const recall = await measurePgRecall(
    url,
    questions.slice(0, options.recallQuestions).map((q) => q.embedding),
    options.efSearch,
  );
  for (const r of recall)
    log(`    ef_search ${r.ef_search}: recall@10 ${r.recall_at_10} (${r.hnsw_ms} ms vs exact ${r.exact_ms} ms)`);

  const dataDir = await mkdtemp(path.join(tmpdir(), 'kb-bench-pg-server-'));
  const poolSize = 10;
  const server = await startServer(dataDir, 300_000, { DATABASE_URL: url, KB_DATABASE_POOL: String(poolSize) });
  try {
    const before = load();
    log(`[pg ${scale}] ${questions.length} chat questions, one at a time (load ${before})`);
    const chat = await chatLatency(server.url, questions, warmUp);
    log(
      `    answered ${chat.answered}, refused ${chat.refused}, errors ${chat.errors}; server p50 ${chat.server_ms.p50} ms`,
    );
    const search: SearchLatency[] = [];
    for (const mode of ['vector', 'lexical', 'hybrid'] as const)
      search.push(await searchLatency(server.url, questions, warmUp, mode));
    const memory = await server.memory();
    return {
      scale,
      kb,
      recall,
      recall_load_1m: recallLoad,
      server: { startup_seconds: server.startup_seconds, ...memory, pool_size: poolSize },
      chat,
      search,
      questions_load_1m: [before, load()],
    };
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const ms = (x: number | null) => (x === null ? 'n/a' : x < 10 ? x.toFixed(1) : x.toFixed(0));
const triple = (p: Percentiles) => `${ms(p.p50)} / ${ms(p.p95)} / ${ms(p.p99)}`;
const scaleName = (n: number) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));
const seconds = (kb: PgScaleResult['kb'], prefix: string) => {
  const s = kb.steps.find((x) => x.step.startsWith(prefix));
  return s ? `${s.seconds} (${s.load_1m})` : 'n/a';
};

/** The Markdown table of the PostgreSQL scales. */
export function pgMarkdown(results: PgScaleResult[]): string {
  const lines = [
    '## Scale on PostgreSQL + pgvector',
    '',
    'Bulk-loaded (COPY), each index built once after the load; times in s with the 1-minute load average at its end in brackets.',
    '',
    '| KB | chunks | COPY chunks + embeddings s | GIN build s | HNSW build s | HNSW index MB | DB MB | ' +
      `recall@10 (ef ${SERVED_EF_SEARCH}) | HNSW / exact ms | chat server time | chat TTFB | search vector / lexical / hybrid p50 | load during questions |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of results) {
    const rec = r.recall.find((x) => x.ef_search === SERVED_EF_SEARCH);
    const p50 = (mode: string) => ms(r.search.find((x) => x.mode === mode)?.response_ms.p50 ?? null);
    const copySeconds = r.kb.steps
      .filter((s) => s.step.startsWith('COPY') && !s.step.includes('documents'))
      .reduce((a, s) => a + s.seconds, 0);
    lines.push(
      `| ${scaleName(r.scale)} | ${r.kb.chunks} | ${copySeconds.toFixed(0)} | ${seconds(r.kb, 'build the full-text')} | ` +
        `${seconds(r.kb, 'build the HNSW')} | ${mb(r.kb.hnsw_index_bytes)} | ${mb(r.kb.database_bytes)} | ` +
        `${rec ? rec.recall_at_10.toFixed(3) : 'n/a'} | ${rec ? `${rec.hnsw_ms} / ${rec.exact_ms}` : 'n/a'} | ` +
        `${triple(r.chat.server_ms)} | ${triple(r.chat.ttfb_ms)} | ${p50('vector')} / ${p50('lexical')} / ${p50('hybrid')} | ` +
        `${r.questions_load_1m[0]} → ${r.questions_load_1m[1]} |`,
    );
  }
  lines.push(
    '',
    '| KB | ef_search | recall@10 | HNSW ms | exact ms | plan used the index |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
  );
  for (const r of results)
    for (const x of r.recall)
      lines.push(
        `| ${scaleName(r.scale)} | ${x.ef_search} | ${x.recall_at_10.toFixed(3)} | ${x.hnsw_ms} | ${x.exact_ms} | ${x.hnsw_used ? 'yes' : 'no'} |`,
      );
  lines.push('', '| KB | step | seconds | load (1 min) at its end |', '| --- | --- | ---: | ---: |');
  for (const r of results)
    for (const s of r.kb.steps) lines.push(`| ${scaleName(r.scale)} | ${s.step} | ${s.seconds} | ${s.load_1m} |`);
  return `${lines.join('\n')}\n`;
}
