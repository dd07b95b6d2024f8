import { defineConfig } from 'vitest/config';
import { longestFirst } from './scripts/lib/longest-first.ts';

// The end-to-end test: the real server (child process) and the demo page in Chromium.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    // In CI (`CI=true`) an `.only` fails the run instead of quietly running one test of the file.
    allowOnly: process.env.CI !== 'true',
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // One first start (initdb, migrations, the demo ingestion) for the run; each file copies its data directory.
    globalSetup: ['test/e2e/seeded.setup.ts'],
    // Two files at once, each with its own server, data directory (mkdtemp) and Chromium on port 0: nothing is
    // shared between files but the built dist/ they read. One file at a time left a core idle once the widget
    // tests beside them had ended (CONTRIBUTING.md, "How long the suite takes").
    maxWorkers: 2,
    // The slowest files first, so the short ones fill both workers at the end (each file's time in the CI run
    // of 2bb2744, as vitest printed it; scripts/lib/longest-first.ts says why).
    sequence: {
      sequencer: longestFirst([
        'test/e2e/generative.test.ts',
        'test/e2e/crash.test.ts',
        'test/e2e/console.test.ts',
        'test/e2e/widget-a11y.test.ts',
        'test/e2e/shutdown.test.ts',
        'test/e2e/first-visit.test.ts',
        'test/e2e/console-xss.test.ts',
        'test/e2e/console-newcomer.test.ts',
        'test/e2e/demo-newcomer.test.ts',
        'test/e2e/inline-shortcut.test.ts',
        'test/e2e/console-sync.test.ts',
        'test/e2e/strict-page.test.ts',
      ]),
    },
  },
});
