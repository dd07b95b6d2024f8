// Only for scripts/test-counts.test.ts: runs these fixtures so the counting is fed vitest's real report.
export default { test: { include: ['*.fixture.ts'] } };
