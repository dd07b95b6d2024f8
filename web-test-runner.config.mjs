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
import { wtrCounts } from './scripts/test-counts.mjs';

// The shipped bundles are tested too (widget/kb-chat.bundle.test.ts), so build them first, outside dist/.
export const BUNDLE_DIR = 'test-results/widget-dist';
// Without the .br/.gz files and the wasm copy: the dev server sends files as they are.
await buildWidget({ outdir: BUNDLE_DIR, compress: false });

/** Counts every test of every browser session (scripts/test-counts.mjs: a file that broke counts its tests as failed). */
function jsonSummaryReporter({ outputFile = 'test-results/wtr.json' } = {}) {
  return {
    onTestRunFinished({ sessions }) {
      mkdirSync('test-results', { recursive: true });
      writeFileSync(outputFile, `${JSON.stringify(wtrCounts(sessions))}\n`);
    },
  };
}

export default {
  files: ['widget/**/*.test.ts', 'markdown/**/*.test.ts'],
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
  // In CI (`CI=true`) a `.only` left in a widget test fails the run: mocha would otherwise run that test alone and
  // drop its siblings without counting them as skipped. Locally it still focuses a run.
  testFramework: { config: { timeout: 30_000, forbidOnly: process.env.CI === 'true' } },
  testsFinishTimeout: 900_000,
  browserStartTimeout: 60_000,
  reporters: [defaultReporter(), summaryReporter(), jsonSummaryReporter()],
};
