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
import { openPgliteStore, type PgliteStore } from '../../server/store/pglite.ts';
import { rpcCalls } from './rpc-calls.ts';

let pg: PgliteStore;

beforeAll(async () => {
  pg = await openPgliteStore(null);
  await pg.db.exec(await readFile(join(SUPABASE_DIR, 'seed.sql'), 'utf8'));
});
afterAll(() => pg?.close());

const rows = async <T>(sql: string, params: unknown[] = []) => (await pg.db.query<T>(sql, params)).rows;

/**
 * Who may call each SQL function (service_role keeps what Supabase's default privileges grant it; it
 * bypasses RLS anyway): a decision per function, so a new function without one fails below. Which
 * functions the Supabase store calls, and with which argument names, is read from its source
 * (rpc-calls.ts), not listed here.
 */
const CALLERS: Record<string, string[]> = {
  kb_stats: ['anon', 'authenticated', 'service_role'],
  kb_has_documents: ['anon', 'authenticated', 'service_role'],
  // Signed-in visitors only (migration 20261125000000): anon key holders no longer search the KB directly.
  match_chunks: ['authenticated', 'service_role'],
  search_chunks: ['authenticated', 'service_role'],
  // The unbounded search behind search_chunks, and the lookup behind chat_begin_turn: not exposed.
  kb_search_chunks: ['service_role'],
  chat_begin_turn: ['authenticated', 'service_role'],
  // A follow-up reads the last few turns as the visitor (security invoker: RLS hides other sessions).
  get_recent_chat_messages: ['authenticated', 'service_role'],
  chat_existing_turn: ['service_role'],
  // Reached with the visitor's JWT (so RLS applies), refused without the server's answer write key (20261126020000).
  chat_finish_turn: ['authenticated', 'service_role'],
  // Generative mode: the server stores the written version of a visitor's own answer (checked inside, with the key).
  chat_save_generated: ['authenticated', 'service_role'],
  // The answer write key: its hash set by the service role (`npm run console -- answer-key`), checked by the
  // write functions only.
  kb_set_answer_write_key: ['service_role'],
  kb_assert_answer_writer: ['service_role'],
  // The console's defensive reading of a stored citation: called by admin_list_conversations only.
  kb_shown_citation: ['service_role'],
  list_chat_sessions: ['authenticated', 'service_role'],
  get_chat_session: ['authenticated', 'service_role'],
  get_chat_messages: ['authenticated', 'service_role'],
  rate_limit_hit: ['authenticated', 'service_role'],
  record_content_gap: ['authenticated', 'service_role'],
  list_content_gaps: ['authenticated', 'service_role'],
  // Visitor feedback: a visitor rates their own answers and reads their own ratings (checked inside).
  chat_set_feedback: ['authenticated', 'service_role'],
  get_chat_feedback: ['authenticated', 'service_role'],
  // The answer mode is public (/api/config); only an admin may change it (checked inside).
  kb_get_settings: ['anon', 'authenticated', 'service_role'],
  kb_set_settings: ['authenticated', 'service_role'],
  // The CHECK behind kb_settings.refusal_suggestions (20261125010000): nothing for callers.
  kb_refusal_suggestions_ok: ['service_role'],
  // … and behind kb_settings.support_url and .starters (20261126040000).
  kb_support_url_ok: ['service_role'],
  kb_starters_ok: ['service_role'],
  get_chunk: ['authenticated', 'service_role'],
  ingest_document: ['service_role'],
  document_state: ['service_role'],
  kb_list_documents: ['service_role'],
  kb_document_chunks: ['service_role'],
  kb_set_document_enabled: ['service_role'],
  kb_delete_document: ['service_role'],
  kb_prune_documents: ['service_role'],
  kb_stale_documents: ['service_role'],
  kb_set_embeddings: ['service_role'],
  kb_defer_embedding_index: ['service_role'],
  kb_restore_indexes: ['service_role'],
  kb_optimize: ['service_role'],
  kb_recount_statistics: ['service_role'],
  // Called by the triggers that keep BM25's statistics, not by the stores.
  kb_count_chunks: ['service_role'],
  kb_chunks_count_trigger: ['service_role'],
  kb_documents_count_trigger: ['service_role'],
  kb_statistics_deferred: ['service_role'],
  // The console (20261125030000): signed-in users may call them; each refuses all but admins itself.
  admin_whoami: ['authenticated', 'service_role'],
  admin_list_gaps: ['authenticated', 'service_role'],
  admin_set_gap_done: ['authenticated', 'service_role'],
  admin_list_conversations: ['authenticated', 'service_role'],
  // The console's thread view (20261126040100): checks the admin claim itself.
  admin_get_thread: ['authenticated', 'service_role'],
  admin_list_documents: ['authenticated', 'service_role'],
  admin_set_document_enabled: ['authenticated', 'service_role'],
  admin_delete_document: ['authenticated', 'service_role'],
  admin_overview: ['authenticated', 'service_role'],
  // Data out (20261126060000): exports and the console's view of the webhook (each refuses all but admins);
  admin_export_conversations: ['authenticated', 'service_role'],
  admin_export_gaps: ['authenticated', 'service_role'],
  admin_export_feedback: ['authenticated', 'service_role'],
  admin_get_webhook: ['authenticated', 'service_role'],
  // their helpers; and the webhook with its secret, for the server's own connection only.
  kb_export_bounds: ['service_role'],
  kb_export_cursor: ['service_role'],
  kb_export_after: ['service_role'],
  kb_webhook_url_ok: ['service_role'],
  kb_webhook_target: ['service_role'],
  // Their helpers (the admin check, the opaque visitor id, page bounds): called by them only.
  kb_assert_admin: ['service_role'],
  kb_visitor_id: ['service_role'],
  kb_page_bounds: ['service_role'],
  // Re-crawling and sync runs (20261126050000): the ingester's; the console reads through admin_sync_status.
  kb_http_cache: ['service_role'],
  kb_set_http_cache: ['service_role'],
  kb_sync_run_start: ['service_role'],
  kb_sync_run_finish: ['service_role'],
  admin_sync_status: ['authenticated', 'service_role'],
};

