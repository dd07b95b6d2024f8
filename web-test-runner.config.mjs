/**
 * Widget tests in real Chromium (the system one; test tools never download a browser).
 *
 *   npx web-test-runner        runs once and exits; writes test-results/wtr.json = {passed, failed, skipped}
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher } from '@web/test-runner-chrome';
import { defaultReporter, summaryReporter } from '@web/test-runner';
import { buildWidget } from './esbuild.config.mjs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './scripts/lib/chromium.mjs';
import { createFakeApi } from './widget/test/fake-api.mjs';

// The shipped bundles are tested too (widget/kb-chat.bundle.test.ts), so build them first, outside dist/.
export const BUNDLE_DIR = 'test-results/widget-dist';
// Without the .br/.gz files and the wasm copy: the dev server sends files as they are.
await buildWidget({ outdir: BUNDLE_DIR, compress: false });

/** Counts every test of every browser session; a file that failed to load counts as one failure. */
function jsonSummaryReporter({ outputFile = 'test-results/wtr.json' } = {}) {
  return {
    onTestRunFinished({ sessions }) {
      const counts = { passed: 0, failed: 0, skipped: 0 };
      const visit = (suite) => {
        for (const test of suite.tests) {
          if (test.skipped) counts.skipped++;
          else if (test.passed) counts.passed++;
          else counts.failed++;
        }
        for (const child of suite.suites) visit(child);
      };
      for (const session of sessions) {
        const failedBefore = counts.failed;
        if (session.testResults) visit(session.testResults);
        // A file that failed to load, or an error outside any test (a failing hook, an uncaught error):
        // one failure for the file, unless its tests already failed.
        if (!session.passed && counts.failed === failedBefore) counts.failed++;
      }
      mkdirSync('test-results', { recursive: true });
      writeFileSync(outputFile, `${JSON.stringify(counts)}\n`);
    },
  };
}

export default {
  files: ['widget/**/*.test.ts'],
  rootDir: '.',
  nodeResolve: { exportConditions: ['production'] },
  plugins: [esbuildPlugin({ ts: true, tsconfig: './tsconfig.json', target: 'es2022' })],
  middleware: [createFakeApi()],
  browsers: [
    chromeLauncher({
      launchOptions: { executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS },
    }),
  ],
  // One file at a time: the fake API's request log is shared, and the model load is CPU-heavy on 2 cores.
  concurrency: 1,
  watch: false,
  testFramework: { config: { timeout: 30_000 } },
  testsFinishTimeout: 900_000,
  browserStartTimeout: 60_000,
  reporters: [defaultReporter(), summaryReporter(), jsonSummaryReporter()],
};
