/**
 * supabase/schema.sql and docs/database.md are generated (`npm run schema`): this fails while either differs
 * from what the migrations produce now, and while a function has no comment to describe it by.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_MD, generate, REGENERATE, SCHEMA_SQL, type Generated } from '../scripts/schema/generate.ts';

let now: Generated;
beforeAll(async () => {
  now = await generate();
});

/** The first line where `a` and `b` differ, to say where a stale file went out of date. */
function firstDifference(a: string, b: string): string {
  const left = a.split('\n');
  const right = b.split('\n');
  const at = left.findIndex((line, i) => line !== right[i]);
  const i = at < 0 ? left.length : at;
  return `line ${i + 1}: committed ${JSON.stringify(left[i] ?? '(end)')}, generated ${JSON.stringify(right[i] ?? '(end)')}`;
}

describe('the generated schema files', () => {
  it.each([
    ['supabase/schema.sql', SCHEMA_SQL, 'schemaSql'],
    ['docs/database.md', DATABASE_MD, 'databaseMd'],
  ] as const)('%s is up to date with supabase/migrations', (name, path, key) => {
    const committed = readFileSync(path, 'utf8');
    const stale = committed !== now[key];
    expect(
      stale
        ? `${name} is stale: run \`${REGENERATE}\` and commit it (${firstDifference(committed, now[key])})`
        : 'up to date',
    ).toBe('up to date');
  });

  it('describes every function with a comment (comment on function, in a new migration)', () => {
    const uncommented = [...now.databaseMd.matchAll(/^### (\S+)\n\n.*\n\n\(no comment/gm)].map((m) => m[1]);
    expect(uncommented).toEqual([]);
  });
});
