/**
 * The bench's results, as JSON (every number, for comparing runs) and as Markdown tables (for a reader).
 * The machine is part of the result: these are wall-clock times, meaningless without the cores, the
 * memory, the Node version and the commit they were measured on.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import type { ConcurrencyResult } from './concurrency.ts';
import type { BuiltKb } from './kb.ts';
import type { ChatLatency, SearchLatency } from './latency.ts';
import type { RecallAtEf } from './recall.ts';
import type { Percentiles } from './stats.ts';

/** The ef_search search_chunks sets (supabase/migrations/…_search_at_scale.sql); its recall is the headline. */
export const SERVED_EF_SEARCH = 200;

export interface ScaleResult {
  scale: number;
  kb: Omit<BuiltKb, 'dataDir' | 'sample_document_ids'>;
  recall: RecallAtEf[] | null;
  explain_file: string | null;
  server: { startup_seconds: number; rss_bytes: number | null; peak_rss_bytes: number | null };
  chat: ChatLatency;
  search: SearchLatency[];
}

export interface BenchReport {
  date: string;
  started_at: string;
  seconds: number;
  options: { scales: number[]; concurrency_at: number | null; visitors: number[]; rounds: number; questions: number };
  machine: ReturnType<typeof machineInfo>;
  scales: ScaleResult[];
  concurrency: { scale: number; server_peak_rss_bytes: number | null; runs: ConcurrencyResult[] } | null;
}

export function machineInfo() {
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return null;
    }
  };
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpu_model: cpus[0]?.model ?? null,
    available_parallelism: os.availableParallelism(),
    total_memory_bytes: os.totalmem(),
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    git_commit: git('rev-parse', 'HEAD'),
    /** Uncommitted changes were part of what was measured. */
    git_dirty: (git('status', '--porcelain', '--untracked-files=no') ?? '') !== '',
  };
}

const mb = (bytes: number | null | undefined) => (bytes == null ? 'n/a' : (bytes / 1024 / 1024).toFixed(0));
const ms = (x: number | null) => (x === null ? 'n/a' : x < 10 ? x.toFixed(1) : x.toFixed(0));
const triple = (p: Percentiles) => `${ms(p.p50)} / ${ms(p.p95)} / ${ms(p.p99)}`;
const scaleName = (n: number) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));
const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;

