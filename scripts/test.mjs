#!/usr/bin/env node
/**
 * `npm test`: every suite, one summary. Runs the type check, the Node tests (vitest), builds the bundles,
 * the widget tests in Chromium (@web/test-runner) and the end-to-end test, some side by side (`plan` below),
 * then prints `N passed, N failed, N skipped; steps: N ok, N failed` counted from the runners' JSON reports by
 * scripts/test-counts.mjs (CI reads `N passed, N failed` at the start of that line) and exits non-zero on any
 * failure. The type check, the builds and the dry run are steps, not tests: a failed one adds to the failed
 * count. A runner that crashes without a report counts as one failure; a file whose hooks failed counts its
 * tests as failed. Skipped tests are those whose inputs are absent (../shared, see scripts/lib/shared-data.mjs):
 * counted, so a run that skipped half the suite says so. In CI (`CI=true`) a skipped test that
 * scripts/test-counts.mjs's LISTED_SKIPS does not name with a reason fails the run (step "no unlisted skips").
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { skipCheck, summaryLine, vitestCounts } from './test-counts.mjs';

const RESULTS = 'test-results';
// Where each vitest step's time went, per file, into test-results/durations-<config>.json (node, workerd, e2e).
const DURATIONS = '--reporter=./scripts/lib/durations-reporter.mjs';
rmSync(RESULTS, { recursive: true, force: true });
mkdirSync(RESULTS, { recursive: true });

const steps = [
  { name: 'typecheck', cmd: ['npx', 'tsc', '-p', 'tsconfig.json'], step: true },
  // Formatting and lint (biome.jsonc; read-only here) and the import rules (.dependency-cruiser.cjs).
  { name: 'lint + format check (biome ci)', cmd: ['npx', 'biome', 'ci'], step: true },
  { name: 'dependency rules (dependency-cruiser)', cmd: ['npm', 'run', '--silent', 'lint:deps'], step: true },
  {
    name: 'node tests (vitest)',
    cmd: [
      'npx',
      'vitest',
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${RESULTS}/vitest.json`,
      DURATIONS,
    ],
    count: () => vitestCounts(readJson(`${RESULTS}/vitest.json`)),
  },
  { name: 'build', cmd: ['node', 'esbuild.config.mjs'], step: true },
  {
    // The deploy bundle as `wrangler deploy` would upload it, with every asset checked against Workers'
    // 25 MiB limit; the test model stands in for the real one.
    name: 'Workers deploy bundle (wrangler dry run, assets ≤ 25 MiB)',
    cmd: ['node', 'scripts/build-worker.mjs'],
    env: { KB_EMBED_MODEL: 'test-double/bert-384', KB_MODEL_DIR: 'test/fixtures/models' },
    step: true,
  },
  {
    name: 'Workers path (workerd + supabase-js + PostgREST over PGlite)',
    cmd: [
      'npx',
      'vitest',
      'run',
      '--config',
      'vitest.workerd.config.ts',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${RESULTS}/workerd.json`,
      DURATIONS,
    ],
    count: () => vitestCounts(readJson(`${RESULTS}/workerd.json`)),
  },
  {
    name: 'widget tests (web-test-runner, Chromium)',
    cmd: ['npx', 'web-test-runner'],
    count: () => readJson(`${RESULTS}/wtr.json`),
  },
  {
    name: 'end-to-end (server + Chromium)',
    cmd: [
      'npx',
      'vitest',
      'run',
      '--config',
      'vitest.e2e.config.ts',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${RESULTS}/e2e.json`,
      DURATIONS,
    ],
    count: () => vitestCounts(readJson(`${RESULTS}/e2e.json`)),
  },
];

// The order the steps run in: phases one after another; within a phase, lanes at once; within a lane, steps in
// order. Lanes share a phase only where neither reads what the other writes and together they leave the 2 cores
// of the machines this runs on less than full (the figures behind each choice: CONTRIBUTING.md, "How long the
// suite takes"). The first lane of a phase prints as it runs; the others print when they end.
const plan = [
  // tsc uses one core; biome and dependency-cruiser fit beside it.
  [['typecheck'], ['lint + format check (biome ci)', 'dependency rules (dependency-cruiser)']],
  [['node tests (vitest)']],
  [
    [
      'build',
      'Workers deploy bundle (wrangler dry run, assets ≤ 25 MiB)',
      'Workers path (workerd + supabase-js + PostgREST over PGlite)',
    ],
  ],
  // The end-to-end runner takes two files at a time (vitest.e2e.config.ts), each with its own server and
  // Chromium; the widget runner mostly waits on its one Chromium, so it costs the two little.
  [['end-to-end (server + Chromium)'], ['widget tests (web-test-runner, Chromium)']],
];
const byName = new Map(steps.map((step) => [step.name, step]));
const planned = plan.flat(2);
const missing = steps.filter((step) => !planned.includes(step.name)).map((step) => step.name);
if (missing.length > 0 || planned.some((name) => !byName.has(name)))
  throw new Error(`scripts/test.mjs: the plan and the steps differ (${missing.join(', ') || planned.join(', ')})`);

const results = new Map();
for (const lanes of plan) {
  await Promise.all(lanes.map((lane, i) => runLane(lane, i === 0)));
}

const total = { passed: 0, failed: 0, skipped: 0, skippedTests: [] };
const stepTotal = { ok: 0, failed: 0 };
const lines = [];
for (const step of steps) {
  const { status, seconds } = results.get(step.name);
  if (step.step) {
    stepTotal[status === 0 ? 'ok' : 'failed']++;
    lines.push(`${step.name}: ${status === 0 ? 'ok' : `failed (exit ${status})`} (${seconds})`);
    continue;
  }
  let counts;
  try {
    counts = step.count();
  } catch {
    counts = { passed: 0, failed: 1, skipped: 0 }; // no report: the runner itself failed
  }
  // A runner that exits non-zero must not pass silently even if its report looked clean.
  if (status !== 0 && counts.failed === 0) counts.failed = 1;
  total.passed += counts.passed;
  total.failed += counts.failed;
  total.skipped += counts.skipped ?? 0;
  total.skippedTests.push(...(counts.skippedTests ?? []));
  lines.push(
    `${step.name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped ?? 0} skipped (${seconds})`,
  );
}

if (process.env.CI === 'true') {
  // A test that does not run in CI is a test nobody runs: it must be listed with its reason.
  const check = skipCheck(total);
  stepTotal[check.ok ? 'ok' : 'failed']++;
  lines.push(...check.lines);
}

console.log(`\n${lines.join('\n')}`);
const summary = summaryLine(total, stepTotal);
writeFileSync(`${RESULTS}/summary.txt`, `${summary}\n`);
console.log(summary);
process.exit(total.failed + stepTotal.failed > 0 ? 1 : 0);

/** Runs a lane's steps in order; a lane that does not print live keeps its output for when it ends. */
async function runLane(names, live) {
  let kept = '';
  for (const name of names) {
    const step = byName.get(name);
    const header = `\n━━ ${step.name}: ${step.cmd.join(' ')}\n`;
    if (live) process.stdout.write(header);
    else kept += header;
    const started = Date.now();
    const child = spawn(step.cmd[0], step.cmd.slice(1), {
      stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0', ...step.env },
    });
    if (!live) {
      child.stdout.on('data', (data) => (kept += data));
      child.stderr.on('data', (data) => (kept += data));
    }
    const status = await new Promise((resolve) => {
      child.on('error', () => resolve(127));
      child.on('close', (code) => resolve(code ?? 1));
    });
    results.set(name, { status, seconds: `${((Date.now() - started) / 1000).toFixed(1)} s` });
  }
  if (!live) process.stdout.write(`${kept}\n━━ (printed when it ended: ${names.join(', ')})\n`);
}

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}
