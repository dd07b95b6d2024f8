/**
 * A migration added after a release sorts after that release's last migration. A database made by the release
 * has applied its migrations already; one inserted (or renamed) among them would sort before migrations that
 * database has run, and a migrator that applies by name would run it out of order — or, renamed, twice.
 *
 * The repository has no git tags to read; a release is what test/fixtures/upgrade/<version>/migrations.json
 * records (made from the release's own tree by scripts/upgrade-fixture/make.ts). The latest of them is the one
 * a new migration must come after.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../', import.meta.url).pathname;
const RELEASES = join(ROOT, 'test/fixtures/upgrade');
const MIGRATIONS = join(ROOT, 'supabase/migrations');

/** `v0.10.0` after `v0.9.1`: versions compared number by number. */
function byVersion(a: string, b: string): number {
  const pa = a.replace(/^v/, '').split('.').map(Number);
  const pb = b.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++)
    if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

/** The migration files after the latest release that do not sort after its last one. */
function outOfOrder(current: string[], released: string[]): string[] {
  const last = [...released].sort().at(-1) ?? '';
  const releasedSet = new Set(released);
  return current.filter((file) => !releasedSet.has(file) && file <= last);
}

describe('migrations added after the latest release', () => {
  const releases = readdirSync(RELEASES).filter((d) => existsSync(join(RELEASES, d, 'migrations.json')));
  const latest = releases.sort(byVersion).at(-1)!;
  const released = (
    JSON.parse(readFileSync(join(RELEASES, latest, 'migrations.json'), 'utf8')) as { migrations: { file: string }[] }
  ).migrations.map((m) => m.file);
  const current = readdirSync(MIGRATIONS).filter((f) => f.endsWith('.sql'));

  it(`sort after ${latest}'s last migration, and every migration of ${latest} is still there`, () => {
    expect(released.length).toBeGreaterThan(0);
    const missing = released.filter((file) => !current.includes(file));
    expect(missing, `migrations of ${latest} renamed or removed (released migrations never change)`).toEqual([]);
    const last = [...released].sort().at(-1);
    expect(
      outOfOrder(current, released),
      `new migrations must sort after ${last}, the last migration of ${latest}: rename them with a later timestamp`,
    ).toEqual([]);
  });

  it('catches a new migration placed among the released ones, and a renamed released one', () => {
    const released = ['20261122000100_a.sql', '20261123000000_b.sql'];
    expect(outOfOrder([...released, '20261124000000_new.sql'], released)).toEqual([]);
    expect(outOfOrder([...released, '20261122000150_between.sql'], released)).toEqual(['20261122000150_between.sql']);
    expect(outOfOrder(['20261122000100_a.sql', '20261123000000_b-renamed.sql'], released)).toEqual([
      '20261123000000_b-renamed.sql',
    ]);
  });
});
