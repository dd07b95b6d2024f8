/**
 * `npm run bench -- sync [--corpus <folder>] [--changed 5] [--runs 3] [--root <checkout>] [--label after]
 *   [--out bench-results]`
 *
 * A re-sync of a documentation site, as the owner's scheduled job runs it: the corpus's Markdown pages served
 * on 127.0.0.1 with ETag and Last-Modified (static-site.ts), `npm run ingest -- <sitemap> --allow-private
 * --json` run as a child process (the test-double model) into a fresh embedded database — once to fill it,
 * then `--runs` times with nothing changed and `--runs` times with `--changed` pages edited before each run.
 * Per run: the command's wall-clock seconds (process start, model load when something changed, database
 * open included), the body bytes the site sent, its 200 and 304 answers, and the outcomes the command
 * reported. `--root` runs another checkout's command (e.g. `git worktree add /tmp/before <commit>`, with its
 * node_modules) under the same harness: "before" is a command that downloads every page again.
 * Writes <out>/<date>-sync-<label>.json and .md (printed too). Reports numbers; asserts nothing.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sharedData } from '../lib/shared-data.mjs';
import { machineInfo } from './report.ts';
import { startStaticSite, type StaticSite } from './static-site.ts';
import { percentiles, type Percentiles } from './stats.ts';

const USAGE =
  'usage: npm run bench -- sync [--corpus <folder>] [--changed 5] [--runs 3] [--root <checkout>] [--label after] [--out bench-results]';

interface Run {
  seconds: number;
  body_bytes: number;
  ok: number;
  not_modified: number;
  added: number;
  updated: number;
  unchanged: number;
  failed: number;
}

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      corpus: { type: 'string', default: sharedData('docs-corpus/railway-docs') },
      changed: { type: 'string', default: '5' },
      runs: { type: 'string', default: '3' },
      root: { type: 'string', default: process.cwd() },
      label: { type: 'string', default: 'after' },
      out: { type: 'string', default: 'bench-results' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return void console.log(USAGE);
  const changed = Number(values.changed);
  const runs = Number(values.runs);
  const root = path.resolve(values.root);
  const site = await startStaticSite(values.corpus);
  const dataDir = await mkdtemp(path.join(tmpdir(), 'kb-bench-sync-'));
  const started = performance.now();
  try {
    console.error(`${site.pages} pages at ${site.sitemap}; ingesting with ${root}`);
    const initial = await measure(site, root, dataDir);
    console.error(`initial: ${initial.seconds.toFixed(1)} s, ${initial.body_bytes} bytes, ${initial.added} added`);
    const unchanged: Run[] = [];
    for (let i = 0; i < runs; i++) {
      unchanged.push(await measure(site, root, dataDir));
      console.error(`nothing changed #${i + 1}: ${JSON.stringify(unchanged.at(-1))}`);
    }
    const edited: Run[] = [];
    for (let i = 0; i < runs; i++) {
      site.change(changed);
      edited.push(await measure(site, root, dataDir));
      console.error(`${changed} changed #${i + 1}: ${JSON.stringify(edited.at(-1))}`);
    }
    const report = {
      label: values.label,
      date: new Date().toISOString(),
      command: `npm run bench -- sync ${argv.join(' ')}`.trim(),
      ingest_command: 'npm run ingest -- <sitemap> --allow-private --json (KB_EMBED_MODEL=test-double/bert-384)',
      root,
      corpus: values.corpus,
      pages: site.pages,
      changed_per_run: changed,
      runs,
      seconds: (performance.now() - started) / 1000,
      machine: machineInfo(),
      initial,
      nothing_changed: summarise(unchanged),
      pages_changed: summarise(edited),
    };
    const day = report.date.slice(0, 10);
    await mkdir(values.out, { recursive: true });
    const base = path.join(values.out, `${day}-sync-${values.label}`);
    await writeFile(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
    const md = markdown(report);
    await writeFile(`${base}.md`, md);
    console.log(md);
  } finally {
    await site.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function measure(site: StaticSite, root: string, dataDir: string): Promise<Run> {
  site.resetCounters();
  const start = performance.now();
  const { code, stdout, stderr } = await run(root, [site.sitemap, '--allow-private', '--json'], {
    KB_DATA_DIR: dataDir,
    KB_EMBED_MODEL: 'test-double/bert-384',
    KB_MODEL_DIR: path.join(root, 'test/fixtures/models'),
  });
  const seconds = (performance.now() - start) / 1000;
  if (code !== 0) throw new Error(`ingest exited with ${code}:\n${stderr.slice(-2000)}`);
  const summary = JSON.parse(stdout) as { added: number; updated: number; unchanged: number; failed: unknown[] };
  return {
    seconds,
    body_bytes: site.counters.bodyBytes,
    ok: site.counters.ok,
    not_modified: site.counters.notModified,
    added: summary.added,
    updated: summary.updated,
    unchanged: summary.unchanged,
    failed: summary.failed.length,
  };
}

function run(
  cwd: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/ingest.ts', ...args], {
      cwd,
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function summarise(runs: Run[]): { count: number; seconds: Percentiles; body_bytes: Percentiles; runs: Run[] } {
  return {
    count: runs.length,
    seconds: percentiles(runs.map((r) => r.seconds)),
    body_bytes: percentiles(runs.map((r) => r.body_bytes)),
    runs,
  };
}

function markdown(report: {
  label: string;
  date: string;
  command: string;
  root: string;
  pages: number;
  changed_per_run: number;
  machine: ReturnType<typeof machineInfo>;
  initial: Run;
  nothing_changed: ReturnType<typeof summarise>;
  pages_changed: ReturnType<typeof summarise>;
}): string {
  const kib = (b: number | null) => (b === null ? 'n/a' : `${(b / 1024).toFixed(1)} KiB`);
  const s = (x: number | null) => (x === null ? 'n/a' : x.toFixed(2));
  const line = (name: string, r: ReturnType<typeof summarise>) => {
    const last = r.runs.at(-1)!;
    return `| ${name} | ${r.count} | ${s(r.seconds.p50)} / ${s(r.seconds.p95)} | ${kib(r.body_bytes.p50)} | ${last.ok} / ${last.not_modified} | ${last.added} / ${last.updated} / ${last.unchanged} / ${last.failed} |`;
  };
  return [
    `## Re-sync of ${report.pages} pages over local HTTP (${report.label})`,
    '',
    `${report.date}, commit ${report.machine.git_commit?.slice(0, 10) ?? 'n/a'} of the harness, command run in ${report.root}; ` +
      `${report.machine.cpus} × ${report.machine.cpu_model ?? 'cpu'}, Node ${report.machine.node}. \`${report.command}\``,
    '',
    '| run | count | seconds p50 / p95 | body bytes p50 | 200 / 304 (last run) | added / updated / unchanged / failed (last run) |',
    '|---|---|---|---|---|---|',
    `| first ingest | 1 | ${s(report.initial.seconds)} | ${kib(report.initial.body_bytes)} | ${report.initial.ok} / ${report.initial.not_modified} | ${report.initial.added} / ${report.initial.updated} / ${report.initial.unchanged} / ${report.initial.failed} |`,
    line('nothing changed', report.nothing_changed),
    line(`${report.changed_per_run} pages changed`, report.pages_changed),
    '',
  ].join('\n');
}
