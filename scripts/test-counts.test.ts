/**
 * The counting `npm test` prints, fed with the runners' real reports: vitest and web-test-runner each run the
 * fixtures in scripts/test-counts.fixtures (files whose setup hook throws, and a healthy file), so a change in
 * either runner's report shape shows here rather than as a wrong summary line.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { skipCheck, summaryLine, unlistedSkips, vitestCounts, wtrCounts } from './test-counts.mjs';

const FIXTURES = new URL('./test-counts.fixtures/', import.meta.url).pathname;
const ROOT = new URL('../', import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), 'kb-test-counts-'));

function run(bin: string, args: string[], env: Record<string, string> = {}): void {
  const { status, stderr } = spawnSync(process.execPath, [join(ROOT, 'node_modules', bin), ...args], {
    cwd: ROOT,
    env: { ...process.env, FORCE_COLOR: '0', ...env },
    encoding: 'utf8',
  });
  // Both runners exit 1 here: the fixtures fail on purpose. Anything else means no report was written.
  expect(status, stderr).toBe(1);
}

function vitestReport(fixture: string) {
  const file = join(out, `${fixture}.json`);
  run('vitest/vitest.mjs', [
    'run',
    '--config',
    join(FIXTURES, 'vitest.config.mjs'),
    '--root',
    FIXTURES,
    fixture,
    '--reporter=json',
    `--outputFile.json=${file}`,
  ]);
  return JSON.parse(readFileSync(file, 'utf8'));
}

describe('vitest report', () => {
  it('counts the tests of a file whose beforeAll throws as failed, not skipped', () => {
    const report = vitestReport('server-fails.fixture.ts');
    // What vitest itself says, which the old summary printed.
    expect([report.numFailedTests, report.numPendingTests]).toEqual([0, 2]);
    expect(vitestCounts(report)).toEqual({ passed: 0, failed: 2, skipped: 0, skippedTests: [] });
  });

  it('counts the tests under a describe whose beforeAll throws as failed, the ones that ran as they ran', () => {
    const report = vitestReport('describe-hook-fails.fixture.ts');
    expect([report.numPassedTests, report.numFailedTests, report.numPendingTests]).toEqual([1, 0, 1]);
    expect(vitestCounts(report)).toEqual({ passed: 1, failed: 1, skipped: 0, skippedTests: [] });
  });

  it("keeps a healthy file's skipped test skipped", () => {
    expect(vitestCounts(vitestReport('healthy.fixture.ts'))).toEqual({
      passed: 1,
      failed: 1,
      skipped: 1,
      skippedTests: ['scripts/test-counts.fixtures/healthy.fixture.ts › needs the shared data'],
    });
  });
});

describe('web-test-runner sessions', () => {
  it('counts the tests of a file whose before hook throws as failed, a healthy file test by test', () => {
    const file = join(out, 'wtr.json');
    run('@web/test-runner/dist/bin.js', ['--config', join(FIXTURES, 'wtr.config.mjs')], { KB_WTR_SESSIONS: file });
    const sessions = JSON.parse(readFileSync(file, 'utf8'));
    expect(sessions).toHaveLength(2);
    // before-fails: 2 failed; healthy: 1 passed, 1 failed, 1 skipped.
    expect(wtrCounts(sessions)).toMatchObject({ passed: 1, failed: 3, skipped: 1 });
    expect(wtrCounts(sessions).skippedTests).toEqual([
      expect.stringMatching(/^scripts\/test-counts\.fixtures\/wtr-healthy\.fixture\.js › .+/),
    ]);
  });
});

describe('summary line', () => {
  it('adds a failed build step to the failed count and reports steps apart from tests', () => {
    const tests = { passed: 61, failed: 0, skipped: 0 };
    expect(summaryLine(tests, { ok: 3, failed: 0 })).toBe('61 passed, 0 failed, 0 skipped; steps: 3 ok, 0 failed');
    expect(summaryLine(tests, { ok: 2, failed: 1 })).toMatch(/^61 passed, 1 failed, /);
  });
});

describe('skips in CI', () => {
  const skipped = 'scripts/test-counts.fixtures/healthy.fixture.ts › needs the shared data';

  it('fails a run with a skipped test nobody listed, naming it', () => {
    const check = skipCheck({ skipped: 1, skippedTests: [skipped] }, []);
    expect(check.ok).toBe(false);
    expect(check.lines.join('\n')).toContain(skipped);
  });

  it('passes a skip listed with its reason, and not one listed without a reason', () => {
    expect(skipCheck({ skipped: 1, skippedTests: [skipped] }, [{ test: skipped, reason: 'no GPU in CI' }]).ok).toBe(
      true,
    );
    expect(unlistedSkips([skipped], [{ test: skipped, reason: ' ' }])).toEqual([skipped]);
  });

  it('fails a skip counted without a name, and passes a run with none', () => {
    expect(skipCheck({ skipped: 2, skippedTests: [skipped] }, [{ test: skipped, reason: 'r' }]).ok).toBe(false);
    expect(skipCheck({ skipped: 0, skippedTests: [] }).ok).toBe(true);
  });
});
