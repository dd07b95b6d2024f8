/**
 * The test helpers' stores start from a dump of the migrated schema (pglite-template.ts): such a store must
 * be the database a fresh open makes — the same tables, columns, functions and their grants, policies and
 * settings — with nothing left for migrate() to apply.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteStore, type PgliteStore } from '../store/pglite.ts';
import { migratedTemplate } from './pglite-template.ts';

/** What a database is, as the catalog says, in a form two databases can be compared by. */
const CATALOG = [
  `select table_schema, table_name, column_name, data_type, column_default, is_nullable
     from information_schema.columns where table_schema not in ('pg_catalog', 'information_schema')
     order by 1, 2, 3`,
  `select n.nspname, p.proname, pg_get_function_identity_arguments(p.oid) as args, p.prosecdef,
          md5(p.prosrc) as body, coalesce(p.proacl::text, '') as acl, coalesce(p.proconfig::text, '') as config
     from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname not in ('pg_catalog', 'information_schema') order by 1, 2, 3`,
  `select schemaname, tablename, policyname, cmd, roles::text, qual, with_check from pg_policies order by 1, 2, 3`,
  `select schemaname, tablename, indexname, indexdef from pg_indexes order by 1, 2, 3`,
  `select grantee, table_schema, table_name, privilege_type from information_schema.role_table_grants
     where table_schema not in ('pg_catalog', 'information_schema') order by 1, 2, 3, 4`,
  'select version, name from supabase_migrations.schema_migrations order by 1',
  // Every setting but when it was written (the dump's is the time the template was made).
  `select to_jsonb(s) - 'updated_at' as settings from kb_settings s`,
];

let fresh: PgliteStore;
let fromTemplate: PgliteStore;
beforeAll(async () => {
  [fresh, fromTemplate] = await Promise.all([
    openPgliteStore(null, { answerWriteKey: null }),
    migratedTemplate().then((loadDataDir) => openPgliteStore(null, { answerWriteKey: null, loadDataDir })),
  ]);
});
afterAll(async () => {
  await fresh?.close();
  await fromTemplate?.close();
});

describe('a store opened from the migrated template', () => {
  it('has every migration already: migrate() applied none, skipped all', () => {
    expect(fresh.migrations.applied.length).toBeGreaterThan(10);
    expect(fromTemplate.migrations.applied).toEqual([]);
    expect(fromTemplate.migrations.skipped).toEqual(fresh.migrations.applied);
  });

  it('is the database a fresh open makes, catalog entry for catalog entry', async () => {
    for (const sql of CATALOG) {
      const [a, b] = await Promise.all([fresh.db.query(sql), fromTemplate.db.query(sql)]);
      expect(a.rows.length, sql).toBeGreaterThan(0);
      expect(b.rows, sql).toEqual(a.rows);
    }
  });

  it('is empty and takes writes: the knowledge base, sessions and rate limits start with no rows', async () => {
    for (const table of ['kb_documents', 'kb_chunks', 'chat_sessions', 'chat_messages', 'rate_limits']) {
      const { rows } = await fromTemplate.db.query<{ n: number }>(`select count(*)::int as n from ${table}`);
      expect(rows[0]!.n, table).toBe(0);
    }
  });
});
