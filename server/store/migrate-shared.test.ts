/**
 * Migrations on a database shared by several servers: two runs at once apply each migration once (the
 * advisory lock), and a database migrated by a newer release is refused — on PostgreSQL, and the refusal on
 * the embedded database too. PostgreSQL needs KB_TEST_DATABASE_URL (server/testing/pg.ts).
 */
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { describe, expect, it } from 'vitest';
import { freshDatabase, POSTGRES_RUNS } from '../testing/pg.ts';
import { migrate, NewerDatabaseError } from './migrate.ts';
import { migratePostgres, openPostgresStore } from './postgres.ts';

describe.runIf(POSTGRES_RUNS)('migrations on PostgreSQL', () => {
  it('two servers migrating one new database at once apply each migration once', async () => {
    const { url, drop } = await freshDatabase();
    try {
      const [a, b] = await Promise.all([migratePostgres(url), migratePostgres(url)]);
      const files = a.applied.length + a.skipped.length;
      expect(files).toBeGreaterThanOrEqual(30);
      // One run applied them all, the other waited for the lock and found them recorded.
      expect([a.applied.length, b.applied.length].sort((x, y) => x - y)).toEqual([0, files]);
      const store = await openPostgresStore(url, { answerWriteKey: null });
      try {
        const { rows } = await store.db.query<{ n: number; distinct_n: number }>(
          'select count(*)::int as n, count(distinct version)::int as distinct_n from supabase_migrations.schema_migrations',
        );
        expect(rows[0]).toEqual({ n: files, distinct_n: files });
        expect(store.migrations.applied).toEqual([]);
      } finally {
        await store.close();
      }
    } finally {
      await drop();
    }
  });

  it('refuses a database migrated by a newer release, and changes nothing', async () => {
    const { url, drop } = await freshDatabase();
    try {
      await migratePostgres(url);
      const store = await openPostgresStore(url, { answerWriteKey: null });
      await store.db.query(
        "insert into supabase_migrations.schema_migrations (version, name) values ('29990101000000', 'from_the_future')",
      );
      await store.close();
      await expect(openPostgresStore(url)).rejects.toThrow(/newer release of kb-chat \(migrations 29990101000000/);
      await expect(migratePostgres(url)).rejects.toBeInstanceOf(NewerDatabaseError);
    } finally {
      await drop();
    }
  });
});

describe('migrations on the embedded database', () => {
  it('refuses a database migrated by a newer release', async () => {
    const db = await PGlite.create({ extensions: { vector } });
    try {
      await db.exec('set search_path = public, extensions');
      await migrate(db);
      await db.query(
        "insert into supabase_migrations.schema_migrations (version, name) values ('29990101000000', 'from_the_future')",
      );
      await expect(migrate(db)).rejects.toBeInstanceOf(NewerDatabaseError);
      // The lock is given back after a refusal: the next run is not stuck behind it.
      expect(
        (await db.query<{ n: number }>('select count(*)::int as n from pg_locks where locktype = $1', ['advisory']))
          .rows[0]!.n,
      ).toBe(0);
    } finally {
      await db.close();
    }
  });
});
