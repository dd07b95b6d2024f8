/**
 * Regenerates test/fixtures/upgrade/<release>/, the database of a released version that
 * test/upgrade/upgrade.test.ts migrates to the current schema:
 *
 *   npx tsx scripts/upgrade-fixture/make.ts v0.1.0
 *
 * It extracts the release's tree (`git archive <tag>`) into a temporary folder, runs ./fill.ts there with
 * this checkout's node_modules — so the database is created by the release's own migrations and filled by
 * its own app and SQL functions — and writes:
 * - `data.sql`: every row of the filled database, data only (a dump of the data folder would be ~5 MB);
 * - `facts.json`: the ids and settings the test looks for;
 * - `migrations.json`: the release's migration files with a digest of their SQL (server/store/migrate.ts
 *   migrationDigest; the test applies exactly these from supabase/migrations before loading the data, and
 *   fails if one does something else since the release);
 * - `local/`: the release's local Supabase shim (supabase/local changes in place, it is not append-only).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrationDigest } from '../../server/store/migrate.ts';

const release = process.argv[2];
if (!release) {
  console.error('usage: npx tsx scripts/upgrade-fixture/make.ts <release tag, e.g. v0.1.0>');
  process.exit(1);
}
const root = new URL('../../', import.meta.url).pathname;
const out = join(root, 'test/fixtures/upgrade', release);
const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 }).trim();
const commit = git('rev-parse', `${release}^{commit}`);

const checkout = mkdtempSync(join(tmpdir(), `kb-release-${release}-`));
try {
  execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${checkout}"`], { cwd: root, stdio: 'inherit' });
  symlinkSync(join(root, 'node_modules'), join(checkout, 'node_modules'));
  mkdirSync(join(checkout, 'scripts/upgrade-fixture'), { recursive: true });
  cpSync(join(root, 'scripts/upgrade-fixture/fill.ts'), join(checkout, 'scripts/upgrade-fixture/fill.ts'));

  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'local'), { recursive: true });
  execFileSync(join(root, 'node_modules/.bin/tsx'), ['scripts/upgrade-fixture/fill.ts', out], {
    cwd: checkout,
    stdio: 'inherit',
  });

  const dir = join(checkout, 'supabase/migrations');
  const migrations = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((file) => ({ file, digest: migrationDigest(readFileSync(join(dir, file), 'utf8')) }));
  writeFileSync(join(out, 'migrations.json'), `${JSON.stringify({ release, commit, migrations }, null, 2)}\n`);
  cpSync(join(checkout, 'supabase/local'), join(out, 'local'), { recursive: true });
  console.log(`${out}: ${migrations.length} migrations, data.sql ${readFileSync(join(out, 'data.sql')).length} bytes`);
} finally {
  rmSync(checkout, { recursive: true, force: true });
}
