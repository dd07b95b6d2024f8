/**
 * Which database the grant and RLS suites (attacker.test.ts, schema.test.ts) open: PGlite when run as they
 * are; PostgreSQL 15 + pgvector when attacker.pg.test.ts or schema.pg.test.ts selects it before importing
 * them — the same tests, so that what the attacker is refused is refused by a real server's grants and
 * row-level security too, not only by PGlite's. Each test file runs in its own module graph, so the choice
 * holds for the one file that made it.
 */
import { openPgliteStore } from '../../server/store/pglite.ts';
import type { OpenStore, StoreKeyOptions } from '../../server/store/sql-store.ts';
import { openTestPostgresStore } from '../../server/testing/pg.ts';

let database: 'pglite' | 'postgres' = 'pglite';

export function runSuiteOn(kind: 'pglite' | 'postgres'): void {
  database = kind;
}

/** A new, migrated store on the selected database (on PostgreSQL a database of its own, dropped on close). */
export function openSuiteStore(options: StoreKeyOptions = {}): Promise<OpenStore> {
  return database === 'postgres' ? openTestPostgresStore(options) : openPgliteStore(null, options);
}
