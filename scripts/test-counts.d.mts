export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  /** "file › suite › test" of each skipped test. */
  skippedTests: string[];
}
export interface WtrSuite {
  name?: string;
  tests: Array<{ name?: string; passed: boolean; skipped: boolean }>;
  suites: WtrSuite[];
}
export declare const LISTED_SKIPS: Array<{ test: string; reason: string }>;
export declare function unlistedSkips(
  skippedTests: string[],
  listed?: Array<{ test: string; reason: string }>,
): string[];
export declare function vitestCounts(report: {
  testResults?: Array<{
    name?: string;
    status: string;
    message?: string;
    assertionResults: Array<{ status: string; title?: string; ancestorTitles?: string[] }>;
  }>;
}): Counts;
export declare function wtrCounts(
  sessions: Array<{ testFile?: string; passed?: boolean; errors?: unknown[]; testResults?: WtrSuite }>,
): Counts;
export declare function summaryLine(
  tests: Pick<Counts, 'passed' | 'failed' | 'skipped'>,
  steps: { ok: number; failed: number },
): string;
export declare function skipCheck(
  total: { skipped: number; skippedTests: string[] },
  listed?: Array<{ test: string; reason: string }>,
): { ok: boolean; lines: string[] };
