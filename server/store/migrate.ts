/**
 * Applies the Supabase migrations to an embedded PGlite database, in file-name order, each once, recorded
 * in `supabase_migrations.schema_migrations` as the Supabase CLI records them. The local shim
 * (supabase/local) runs first on every open; it is idempotent.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

export const SUPABASE_DIR = new URL('../../supabase/', import.meta.url).pathname;

export interface MigrationResult {
  applied: string[];
  skipped: string[];
}

export async function migrate(db: PGlite, supabaseDir = SUPABASE_DIR): Promise<MigrationResult> {
  for (const file of await sqlFiles(join(supabaseDir, 'local'))) {
    await db.exec(await readFile(join(supabaseDir, 'local', file), 'utf8'));
  }
  await db.exec(`
    create schema if not exists supabase_migrations;
    create table if not exists supabase_migrations.schema_migrations (
      version text primary key,
      name text,
      statements text[]
    );`);
  const done = new Set(
    (await db.query<{ version: string }>('select version from supabase_migrations.schema_migrations')).rows.map(
      (r) => r.version,
    ),
  );
  const result: MigrationResult = { applied: [], skipped: [] };
  for (const file of await sqlFiles(join(supabaseDir, 'migrations'))) {
    const [version, ...rest] = file.replace(/\.sql$/, '').split('_');
    if (!version || done.has(version)) {
      result.skipped.push(file);
      continue;
    }
    const sql = await readFile(join(supabaseDir, 'migrations', file), 'utf8');
    // One transaction per migration: a failing file leaves the database as it was before it.
    await db.transaction(async (tx) => {
      await tx.exec(sql);
      await tx.query(
        'insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)',
        [version, rest.join('_'), [sql]],
      );
    });
    result.applied.push(file);
  }
  return result;
}

/**
 * What a migration does, as a SHA-256 of its SQL without `--` comments and with runs of white space made one:
 * a released migration must never change what it does (test/fixtures/upgrade records these), while its
 * comments may still be reworded.
 */
export function migrationDigest(sql: string): string {
  const statements = sql
    .replace(/--[^\n]*/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return createHash('sha256').update(statements).digest('hex');
}

async function sqlFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
}
