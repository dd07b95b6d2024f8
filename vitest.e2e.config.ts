import { defineConfig } from 'vitest/config';

// The end-to-end test: the real server (child process) and the demo page in Chromium.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
