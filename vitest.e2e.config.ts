import { defineConfig } from 'vitest/config';

// The end-to-end test: the real server (child process) and the demo page in Chromium.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    // In CI (`CI=true`) an `.only` fails the run instead of quietly running one test of the file.
    allowOnly: process.env.CI !== 'true',
    testTimeout: 120_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
