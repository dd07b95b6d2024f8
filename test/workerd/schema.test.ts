/**
 * The Supabase project files: every migration applies in order to a new database (with the local shim
 * standing in for what a Supabase project already has), then seed.sql, and the resulting schema is what
 * the code calls — the functions with the argument names the stores send, their grants per role, the
 * tables with row-level security on, and the chat policies.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUPABASE_DIR } from '../../server/store/migrate.ts';
import type { OpenStore } from '../../server/store/sql-store.ts';
import { argName, SQL_FUNCTIONS, type SqlFunction, type SqlFunctionName } from '../../server/store/functions.ts';
import { rpcCalls } from './rpc-calls.ts';
import { openSuiteStore } from './suite-database.ts';

let pg: OpenStore;

beforeAll(async () => {
  pg = await openSuiteStore();
  await pg.db.exec(await readFile(join(SUPABASE_DIR, 'seed.sql'), 'utf8'));
});
afterAll(() => pg?.close());

const rows = async <T>(sql: string, params: unknown[] = []) => (await pg.db.query<T>(sql, params)).rows;

/**
 * Who may call each SQL function, with which arguments, is described once, in server/store/functions.ts;
 * the tests below check that description against the database. Which functions the Supabase store calls,
 * and with which argument names, is read from its source (rpc-calls.ts).
 */
const DESCRIBED = Object.entries(SQL_FUNCTIONS) as [SqlFunctionName, SqlFunction][];

