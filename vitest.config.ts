import { defineConfig } from 'vitest/config';
import { longestFirst } from './scripts/lib/longest-first.ts';

// Node-side tests: protocol, server, ingestion, scripts, the generated schema files. Widget tests run in Chromium under
// @web/test-runner (web-test-runner.config.mjs); the end-to-end test has its own config.
export default defineConfig({
  test: {
    include: ['protocol/**/*.test.ts', 'server/**/*.test.ts', 'scripts/**/*.test.ts', 'supabase/**/*.test.ts'],
    // In CI (`CI=true`) an `.only` fails the run instead of quietly running one test of the file.
    allowOnly: process.env.CI !== 'true',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // PGlite and the ONNX runtime are heavy; 2 cores.
    maxWorkers: 2,
    // The slowest files first, slowest first (the CI run of 2026-11-27, scripts/lib/longest-first.ts says why).
    sequence: {
      sequencer: longestFirst([
        'scripts/eval/floor.test.ts',
        'server/ingest/cli.test.ts',
        'server/ingest/sync.test.ts',
        'server/feedback/route.test.ts',
        'server/store/pglite.test.ts',
        'server/ingest/corpus.test.ts',
        'scripts/eval/docs-qa.test.ts',
        'scripts/eval/evaluate.test.ts',
        'server/ingest/generator-markup.corpus.test.ts',
      ]),
    },
  },
});
