/**
 * How `npm test` (scripts/test.mjs) counts the runners' reports into `N passed, N failed, N skipped`.
 *
 * The runners' own totals mislead in one case: when a file's `beforeAll` hook throws (the server or Chromium
 * did not start), vitest marks the file failed but reports its tests as *skipped*, so a run that tested
 * nothing read "1 failed, 60 skipped". Here a file that failed without a failing test, or with an error of its
 * own (a hook, an import, `afterAll`), counts every test of it that did not pass as failed, and at least one
 * failure. Tests skipped on purpose in a healthy file (inputs absent, see scripts/lib/shared-data.mjs) stay skipped.
 * web-test-runner sessions (one per file) are counted by the same rule.
 *
 * Each count also names its skipped tests (`skippedTests`, "file › suite › test"): in CI (`CI=true`) a skip
 * is a failure unless LISTED_SKIPS names it with its reason (`unlistedSkips`, applied by scripts/test.mjs).
 */

/**
 * Tests allowed to skip in CI, each `{ test: 'file › suite › test', reason: 'why it cannot run there' }`.
 * Empty: in CI every test runs (the shared data must be there, see scripts/lib/shared-data.mjs). Add an entry
 * only with a reason a reviewer can check.
 * @type {Array<{ test: string, reason: string }>}
 */
export const LISTED_SKIPS = [];

/**
 * The skipped tests that LISTED_SKIPS does not name: what makes a CI run fail.
 * @param {string[]} skippedTests
 * @param {Array<{ test: string, reason: string }>} [listed]
 */
export function unlistedSkips(skippedTests, listed = LISTED_SKIPS) {
  const allowed = new Set(listed.filter((entry) => entry.reason.trim()).map((entry) => entry.test));
  return skippedTests.filter((test) => !allowed.has(test));
}

/**
 * The CI rule on a run's totals: every skipped test is named in `listed` with a reason. A skip counted without
 * a name (a runner that reported numbers only) cannot be listed, so it fails too.
 * @param {{ skipped: number, skippedTests: string[] }} total
 * @param {Array<{ test: string, reason: string }>} [listed]
 * @returns {{ ok: boolean, lines: string[] }}
 */
export function skipCheck(total, listed = LISTED_SKIPS) {
  const unlisted = unlistedSkips(total.skippedTests, listed);
  const unnamed = Math.max(0, total.skipped - total.skippedTests.length);
  const ok = unlisted.length === 0 && unnamed === 0;
  const lines = [`no unlisted skips in CI: ${ok ? 'ok' : `failed (${unlisted.length + unnamed} skipped)`}`];
  for (const test of unlisted) lines.push(`  skipped, not in LISTED_SKIPS (scripts/test-counts.mjs): ${test}`);
  if (unnamed > 0) lines.push(`  ${unnamed} skipped without a name`);
  return { ok, lines };
}

/**
 * Counts vitest's JSON report (`--reporter=json`).
 * @param {{ testResults?: Array<{ name?: string, status: string, message?: string, assertionResults: Array<{ status: string, title?: string, ancestorTitles?: string[] }> }> }} report
 */
export function vitestCounts(report) {
  const counts = { passed: 0, failed: 0, skipped: 0, skippedTests: [] };
  for (const file of report.testResults ?? []) {
    const name = relativeName(file.name ?? '');
    const tests = file.assertionResults.map((t) => ({
      status: t.status,
      name: [name, ...(t.ancestorTitles ?? []), t.title ?? ''].join(' › '),
    }));
    fileCounts(counts, tests, file.status === 'failed', Boolean(file.message));
  }
  return counts;
}

/**
 * Counts web-test-runner's sessions (what a reporter's `onTestRunFinished` receives).
 * @param {Array<{ testFile?: string, passed?: boolean, errors?: unknown[], testResults?: WtrSuite }>} sessions
 * @typedef {{ name?: string, tests: Array<{ name?: string, passed: boolean, skipped: boolean }>, suites: WtrSuite[] }} WtrSuite
 */
export function wtrCounts(sessions) {
  const counts = { passed: 0, failed: 0, skipped: 0, skippedTests: [] };
  for (const session of sessions) {
    const tests = [];
    const visit = (suite, path) => {
      for (const test of suite.tests) {
        const status = test.skipped ? 'skipped' : test.passed ? 'passed' : 'failed';
        tests.push({ status, name: [...path, test.name ?? ''].join(' › ') });
      }
      for (const child of suite.suites) visit(child, [...path, child.name ?? '']);
    };
    if (session.testResults) visit(session.testResults, [relativeName(session.testFile ?? '')]);
    fileCounts(counts, tests, session.passed === false, (session.errors ?? []).length > 0);
  }
  return counts;
}

/** A report's file path relative to the repository (web-test-runner gives it as `/widget/x.test.ts`). */
function relativeName(file) {
  const root = new URL('../', import.meta.url).pathname;
  return (file.startsWith(root) ? file.slice(root.length) : file).replace(/^\//, '');
}

/**
 * One file's tests. `failed`: the runner failed the file; `ownError`: with an error outside any test.
 * @param {{ passed: number, failed: number, skipped: number, skippedTests: string[] }} counts
 * @param {Array<{ status: string, name: string }>} tests
 */
function fileCounts(counts, tests, failed, ownError) {
  const statuses = tests.map((t) => t.status);
  const passed = statuses.filter((s) => s === 'passed').length;
  const failedTests = statuses.filter((s) => s === 'failed').length;
  counts.passed += passed;
  if (failed && (ownError || failedTests === 0)) {
    // Its tests did not run because the file broke: none of them is a pass, none was skipped on purpose.
    counts.failed += Math.max(1, statuses.length - passed);
  } else {
    counts.failed += failedTests;
    counts.skipped += statuses.length - passed - failedTests;
    for (const test of tests)
      if (test.status !== 'passed' && test.status !== 'failed') counts.skippedTests.push(test.name);
  }
}

/**
 * The summary line CI reads (`N passed, N failed` first). A failed build step adds to the failed count, so a
 * run whose build broke can never read "0 failed".
 * @param {{ passed: number, failed: number, skipped: number }} tests
 * @param {{ ok: number, failed: number }} steps
 */
export function summaryLine(tests, steps) {
  return `${tests.passed} passed, ${tests.failed + steps.failed} failed, ${tests.skipped} skipped; steps: ${steps.ok} ok, ${steps.failed} failed`;
}