describe('supabase/migrations on a new database', () => {
  it('applies every migration in file order, once, recorded as the Supabase CLI records them', async () => {
    const files = (await readdir(join(SUPABASE_DIR, 'migrations'))).filter((f) => f.endsWith('.sql')).sort();
    expect(files.length).toBeGreaterThan(0);
    expect(pg.migrations.applied).toEqual(files);
    expect(files.every((f) => /^\d{14}_[a-z0-9_]+\.sql$/.test(f))).toBe(true);
    const versions = await rows<{ version: string }>(
      'select version from supabase_migrations.schema_migrations order by version',
    );
    expect(versions.map((r) => r.version)).toEqual(files.map((f) => f.slice(0, 14)));
  });

  it('has the tables the code uses, each with row-level security on', async () => {
    const tables = await rows<{ relname: string; relrowsecurity: boolean }>(
      `select relname, relrowsecurity from pg_class
       where relnamespace = 'public'::regnamespace and relkind = 'r' order by relname`,
    );
    expect(tables).toEqual(
      [
        'chat_feedback',
        'chat_messages',
        'chat_sessions',
        'content_gap_messages',
        'content_gaps',
        'kb_answer_write_key',
        'kb_chunks',
        'kb_corpus_stats',
        'kb_deferred_indexes',
        'kb_documents',
        'kb_embeddings',
        'kb_lexemes',
        'kb_settings',
        'kb_sync_runs',
        'kb_webhook_changes',
        'kb_webhook_claims',
        'rate_limits',
      ].map((relname) => ({ relname, relrowsecurity: true })),
    );
  });

  it('describes exactly the SQL functions there are in server/store/functions.ts, one function per name', async () => {
    const found = await rows<{ name: string }>(
      `select proname as name from pg_proc where pronamespace = 'public'::regnamespace order by proname`,
    );
    expect(found.map((f) => f.name)).toEqual(Object.keys(SQL_FUNCTIONS).sort());
  });

  it.each(DESCRIBED)('describes %s with its argument names in declaration order', async (name, described) => {
    const [found] = await rows<{ names: string[] }>(
      `select coalesce(proargnames[1:pronargs], '{}') as names from pg_proc where pronamespace = 'public'::regnamespace and proname = $1`,
      [name],
    );
    expect(found!.names).toEqual(described.args.map(argName));
  });

  it.each(rpcCalls().map((c) => [c.fn, c] as const))(
    'has %s with exactly the argument names the Supabase store sends',
    async (_, call) => {
      // PostgREST picks a function by its argument names: every name sent must exist, every one without a
      // default must be sent, and the name must resolve to one function only.
      const found = await rows<{ names: string[]; required: number }>(
        `select coalesce(proargnames[1:pronargs], '{}') as names, pronargs - pronargdefaults as required
       from pg_proc where pronamespace = 'public'::regnamespace and proname = $1`,
        [call.fn],
      );
      expect(found).toHaveLength(1);
      const { names, required } = found[0]!;
      expect(call.args.filter((a) => !names.includes(a))).toEqual([]);
      expect(names.slice(0, required).filter((n) => !call.args.includes(n))).toEqual([]);
      expect(SQL_FUNCTIONS[call.fn as SqlFunctionName]?.via).not.toBe('sql');
    },
  );

  it.each(DESCRIBED)('grants %s to exactly the roles functions.ts says', async (name, { grants: callers }) => {
    const [grants] = await rows<Record<string, boolean>>(
      `select has_function_privilege('anon', p.oid, 'execute') as anon,
              has_function_privilege('authenticated', p.oid, 'execute') as authenticated,
              has_function_privilege('service_role', p.oid, 'execute') as service_role
       from pg_proc p where p.pronamespace = 'public'::regnamespace and p.proname = $1`,
      [name],
    );
    expect(Object.keys(grants!).filter((role) => grants![role])).toEqual(callers);
  });

  it('keeps the knowledge base, rate limits and gaps readable only through security-definer functions', async () => {
    const definers = await rows<{ proname: string }>(
      `select proname from pg_proc where pronamespace = 'public'::regnamespace and prosecdef order by proname`,
    );
    // The console's each check app_metadata.role = admin first (kb_assert_admin); chat writes check the caller
    // themselves (visitors hold no INSERT/UPDATE/DELETE on the chat tables); the answer write key's functions are
    // the only readers and writer of kb_answer_write_key. Which ones: the `definer` flag of server/store/functions.ts.
    const marked = Object.entries(SQL_FUNCTIONS as Record<string, SqlFunction>)
      .filter(([, f]) => f.definer === true)
      .map(([name]) => name)
      .sort();
    expect(definers.map((d) => d.proname).sort()).toEqual(marked);
    expect(marked.length).toBeGreaterThan(30);
    const kbPolicies = await rows(
      `select 1 from pg_policies where schemaname = 'public' and (tablename like 'kb_%' or tablename in ('rate_limits', 'content_gaps'))`,
    );
    expect(kbPolicies).toHaveLength(0);
  });

  it('limits chat sessions and messages to their owner for the authenticated role', async () => {
    const policies = await rows<{ tablename: string; cmd: string; roles: string[] }>(
      `select tablename, cmd, roles::text[] as roles from pg_policies where schemaname = 'public' order by tablename, cmd`,
    );
    // Reads only: chat rows are written through chat_begin_turn (the visitor's question) and chat_finish_turn
    // (the server's answer, with its answer write key), which check the owner.
    expect(policies.map((p) => `${p.tablename}:${p.cmd}:${p.roles.join(',')}`)).toEqual([
      'chat_messages:SELECT:authenticated',
      'chat_sessions:SELECT:authenticated',
    ]);
    const quals = await rows<{ qual: string | null; with_check: string | null }>(
      `select qual, with_check from pg_policies where tablename = 'chat_sessions'`,
    );
    for (const q of quals) expect(`${q.qual ?? ''} ${q.with_check ?? ''}`).toContain('auth.uid()');
  });

  it('gives anon no table privilege and authenticated only SELECT on the chat tables (a second layer under RLS)', async () => {
    const granted = await rows<{ grantee: string; table_name: string; privilege_type: string }>(
      `select grantee, table_name, privilege_type from information_schema.role_table_grants
       where table_schema = 'public' and grantee in ('anon', 'authenticated', 'public')
       order by grantee, table_name, privilege_type`,
    );
    expect(granted.map((g) => `${g.grantee}:${g.table_name}:${g.privilege_type}`)).toEqual([
      'authenticated:chat_messages:SELECT',
      'authenticated:chat_sessions:SELECT',
    ]);
  });

  it("keeps the answer write key's hash from every API role, service_role included, and takes the key in every function that stores the server's word", async () => {
    const granted = await rows(
      `select grantee, privilege_type from information_schema.role_table_grants where table_schema = 'public' and table_name = 'kb_answer_write_key' and grantee <> current_user`,
    );
    expect(granted).toEqual([]);
    const keyed = await rows<{ name: string }>(
      `select proname as name from pg_proc where pronamespace = 'public'::regnamespace and 'p_write_key' = any(proargnames) order by proname`,
    );
    expect(keyed.map((k) => k.name)).toEqual(['chat_finish_turn', 'chat_save_generated', 'record_content_gap']);
  });

  it("ends every function's search_path in pg_temp, so a temporary object never shadows what it uses", async () => {
    const paths = await rows<{ name: string; path: string | null }>(
      `select proname as name,
         (select substr(c, length('search_path=') + 1) from unnest(proconfig) c where c like 'search_path=%') as path
       from pg_proc where pronamespace = 'public'::regnamespace order by proname`,
    );
    expect(paths.filter((p) => !/(^|,\s*)pg_temp$/.test(p.path ?? ''))).toEqual([]);
  });

  it('bounds what any path can store with CHECK constraints', async () => {
    const checks = await rows<{ name: string }>(
      `select conname as name from pg_constraint
       where connamespace = 'public'::regnamespace and contype = 'c' and conname in (
         'chat_sessions_title_length', 'chat_messages_content_length', 'chat_messages_citations_shape',
         'chat_messages_meta_shape', 'chat_messages_reply_role', 'content_gaps_lengths', 'content_gaps_reason',
         'rate_limits_bucket')
       order by conname`,
    );
    expect(checks).toHaveLength(8);
    // Enforced for the owner too (a check is not a grant): a 2,001-character question is refused.
    const session = (await rows<{ id: string }>(`insert into auth.users default values returning id`))[0]!.id;
    await pg.db.query(`insert into chat_sessions (id, user_id, title) values ($1, $1, 't')`, [session]);
    await expect(
      pg.db.query(`insert into chat_messages (session_id, role, content) values ($1, 'user', repeat('x', 2001))`, [
        session,
      ]),
    ).rejects.toThrow(/chat_messages_content_length/);
    await expect(
      pg.db.query(
        `insert into chat_messages (session_id, role, content) values ($1, 'assistant', 'an answer to nothing')`,
        [session],
      ),
    ).rejects.toThrow(/chat_messages_reply_role/);
  });

  it('keeps no executable SQL in kb_deferred_indexes: names only, rebuilt from fixed statements', async () => {
    const columns = await rows<{ column_name: string }>(
      `select column_name from information_schema.columns where table_schema = 'public' and table_name = 'kb_deferred_indexes' order by ordinal_position`,
    );
    expect(columns.map((c) => c.column_name)).toEqual(['name', 'deferred_at']);
    // An unknown name is removed, never run; the known ones are restored.
    await pg.db.exec(`insert into kb_deferred_indexes (name) values ('drop table kb_documents')`);
    expect(await pg.restoreIndexes!()).toBe(0);
    expect(await rows('select 1 from kb_deferred_indexes')).toHaveLength(0);
    expect(await rows(`select 1 from pg_class where relname = 'kb_documents'`)).toHaveLength(1);
    expect(await pg.deferEmbeddingIndex!()).toBe(true);
    expect(await rows(`select 1 from pg_indexes where indexname = 'kb_embeddings_embedding_hnsw'`)).toHaveLength(0);
    expect(await pg.restoreIndexes!()).toBe(2);
    const [index] = await rows<{ def: string }>(
      `select pg_get_indexdef('kb_embeddings_embedding_hnsw'::regclass) as def`,
    );
    expect(index!.def).toMatch(/USING hnsw \(embedding (extensions\.)?vector_cosine_ops\)/);
  });

  it('indexes embeddings with HNSW on cosine distance, and has pgvector in the extensions schema', async () => {
    const [index] = await rows<{ def: string }>(
      `select pg_get_indexdef('kb_embeddings_embedding_hnsw'::regclass) as def`,
    );
    expect(index!.def).toMatch(/USING hnsw \(embedding (extensions\.)?vector_cosine_ops\)/);
    const [ext] = await rows<{ schema: string }>(
      `select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where extname = 'vector'`,
    );
    expect(ext!.schema).toBe('extensions');
  });
});
