/**
 * The embedded store: PGlite + pgvector in this process (`npm start` without DATABASE_URL). The store
 * itself, one method per SQL function, is sql-store.ts, shared with the PostgreSQL store (postgres.ts).
 */
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { migrate } from './migrate.ts';
import { ownDataDir, tightenDataDir } from './pglite-data-dir.ts';
import { REFRESH_PRUNE_BATCH, type OpenStore, type StoreKeyOptions, withAnswerWriteKey } from './sql-store.ts';

export { REFRESH_PRUNE_BATCH };

export type PgliteStore = OpenStore<PGlite>;
export interface PgliteStoreOptions extends StoreKeyOptions {
  /**
   * In memory only (`dataDir` null): start from this dump of a database (PGlite's `dumpDataDir`) instead of
   * an empty one. The test helpers pass a dump of the migrated schema (server/testing/pglite-template.ts), so
   * each of their stores skips PGlite's initdb, most of an open's cost; migrations still run and apply
   * whatever the dump lacks.
   */
  loadDataDir?: Blob;
}

/**
 * Opens (creating when needed) the database in `dataDir`, or in memory when `dataDir` is null, applies
 * pending migrations and sets the answer write key.
 */
export async function openPgliteStore(dataDir: string | null, options: PgliteStoreOptions = {}): Promise<PgliteStore> {
  if (dataDir !== null) ownDataDir(dataDir);
  const loadDataDir = dataDir === null ? options.loadDataDir : undefined;
  const db = await PGlite.create(dataDir ?? undefined, { extensions: { vector }, ...(loadDataDir && { loadDataDir }) });
  // Supabase puts `extensions` on every role's search_path; do the same for this (single) connection.
  await db.exec('set search_path = public, extensions');
  const migrations = await migrate(db);
  if (dataDir === null) return withAnswerWriteKey(db, migrations, options);
  tightenDataDir(dataDir);
  // Files PGlite made while open (their modes are its own): owner-only before anyone else may look.
  return withAnswerWriteKey(db, migrations, options, () => tightenDataDir(dataDir));
}