export function markdown(report: BenchReport): string {
  const m = report.machine;
  const lines = [
    `# kb-chat bench, ${report.date}`,
    '',
    `${m.cpus} × ${m.cpu_model ?? 'CPU'}, ${mb(m.total_memory_bytes)} MB RAM, Node ${m.node}, ${m.platform}; ` +
      `commit ${m.git_commit?.slice(0, 12) ?? 'unknown'}${m.git_dirty ? ' (with uncommitted changes)' : ''}. ` +
      `Embeddings: the test-double model (test/fixtures/models). ${report.options.questions} questions per measurement, ` +
      `one at a time; times in ms, p50 / p95 / p99. Bench took ${Math.round(report.seconds)} s.`,
    '',
    '## Scale',
    '',
    row([
      'KB',
      'chunks',
      'ingest chunks/s',
      'DB size MB',
      'server RSS MB',
      'chat server time',
      'chat TTFB',
      'first delta',
      'search vector / lexical / hybrid p50',
      `recall@10 (ef ${SERVED_EF_SEARCH})`,
    ]),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
  ];
  for (const s of report.scales) {
    const p50 = (mode: string) => ms(s.search.find((x) => x.mode === mode)?.response_ms.p50 ?? null);
    const recall = s.recall?.find((r) => r.ef_search === SERVED_EF_SEARCH);
    lines.push(
      row([
        scaleName(s.scale),
        s.kb.chunks,
        s.kb.ingest_chunks_per_second,
        mb(s.kb.db_bytes),
        mb(s.server.rss_bytes),
        triple(s.chat.server_ms),
        triple(s.chat.ttfb_ms),
        triple(s.chat.first_delta_ms),
        `${p50('vector')} / ${p50('lexical')} / ${p50('hybrid')}`,
        recall ? recall.recall_at_10.toFixed(3) : 'n/a',
      ]),
    );
  }
  lines.push(
    '',
    "Chat: server time is the server's own time to the start of its response (its `Server-Timing: app`: auth, rate limit, " +
      'turn, retrieval, extraction); TTFB is the first byte of the response body (retrieval done, answer started), refusals included; ' +
      'first delta is the first `answer_delta` event (answers only). Answers stream with a deliberate pause between deltas, ' +
      'so the whole answer takes longer than either.',
    '',
    row([
      'KB',
      'answered',
      'refused',
      'errors',
      'whole answer p50',
      'refusal p50',
      'server start s',
      'peak RSS MB',
      'ingest s (model load s)',
    ]),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
  );
  for (const s of report.scales) {
    lines.push(
      row([
        scaleName(s.scale),
        s.chat.answered,
        s.chat.refused,
        s.chat.errors,
        ms(s.chat.answer_total_ms.p50),
        ms(s.chat.refusal_ms.p50),
        s.server.startup_seconds,
        mb(s.server.peak_rss_bytes),
        `${s.kb.ingest_seconds} (${s.kb.model_load_seconds})`,
      ]),
    );
  }
  lines.push(
    '',
    '### Search (`POST /api/search`, top_k 8)',
    '',
    row(['KB', 'mode', 'response', 'processing_time_ms', 'mean results', 'errors']),
  );
  lines.push(row(['---', '---', '---:', '---:', '---:', '---:']));
  for (const s of report.scales) {
    for (const x of s.search) {
      lines.push(
        row([scaleName(s.scale), x.mode, triple(x.response_ms), triple(x.processing_ms), x.mean_results, x.errors]),
      );
    }
  }
  lines.push(
    '',
    '### HNSW recall@10 against an exact scan',
    '',
    `search_chunks uses hnsw.ef_search = ${SERVED_EF_SEARCH} with iterative scans; the lower setting shows what it buys. ` +
      'Times are one nearest-10 query inside the database, without HTTP.',
    '',
    row(['KB', 'ef_search', 'recall@10', 'HNSW ms', 'exact ms', 'index used']),
    row(['---', '---:', '---:', '---:', '---:', '---']),
  );
  for (const s of report.scales) {
    for (const r of s.recall ?? []) {
      lines.push(
        row([
          scaleName(s.scale),
          r.ef_search,
          r.recall_at_10.toFixed(3),
          ms(r.hnsw_ms),
          ms(r.exact_ms),
          r.hnsw_used ? 'yes' : '**no**',
        ]),
      );
    }
  }
  const explains = report.scales.filter((s) => s.explain_file).map((s) => `\`${s.explain_file}\``);
  if (explains.length)
    lines.push(
      '',
      `Query plans (EXPLAIN ANALYZE of every statement of search_chunks, in this folder): ${explains.join(', ')}.`,
    );

  const c = report.concurrency;
  if (c) {
    lines.push(
      '',
      `## Concurrency (${scaleName(c.scale)} KB)`,
      '',
      `Each visitor signs in beforehand, then all start at once and each asks ${report.options.rounds} questions one after another, ` +
        'reading every answer to its end. TTFB of the requests served (answers and refusals); a 503 is counted, not retried, and that visitor waits its Retry-After before its next question. ' +
        `Server peak RSS over the runs: ${mb(c.server_peak_rss_bytes)} MB.`,
      '',
      row([
        'visitors',
        'requests',
        'answered',
        'refused',
        'answers/s',
        'server time p50 / p99',
        'queue wait p99',
        'TTFB p50',
        'TTFB p99',
        'first delta p50',
        '503s (with Retry-After)',
        'errors',
        'wall s',
      ]),
      row(['---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
    );
    for (const r of c.runs) {
      lines.push(
        row([
          r.visitors,
          r.requests,
          r.answered,
          r.refused,
          r.answers_per_second,
          `${ms(r.server_ms.p50)} / ${ms(r.server_ms.p99)}`,
          ms(r.queue_ms.p99),
          ms(r.ttfb_ms.p50),
          ms(r.ttfb_ms.p99),
          ms(r.first_delta_ms.p50),
          `${r.unavailable_503} (${r.unavailable_with_retry_after})`,
          r.errors,
          r.wall_seconds,
        ]),
      );
    }
    const samples = c.runs.flatMap((r) => r.error_samples.map((e) => `${r.visitors} visitors: ${e}`));
    if (samples.length)
      lines.push('', 'Errors seen:', '', ...samples.map((e) => `- ${e.replace(/\s+/g, ' ').slice(0, 300)}`));
  }
  return `${lines.join('\n')}\n`;
}
