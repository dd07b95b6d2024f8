#!/usr/bin/env node
/**
 * `npm test`: every suite, one summary. Runs the type check, the Node tests (vitest), builds the bundles,
 * the widget tests in Chromium (@web/test-runner) and the end-to-end test, then prints
 * `N passed, N failed, N skipped` counted from the runners' JSON reports (CI reads `N passed, N failed` at the
 * start of that line) and exits non-zero on any failure. A runner that crashes without a report counts as one
 * failure. Skipped tests are those whose inputs are absent (../shared, see scripts/lib/shared-data.mjs): counted, so
 * a run that skipped half the suite says so.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const RESULTS = 'test-results';
rmSync(RESULTS, { recursive: true, force: true });
mkdirSync(RESULTS, { recursive: true });

const steps = [
  { name: 'typecheck', cmd: ['npx', 'tsc', '-p', 'tsconfig.json'], count: exitCodeAsOne },
  // Formatting and lint (biome.jsonc; read-only here) and the import rules (.dependency-cruiser.cjs).
  { name: 'lint + format check (biome ci)', cmd: ['npx', 'biome', 'ci'], count: exitCodeAsOne },
  { name: 'dependency rules (dependency-cruiser)', cmd: ['npm', 'run', '--silent', 'lint:deps'], count: exitCodeAsOne },
  {
    name: 'node tests (vitest)',
    cmd: ['npx', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${RESULTS}/vitest.json`],
    count: () => vitestCounts(`${RESULTS}/vitest.json`),
  },
  { name: 'build', cmd: ['node', 'esbuild.config.mjs'], count: exitCodeAsOne },
  {
    // The deploy bundle as `wrangler deploy` would upload it, with every asset checked against Workers'
    // 25 MiB limit; the test model stands in for the real one.
    name: 'Workers deploy bundle (wrangler dry run, assets ≤ 25 MiB)',
    cmd: ['node', 'scripts/build-worker.mjs'],
    env: { KB_EMBED_MODEL: 'test-double/bert-384', KB_MODEL_DIR: 'test/fixtures/models' },
    count: exitCodeAsOne,
  },
  {
    name: 'Workers path (workerd + supabase-js + PostgREST over PGlite)',
    cmd: ['npx', 'vitest', 'run', '--config', 'vitest.workerd.config.ts', '--reporter=default', '--reporter=json', `--outputFile.json=${RESULTS}/workerd.json`],
    count: () => vitestCounts(`${RESULTS}/workerd.json`),
  },
  { name: 'widget tests (web-test-runner, Chromium)', cmd: ['npx', 'web-test-runner'], count: () => wtrCounts(`${RESULTS}/wtr.json`) },
  {
    name: 'end-to-end (server + Chromium)',
    cmd: ['npx', 'vitest', 'run', '--config', 'vitest.e2e.config.ts', '--reporter=default', '--reporter=json', `--outputFile.json=${RESULTS}/e2e.json`],
    count: () => vitestCounts(`${RESULTS}/e2e.json`),
  },
];

const total = { passed: 0, failed: 0, skipped: 0 };
const lines = [];
for (const step of steps) {
  console.log(`\n━━ ${step.name}: ${step.cmd.join(' ')}`);
  const started = Date.now();
  const { status } = spawnSync(step.cmd[0], step.cmd.slice(1), {
    stdio: 'inherit',
    env: { ...process.env, FORCE_COLOR: '0', ...step.env },
  });
  let counts;
  try {
    counts = step.count(status);
  } catch {
    counts = { passed: 0, failed: 1, skipped: 0 }; // no report: the runner itself failed
  }
  // A runner that exits non-zero must not pass silently even if its report looked clean.
  if (status !== 0 && counts.failed === 0) counts.failed = 1;
  total.passed += counts.passed;
  total.failed += counts.failed;
  total.skipped += counts.skipped ?? 0;
  lines.push(`${step.name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped ?? 0} skipped (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

console.log(`\n${lines.join('\n')}`);
const summary = `${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`;
writeFileSync(`${RESULTS}/summary.txt`, `${summary}\n`);
console.log(summary);
process.exit(total.failed > 0 ? 1 : 0);

function exitCodeAsOne(status) {
  return status === 0 ? { passed: 1, failed: 0, skipped: 0 } : { passed: 0, failed: 1, skipped: 0 };
}

function vitestCounts(file) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  // A file that fails to load has no failed *tests* but a failed suite; count it.
  const brokenFiles = (report.testResults ?? []).filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length;
  return {
    passed: report.numPassedTests,
    failed: report.numFailedTests + brokenFiles,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
}

function wtrCounts(file) {
  const { passed, failed, skipped = 0 } = JSON.parse(readFileSync(file, 'utf8'));
  return { passed, failed, skipped };
}
