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

let pg: PgliteStore;

beforeAll(async () => {
  pg = await openPgliteStore(null);
  await pg.db.exec(await readFile(join(SUPABASE_DIR, 'seed.sql'), 'utf8'));
});
afterAll(() => pg?.close());

const rows = async <T>(sql: string, params: unknown[] = []) => (await pg.db.query<T>(sql, params)).rows;

/**
 * What server/store/supabase.ts and pglite.ts call, argument names as sent to PostgREST, and who may call
 * them (service_role keeps what Supabase's default privileges grant it; it bypasses RLS anyway).
 */
const FUNCTIONS: Record<string, { args: string; callers: string[] }> = {
  kb_stats: { args: '', callers: ['anon', 'authenticated', 'service_role'] },
  kb_has_documents: { args: '', callers: ['anon', 'authenticated', 'service_role'] },
  match_chunks: { args: 'query_embedding vector, threshold double precision DEFAULT 0.35, match_count integer DEFAULT 5', callers: ['anon', 'authenticated', 'service_role'] },
  search_chunks: { args: "query_embedding vector DEFAULT NULL::vector, query_text text DEFAULT NULL::text, match_count integer DEFAULT 5, search_mode text DEFAULT 'hybrid'::text, filters jsonb DEFAULT '{}'::jsonb, candidate_count integer DEFAULT 50", callers: ['anon', 'authenticated', 'service_role'] },
  chat_begin_turn: { args: 'p_session_id uuid, p_message_id uuid, p_content text, p_title text', callers: ['authenticated', 'service_role'] },
  chat_existing_turn: { args: 'p_message_id uuid, p_session_id uuid, p_content text', callers: ['authenticated', 'service_role'] },
  chat_finish_turn: { args: 'p_session_id uuid, p_reply_to uuid, p_content text, p_citations jsonb, p_meta jsonb', callers: ['authenticated', 'service_role'] },
  list_chat_sessions: { args: 'p_limit integer DEFAULT 50', callers: ['authenticated', 'service_role'] },
  get_chat_session: { args: 'p_session_id uuid', callers: ['authenticated', 'service_role'] },
  get_chat_messages: { args: 'p_session_id uuid', callers: ['authenticated', 'service_role'] },
  rate_limit_hit: { args: 'p_bucket text, p_limit integer, p_window_seconds integer', callers: ['authenticated', 'service_role'] },
  record_content_gap: { args: 'p_question text, p_reason text', callers: ['authenticated', 'service_role'] },
  list_content_gaps: { args: 'p_limit integer DEFAULT 100', callers: ['authenticated', 'service_role'] },
  get_chunk: { args: 'p_chunk_id uuid', callers: ['authenticated', 'service_role'] },
  ingest_document: { args: 'p_source text, p_name text, p_meta jsonb, p_checksum text, p_model text, p_chunks jsonb', callers: ['service_role'] },
  document_state: { args: 'p_source text, p_model text', callers: ['service_role'] },
  kb_list_documents: { args: '', callers: ['service_role'] },
  kb_document_chunks: { args: 'p_document_id uuid', callers: ['service_role'] },
  kb_set_document_enabled: { args: 'p_id uuid, p_enabled boolean', callers: ['service_role'] },
  kb_delete_document: { args: 'p_id uuid', callers: ['service_role'] },
  kb_prune_documents: { args: 'p_prefix text, p_keep text[], p_dry_run boolean DEFAULT false', callers: ['service_role'] },
  kb_stale_documents: { args: 'p_model text', callers: ['service_role'] },
  kb_set_embeddings: { args: 'p_model text, p_embeddings jsonb', callers: ['service_role'] },
  kb_defer_embedding_index: { args: '', callers: ['service_role'] },
  kb_restore_indexes: { args: '', callers: ['service_role'] },
  kb_optimize: { args: '', callers: ['service_role'] },
  kb_recount_statistics: { args: '', callers: ['service_role'] },
  // Called by the triggers that keep BM25's statistics, not by the stores.
  kb_count_chunks: { args: 'p_fts tsvector[], p_total_length bigint, p_sign integer', callers: ['service_role'] },
  kb_chunks_count_trigger: { args: '', callers: ['service_role'] },
  kb_documents_count_trigger: { args: '', callers: ['service_role'] },
  kb_statistics_deferred: { args: '', callers: ['service_role'] },
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
        'chat_messages',
        'chat_sessions',
        'content_gaps',
        'kb_chunks',
        'kb_corpus_stats',
        'kb_deferred_indexes',
        'kb_documents',
        'kb_embeddings',
        'kb_lexemes',
        'rate_limits',
      ].map((relname) => ({ relname, relrowsecurity: true })),
    );
  });

  it('has exactly the SQL functions the stores call, with the argument names they send', async () => {
    const found = await rows<{ name: string; args: string }>(
      `select proname as name, pg_get_function_arguments(oid) as args from pg_proc
       where pronamespace = 'public'::regnamespace order by proname`,
    );
    expect(Object.fromEntries(found.map((f) => [f.name, f.args.replace(/extensions\./g, '')]))).toEqual(
      Object.fromEntries(Object.entries(FUNCTIONS).map(([name, f]) => [name, f.args])),
    );
  });

  it.each(Object.entries(FUNCTIONS))('grants %s to exactly the roles that call it', async (name, { callers }) => {
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
      'get_chunk',
      'kb_defer_embedding_index',
      'kb_has_documents',
      'kb_optimize',
      'kb_restore_indexes',
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
    expect(policies.map((p) => `${p.tablename}:${p.cmd}:${p.roles.join(',')}`)).toEqual([
      'chat_messages:INSERT:authenticated',
      'chat_messages:SELECT:authenticated',
      'chat_sessions:DELETE:authenticated',
      'chat_sessions:INSERT:authenticated',
      'chat_sessions:SELECT:authenticated',
      'chat_sessions:UPDATE:authenticated',
    ]);
    const quals = await rows<{ qual: string | null; with_check: string | null }>(
      `select qual, with_check from pg_policies where tablename = 'chat_sessions'`,
    );
    for (const q of quals) expect(`${q.qual ?? ''} ${q.with_check ?? ''}`).toContain('auth.uid()');
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