describe('supabase/migrations on a new database', () => {
  it('applies every migration in file order, once, recorded as the Supabase CLI records them', async () => {
    const files = (await readdir(join(SUPABASE_DIR, 'migrations'))).filter((f) => f.endsWith('.sql')).sort();
    expect(files.length).toBeGreaterThan(0);
    expect(pg.migrations.applied).toEqual(files);
    expect(files.every((f) => /^\d{14}_[a-z0-9_]+\.sql$/.test(f))).toBe(true);
    const versions = await rows<{ version: string }>('select version from supabase_migrations.schema_migrations order by version');
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
        'rate_limits',
      ].map((relname) => ({ relname, relrowsecurity: true })),
    );
  });

  it('has a grant decision for exactly the SQL functions there are', async () => {
    const found = await rows<{ name: string }>(`select proname as name from pg_proc where pronamespace = 'public'::regnamespace order by proname`);
    expect(found.map((f) => f.name)).toEqual(Object.keys(CALLERS).sort());
  });

  it.each(rpcCalls().map((c) => [c.fn, c] as const))('has %s with exactly the argument names the Supabase store sends', async (_, call) => {
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
    expect(CALLERS[call.fn]).toBeDefined();
  });

  it.each(Object.entries(CALLERS))('grants %s to exactly the roles that call it', async (name, callers) => {
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
    expect(definers.map((d) => d.proname)).toEqual([
      // The console's: each checks app_metadata.role = admin first (kb_assert_admin).
      'admin_delete_document',
      'admin_export_conversations',
      'admin_export_feedback',
      'admin_export_gaps',
      'admin_get_thread',
      'admin_get_webhook',
      'admin_list_conversations',
      'admin_list_documents',
      'admin_list_gaps',
      'admin_overview',
      'admin_set_document_enabled',
      'admin_set_gap_done',
      'admin_sync_status',
      'admin_whoami',
      // Chat writes check the caller themselves: visitors hold no INSERT/UPDATE/DELETE on the chat tables.
      'chat_begin_turn',
      'chat_finish_turn',
      'chat_save_generated',
      'chat_set_feedback',
      'get_chat_feedback',
      'get_chunk',
      // The answer write key's: the only readers and writer of kb_answer_write_key.
      'kb_assert_answer_writer',
      'kb_defer_embedding_index',
      'kb_get_settings',
      'kb_has_documents',
      'kb_optimize',
      'kb_restore_indexes',
      'kb_search_chunks',
      'kb_set_answer_write_key',
      'kb_set_settings',
      'kb_stats',
      'list_content_gaps',
      'match_chunks',
      'rate_limit_hit',
      'record_content_gap',
      'search_chunks',
    ]);
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

  it('keeps the answer write key\'s hash from every API role, service_role included, and takes the key in every function that stores the server\'s word', async () => {
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
      pg.db.query(`insert into chat_messages (session_id, role, content) values ($1, 'user', repeat('x', 2001))`, [session]),
    ).rejects.toThrow(/chat_messages_content_length/);
    await expect(
      pg.db.query(`insert into chat_messages (session_id, role, content) values ($1, 'assistant', 'an answer to nothing')`, [session]),
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
    const [index] = await rows<{ def: string }>(`select pg_get_indexdef('kb_embeddings_embedding_hnsw'::regclass) as def`);
    expect(index!.def).toMatch(/USING hnsw \(embedding (extensions\.)?vector_cosine_ops\)/);
  });

  it('indexes embeddings with HNSW on cosine distance, and has pgvector in the extensions schema', async () => {
    const [index] = await rows<{ def: string }>(`select pg_get_indexdef('kb_embeddings_embedding_hnsw'::regclass) as def`);
    expect(index!.def).toMatch(/USING hnsw \(embedding (extensions\.)?vector_cosine_ops\)/);
    const [ext] = await rows<{ schema: string }>(
      `select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where extname = 'vector'`,
    );
    expect(ext!.schema).toBe('extensions');
  });
});
