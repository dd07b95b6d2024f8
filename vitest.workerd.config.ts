import { defineConfig } from 'vitest/config';

// The production path: the Worker bundle (wrangler dry run) in workerd via Miniflare, against a
// PostgREST-compatible RPC server over PGlite; plus the schema check of supabase/migrations.
export default defineConfig({
  test: {
    include: ['test/workerd/**/*.test.ts'],
    // In CI (`CI=true`) an `.only` fails the run instead of quietly running one test of the file.
    allowOnly: process.env.CI !== 'true',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    // The Worker bundle is built once for the run, not once per test file (test/workerd/bundle.setup.ts).
    globalSetup: ['test/workerd/bundle.setup.ts'],
  },
});
