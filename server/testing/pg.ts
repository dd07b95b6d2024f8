/**
 * Test support for the PostgreSQL store: a fresh database per store on the cluster named by
 * KB_TEST_DATABASE_URL (scripts/pg-test-cluster.sh starts one and prints the line to export), dropped when
 * the store closes. Without KB_TEST_DATABASE_URL the PostgreSQL suites are skipped locally; in CI (CI=true)
 * they fail instead, so a CI run can never pass without having run them.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe } from 'vitest';
import { openPostgresStore, type PostgresStore, type PostgresStoreOptions } from '../store/postgres.ts';
import { openPgliteStore, type PgliteStore } from '../store/pglite.ts';
import type { OpenStore, StoreKeyOptions } from '../store/sql-store.ts';

export const TEST_DATABASE_URL = process.env.KB_TEST_DATABASE_URL?.trim() || null;
/** Whether the PostgreSQL variant runs: with a cluster, or in CI, where a missing one fails its tests. */
export const POSTGRES_RUNS = TEST_DATABASE_URL !== null || process.env.CI === 'true';

function clusterUrl(): string {
  if (!TEST_DATABASE_URL)
    throw new Error(
      'KB_TEST_DATABASE_URL is not set: CI must run the PostgreSQL suites (eval "$(scripts/pg-test-cluster.sh start)")',
    );
  return TEST_DATABASE_URL;
}

/** A new, empty database on the test cluster; returns its URL and how to drop it. */
export async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = clusterUrl();
  const name = `kb_test_${randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** A migrated PostgreSQL store on a database of its own, dropped on close. */
export async function openTestPostgresStore(options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const { url, drop } = await freshDatabase();
  const store = await openPostgresStore(url, options);
  const close = store.close.bind(store);
  return Object.assign(store, {
    url,
    close: async () => {
      await close();
      await drop();
    },
  });
}

/** The two SQL stores, for suites that must hold on both: `describe.each(SQL_STORES)`. */
export interface StoreKind {
  name: 'pglite' | 'postgres';
  /** Whether this variant runs here (see POSTGRES_RUNS). */
  runs: boolean;
  open(options?: StoreKeyOptions): Promise<OpenStore>;
}

export const SQL_STORES: StoreKind[] = [
  { name: 'pglite', runs: true, open: (options) => openPgliteStore(null, options) as Promise<PgliteStore> },
  { name: 'postgres', runs: POSTGRES_RUNS, open: (options) => openTestPostgresStore(options) },
];

/** One describe block per SQL store, named `title (pglite)` and `title (postgres)`; a store that does not run here is skipped. */
export function describeStores(title: string, body: (kind: StoreKind) => void): void {
  for (const kind of SQL_STORES) (kind.runs ? describe : describe.skip)(`${title} (${kind.name})`, () => body(kind));
}
