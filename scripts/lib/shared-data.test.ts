/**
 * The one lookup every test that needs ../shared/data goes through: it skips on a developer's clone without
 * the data and fails in CI (`CI=true`), here with a folder that does not exist and with vitest itself running a
 * file that asks for a missing path (scripts/test-counts.fixtures/needs-shared.fixture.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lookUpSharedData } from './shared-data.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const FIXTURES = join(ROOT, 'scripts/test-counts.fixtures');

describe('lookUpSharedData', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kb-shared-'));
  mkdirSync(join(dir, 'xss'));
  writeFileSync(join(dir, 'xss', 'list.txt'), 'x');
  const root = pathToFileURL(`${dir}/`);

  it('finds what is there, with or without CI', () => {
    expect(lookUpSharedData({ root, ci: false }, ['xss', 'xss/list.txt'])).toBe(true);
    expect(lookUpSharedData({ root, ci: true }, ['xss/list.txt'])).toBe(true);
  });

  it('answers false for a missing path off CI, and throws naming it in CI', () => {
    expect(lookUpSharedData({ root, ci: false }, ['xss', 'docs-corpus/railway-docs'])).toBe(false);
    expect(() => lookUpSharedData({ root, ci: true }, ['xss', 'docs-corpus/railway-docs'])).toThrow(
      /CI=true.*docs-corpus\/railway-docs/,
    );
  });
});

function runFixture(fixture: string, ci: boolean) {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0' };
  delete env.CI;
  if (ci) env.CI = 'true';
  return spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', join(FIXTURES, 'vitest.config.mjs')].concat([
      '--root',
      FIXTURES,
      fixture,
    ]),
    { cwd: ROOT, env, encoding: 'utf8' },
  );
}

describe('vitest on a file that needs a missing path', () => {
  it('skips it off CI and fails it in CI', () => {
    const local = runFixture('needs-shared.fixture.ts', false);
    expect(local.status, local.stdout + local.stderr).toBe(0);
    expect(local.stdout).toMatch(/1 skipped/);
    const ci = runFixture('needs-shared.fixture.ts', true);
    expect(ci.status).toBe(1);
    expect(ci.stdout + ci.stderr).toContain('kb-chat-test-never-present');
  });
});

describe('an .only left in a test', () => {
  it('fails the run in CI (allowOnly is off there)', () => {
    const ci = runFixture('only.fixture.ts', true);
    expect(ci.status).toBe(1);
    expect(ci.stdout + ci.stderr).toMatch(/only/i);
  });
});
