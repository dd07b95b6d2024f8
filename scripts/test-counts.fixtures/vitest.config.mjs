// Only for scripts/test-counts.test.ts and scripts/lib/shared-data.test.ts: runs the fixtures in this folder
// (which fail on purpose).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // In CI (`CI=true`) an `.only` fails the run, as in the repository's own configs.
  test: { include: ['*.fixture.ts'], testTimeout: 10_000, allowOnly: process.env.CI !== 'true' },
});
