/**
 * Applies the Supabase migrations to the embedded PGlite database or a PostgreSQL one (DATABASE_URL), in
 * file-name order, each once, recorded in `supabase_migrations.schema_migrations` as the Supabase CLI records
 * them. The local shim (supabase/local) runs first on every open; it is idempotent. Several servers may start
 * on one PostgreSQL database at once: the whole run holds a session advisory lock, so the second waits for
 * the first and then finds its migrations recorded. A database that records a migration this release does
 * not have was migrated by a newer release: it is refused, since this code would call functions as they were.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SqlSession } from './sql-db.ts';

export const SUPABASE_DIR = new URL('../../supabase/', import.meta.url).pathname;

export interface MigrationResult {
  applied: string[];
  skipped: string[];
}

/**
 * The advisory lock key of a migration run, one for every kb-chat database: `pg_advisory_lock` takes a
 * bigint, and a fixed one keeps the lock the same across releases.
 */
export const MIGRATION_LOCK = 7_346_221_907_517_101;

/** Thrown when the database was migrated by a newer release than this one. */
export class NewerDatabaseError extends Error {}

/**
 * `db` must be one connection (a session): the advisory lock belongs to the connection that took it, and
 * it is held until every pending migration is applied.
 */
export async function migrate(db: SqlSession, supabaseDir = SUPABASE_DIR): Promise<MigrationResult> {
  await db.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    return await migrateLocked(db, supabaseDir);
  } finally {
    await db.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  }
}

async function migrateLocked(db: SqlSession, supabaseDir: string): Promise<MigrationResult> {
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
  const files = await sqlFiles(join(supabaseDir, 'migrations'));
  const known = new Set(files.map((f) => f.split('_')[0]));
  const unknown = [...done].filter((v) => !known.has(v)).sort();
  if (unknown.length > 0)
    throw new NewerDatabaseError(
      `The database was migrated by a newer release of kb-chat (migrations ${unknown.join(', ')} are not in ` +
        'this one): run that release, or restore a backup made before it.',
    );
  const result: MigrationResult = { applied: [], skipped: [] };
  for (const file of files) {
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
