import { defineConfig } from 'vitest/config';

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
  },
});
