export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}
export interface WtrSuite {
  tests: Array<{ passed: boolean; skipped: boolean }>;
  suites: WtrSuite[];
}
export declare function vitestCounts(report: {
  testResults?: Array<{ status: string; message?: string; assertionResults: Array<{ status: string }> }>;
}): Counts;
export declare function wtrCounts(
  sessions: Array<{ passed?: boolean; errors?: unknown[]; testResults?: WtrSuite }>,
): Counts;
export declare function summaryLine(tests: Counts, steps: { ok: number; failed: number }): string;
