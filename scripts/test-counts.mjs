/**
 * How `npm test` (scripts/test.mjs) counts the runners' reports into `N passed, N failed, N skipped`.
 *
 * The runners' own totals mislead in one case: when a file's `beforeAll` hook throws (the server or Chromium
 * did not start), vitest marks the file failed but reports its tests as *skipped*, so a run that tested
 * nothing read "1 failed, 60 skipped". Here a file that failed without a failing test, or with an error of its
 * own (a hook, an import, `afterAll`), counts every test of it that did not pass as failed, and at least one
 * failure. Tests skipped on purpose in a healthy file (inputs absent, see scripts/lib/shared-data.mjs) stay skipped.
 * web-test-runner sessions (one per file) are counted by the same rule.
 */

/**
 * Counts vitest's JSON report (`--reporter=json`).
 * @param {{ testResults?: Array<{ status: string, message?: string, assertionResults: Array<{ status: string }> }> }} report
 */
export function vitestCounts(report) {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const file of report.testResults ?? []) {
    const tests = file.assertionResults.map((t) => t.status);
    fileCounts(counts, tests, file.status === 'failed', Boolean(file.message));
  }
  return counts;
}

/**
 * Counts web-test-runner's sessions (what a reporter's `onTestRunFinished` receives).
 * @param {Array<{ passed?: boolean, errors?: unknown[], testResults?: WtrSuite }>} sessions
 * @typedef {{ tests: Array<{ passed: boolean, skipped: boolean }>, suites: WtrSuite[] }} WtrSuite
 */
export function wtrCounts(sessions) {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const session of sessions) {
    const tests = [];
    const visit = (suite) => {
      for (const test of suite.tests) tests.push(test.skipped ? 'skipped' : test.passed ? 'passed' : 'failed');
      for (const child of suite.suites) visit(child);
    };
    if (session.testResults) visit(session.testResults);
    fileCounts(counts, tests, session.passed === false, (session.errors ?? []).length > 0);
  }
  return counts;
}

/**
 * One file's tests. `failed`: the runner failed the file; `ownError`: with an error outside any test.
 * @param {{ passed: number, failed: number, skipped: number }} counts
 * @param {string[]} statuses
 */
function fileCounts(counts, statuses, failed, ownError) {
  const passed = statuses.filter((s) => s === 'passed').length;
  const failedTests = statuses.filter((s) => s === 'failed').length;
  counts.passed += passed;
  if (failed && (ownError || failedTests === 0)) {
    // Its tests did not run because the file broke: none of them is a pass, none was skipped on purpose.
    counts.failed += Math.max(1, statuses.length - passed);
  } else {
    counts.failed += failedTests;
    counts.skipped += statuses.length - passed - failedTests;
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
