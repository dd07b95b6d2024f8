// Long file: one entry per SQL function of schema public, kept together as the one table both stores and the schema tests read.
/**
 * Every SQL function of schema `public`, described once: its arguments in order (with the names PostgREST
 * matches), the roles granted EXECUTE, who calls it, what it returns and whether the Supabase store retries
 * it. Both stores call the functions from here — the embedded store positionally (`$1..$n`,
 * `positionalCall`), the Supabase store by name through supabase-js `rpc()` — and the tests check this
 * table against the database (test/workerd/schema.test.ts: names, argument names, grants) and against the
 * attacker's view (test/workerd/attacker.test.ts). What each function does is its `comment on function`
 * (supabase/schema.sql, docs/database.md).
 *
 * Adding a function: a new migration (with its grants and comment), an entry here, its call in both stores,
 * then `npm run schema` (docs/database.md#adding-a-sql-function).
 */

/** The API roles of a Supabase project. The owner (postgres) may call everything and is not listed. */
export type Role = 'anon' | 'authenticated' | 'service_role';

/**
 * Who calls it, and with which credentials:
 * - `anon`: the chat store with the anon key and no user token (health, config);
 * - `visitor`: the chat store with the visitor's own JWT (role authenticated, RLS applies);
 * - `console`: the chat store with an admin's JWT; the function refuses all but admins itself;
 * - `service`: the ingestion and admin CLIs with the service-role key (the embedded store: the owner);
 * - `sql`: other SQL functions, triggers and CHECK constraints only; no store calls it.
 */
export type Via = 'anon' | 'visitor' | 'console' | 'service' | 'sql';

/**
 * What a store gets back: `rows` (a set or a table: `select * from f(…)`), one `value`
 * (`select f(…)`), or nothing (`void`).
 */
export type Returns = 'rows' | 'value' | 'void';

/**
 * One argument: its SQL name, with `:jsonb` or `:vector` when the embedded store must send it as JSON text
 * cast to that type (PostgREST reads JSON bodies as such; PGlite's parameters are text).
 */
type Arg = string;

interface Described {
  /** In declaration order: the embedded store's `$1..$n`, the Supabase store's argument names. */
  args: readonly Arg[];
  /** Granted EXECUTE (has_function_privilege); checked against the database by schema.test.ts. */
  grants: readonly Role[];
  /**
   * `security definer`: it runs as its owner, past row-level security, so it must check its caller itself
   * (kb_assert_admin, auth.uid(), the answer write key). test/workerd/schema.test.ts checks that exactly the
   * functions marked here are definers in the database.
   */
  definer?: true;
}

export interface CalledFunction extends Described {
  via: Exclude<Via, 'sql'>;
  returns: Returns;
  /**
   * Whether the Supabase store retries it after a transient failure (rpc-retry.ts): idempotent calls
   * only — reads, and writes keyed so that a second attempt finds what the first one stored.
   */
  retried: boolean;
  /** Called by the embedded store only (no Supabase counterpart). */
  embeddedOnly?: true;
}

export interface InternalFunction extends Described {
  via: 'sql';
}

export type SqlFunction = CalledFunction | InternalFunction;

const ANYONE = ['anon', 'authenticated', 'service_role'] as const;
const USERS = ['authenticated', 'service_role'] as const;
const SERVICE = ['service_role'] as const;

export const SQL_FUNCTIONS = {
  // Health and config: open to the anon key (/api/health's counts, the empty-KB check, /api/config).
  kb_stats: { args: [], grants: ANYONE, via: 'anon', returns: 'rows', retried: true, definer: true },
  kb_has_documents: { args: [], grants: ANYONE, via: 'anon', returns: 'value', retried: true, definer: true },
  // The answer mode and the other settings are public; only an admin may change them (kb_set_settings).
  kb_get_settings: { args: [], grants: ANYONE, via: 'anon', returns: 'rows', retried: true, definer: true },
  // What coding assistants read (/mcp, /llms.txt): public like the pages, each behind the console's switch.
  kb_assistants_state: { args: [], grants: ANYONE, via: 'anon', returns: 'rows', retried: true, definer: true },
  kb_assistant_pages: {
    args: ['p_with_text'],
    grants: ANYONE,
    via: 'anon',
    returns: 'rows',
    retried: true,
    definer: true,
  },

  // Retrieval, for signed-in visitors only: anon key holders do not search the knowledge base directly.
  match_chunks: {
    args: ['query_embedding:vector', 'threshold', 'match_count'],
    grants: USERS,
    via: 'visitor',
    returns: 'rows',
    retried: true,
    definer: true,
  },
  search_chunks: {
    args: ['query_embedding:vector', 'query_text', 'match_count', 'search_mode', 'filters:jsonb', 'candidate_count'],
    grants: USERS,
    via: 'visitor',
    returns: 'rows',
    retried: true,
    definer: true,
  },
  // The unbounded search behind search_chunks: not exposed.
  kb_search_chunks: {
    args: ['query_embedding', 'query_text', 'match_count', 'search_mode', 'filters', 'candidate_count'],
    grants: SERVICE,
    via: 'sql',
    definer: true,
  },
  get_chunk: { args: ['p_chunk_id'], grants: USERS, via: 'visitor', returns: 'rows', retried: true, definer: true },

  // A turn. Keyed by the message id: a retry finds the turn the lost attempt stored (is_new false).
  chat_begin_turn: {
    args: ['p_session_id', 'p_message_id', 'p_content', 'p_title'],
    grants: USERS,
    via: 'visitor',
    returns: 'rows',
    retried: true,
    definer: true,
  },
  // The lookup behind chat_begin_turn.
  chat_existing_turn: { args: ['p_message_id', 'p_session_id', 'p_content'], grants: SERVICE, via: 'sql' },
  // Stores the server's answer: the visitor's JWT (RLS) and the server's answer write key. Keyed by
  // reply_to: a retry returns the answer the lost attempt stored.
  chat_finish_turn: {
    args: ['p_session_id', 'p_reply_to', 'p_content', 'p_citations:jsonb', 'p_meta:jsonb', 'p_write_key'],
    grants: USERS,
    via: 'visitor',
    returns: 'value',
    retried: true,
    definer: true,
  },
  // Generative mode's written answer, with the key. The first stays: a second attempt returns it.
  chat_save_generated: {
    args: ['p_message_id', 'p_text', 'p_model', 'p_write_key'],
    grants: USERS,
    via: 'visitor',
    returns: 'value',
    retried: true,
    definer: true,
  },
  // Counts one request: done twice, it would count twice.
  rate_limit_hit: {
    args: ['p_bucket', 'p_limit', 'p_window_seconds'],
    grants: USERS,
    via: 'visitor',
    returns: 'rows',
    retried: false,
    definer: true,
  },
  list_chat_sessions: { args: ['p_limit'], grants: USERS, via: 'visitor', returns: 'rows', retried: true },
  get_chat_session: { args: ['p_session_id'], grants: USERS, via: 'visitor', returns: 'rows', retried: true },
  get_chat_messages: { args: ['p_session_id'], grants: USERS, via: 'visitor', returns: 'rows', retried: true },
  // A follow-up reads the last few turns as the visitor (security invoker: RLS hides other sessions).
  get_recent_chat_messages: {
    args: ['p_session_id', 'p_limit'],
    grants: USERS,
    via: 'visitor',
    returns: 'rows',
    retried: true,
  },
  // Keyed by the message id: a second call stores the same rating again (the end state of a change of mind).
  chat_set_feedback: {
    args: ['p_message_id', 'p_rating', 'p_comment'],
    grants: USERS,
    via: 'visitor',
    returns: 'rows',
    retried: true,
    definer: true,
  },
  get_chat_feedback: {
    args: ['p_session_id'],
    grants: USERS,
    via: 'visitor',
    returns: 'rows',
    retried: true,
    definer: true,
  },
  // With the key; keyed by the message id: a question is counted once however often it is sent.
  record_content_gap: {
    args: ['p_question', 'p_reason', 'p_message_id', 'p_write_key'],
    grants: USERS,
    via: 'visitor',
    returns: 'void',
    retried: true,
    definer: true,
  },

  // The answer write key: its hash set by the service role (`npm run console -- answer-key`; the embedded
  // store at open), the same hash however often; checked by the write functions only.
  kb_set_answer_write_key: {
    args: ['p_key_hash'],
    grants: SERVICE,
    via: 'service',
    returns: 'void',
    retried: true,
    definer: true,
  },
  kb_assert_answer_writer: { args: ['p_key'], grants: SERVICE, via: 'sql', definer: true },

  // Admins' calls with their own JWT; each refuses all but admins itself.
  list_content_gaps: {
    args: ['p_limit'],
    grants: USERS,
    via: 'console',
    returns: 'rows',
    retried: true,
    definer: true,
  },
  // Sets the same values however often.
  kb_set_settings: {
    args: ['p_patch:jsonb'],
    grants: USERS,
    via: 'console',
    returns: 'rows',
    retried: true,
    definer: true,
  },
  admin_whoami: { args: [], grants: USERS, via: 'console', returns: 'rows', retried: true, definer: true },
  // Sets the same value however often.
  admin_set_assistants: {
    args: ['p_enabled'],
    grants: USERS,
    via: 'console',
    returns: 'value',
    retried: true,
    definer: true,
  },
  admin_list_gaps: {
    args: ['p_status', 'p_limit', 'p_offset'],
    grants: USERS,
    via: 'console',
    returns: 'rows',
    retried: true,
    definer: true,
  },
  admin_set_gap_done: {
    args: ['p_question_key', 'p_done'],
    grants: USERS,
    via: 'console',
    returns: 'value',
    retried: true,
    definer: true,
  },
  admin_list_conversations: {
    args: ['p_rating', 'p_outcome', 'p_from', 'p_to', 'p_limit', 'p_offset'],
    grants: USERS,
    via: 'console',
    returns: 'rows',
    retried: true,
    definer: true,
  },
  admin_get_thread: {
    args: ['p_session_id'],
    grants: USERS,
    via: 'console',
    returns: 'rows',
    retried: true,
    definer: true,
  },
  admin_list_documents: {
    args: ['p_query', 'p_limit', 'p_offset'],
    grants: USERS,
    via: 'console',
    returns: 'rows',
    retried: true,
    definer: true,
  },
  admin_set_document_enabled: {
    args: ['p_id', 'p_enabled'],
    grants: USERS,
    via: 'console',
    returns: 'value',
    retried: true,
    definer: true,
  },
  // "Was it there?" would be wrong after a lost first response.
  admin_delete_document: {
    args: ['p_id'],
    grants: USERS,
    via: 'console',
    returns: 'value',
    retried: false,
    definer: true,
  },
  admin_overview: {
    args: ['p_from', 'p_to'],
    grants: USERS,
    via: 'console',
    returns: 'value',
    retried: true,
    definer: true,
  },
  admin_export_conversations: {
    args: ['p_from', 'p_to', 'p_after', 'p_limit'],
    grants: USERS,
    via: 'console',
    returns: 'rows',
    retried: true,
    definer: true,
  },
  admin_export_gaps: {
    args: ['p_from', 'p_to', 'p_after', 'p_limit'],
    grants: USERS,
    via: 'console',
    returns: 'rows',
    retried: true,
    definer: true,
  },
  admin_export_feedback: {
    args: ['p_from', 'p_to', 'p_after', 'p_limit'],
    grants: USERS,
    via: 'console',
    returns: 'rows',
    retried: true,
    definer: true,
  },
  admin_get_webhook: { args: [], grants: USERS, via: 'console', returns: 'rows', retried: true, definer: true },
  admin_sync_status: { args: [], grants: USERS, via: 'console', returns: 'rows', retried: true, definer: true },
  // The console's helpers: the admin check, the opaque visitor id, page and export bounds, the keyset
  // cursor, the defensive reading of a stored citation.
  kb_assert_admin: { args: [], grants: SERVICE, via: 'sql' },
  kb_visitor_id: { args: ['p_user'], grants: SERVICE, via: 'sql' },
  kb_page_bounds: { args: ['p_limit', 'p_offset'], grants: SERVICE, via: 'sql' },
  kb_export_bounds: { args: ['p_from', 'p_to', 'p_limit'], grants: SERVICE, via: 'sql' },
  kb_export_cursor: { args: ['p_at', 'p_id'], grants: SERVICE, via: 'sql' },
  kb_export_after: { args: ['p_after'], grants: SERVICE, via: 'sql' },
  kb_shown_citation: { args: ['p_citation'], grants: SERVICE, via: 'sql' },
  // The CHECKs behind kb_settings' columns.
  kb_refusal_suggestions_ok: { args: ['p'], grants: SERVICE, via: 'sql' },
  kb_support_url_ok: { args: ['p'], grants: SERVICE, via: 'sql' },
  kb_starters_ok: { args: ['p'], grants: SERVICE, via: 'sql' },
  kb_webhook_url_ok: { args: ['p'], grants: SERVICE, via: 'sql' },
  // The host of a webhook URL, for the log of URL changes that kb_set_settings writes.
  kb_url_host: { args: ['p'], grants: SERVICE, via: 'sql' },

  // Ingestion (the service role; the Worker never holds its key).
  document_state: { args: ['p_source', 'p_model'], grants: SERVICE, via: 'service', returns: 'rows', retried: true },
  // Replaces the document with the same content: the same end state however often.
  ingest_document: {
    args: ['p_source', 'p_name', 'p_meta:jsonb', 'p_checksum', 'p_model', 'p_chunks:jsonb'],
    grants: SERVICE,
    via: 'service',
    returns: 'value',
    retried: true,
  },
  kb_list_documents: { args: [], grants: SERVICE, via: 'service', returns: 'rows', retried: true },
  kb_set_document_enabled: {
    args: ['p_id', 'p_enabled'],
    grants: SERVICE,
    via: 'service',
    returns: 'value',
    retried: true,
  },
  // Their answers ("was it there?", "what was removed?") would be wrong after a lost first response.
  kb_delete_document: { args: ['p_id'], grants: SERVICE, via: 'service', returns: 'value', retried: false },
  kb_prune_documents: {
    args: ['p_prefix', 'p_keep', 'p_dry_run'],
    grants: SERVICE,
    via: 'service',
    returns: 'rows',
    retried: false,
  },
  kb_stale_documents: { args: ['p_model'], grants: SERVICE, via: 'service', returns: 'rows', retried: true },
  kb_document_chunks: { args: ['p_document_id'], grants: SERVICE, via: 'service', returns: 'rows', retried: true },
  // Replaces these chunks' embeddings.
  kb_set_embeddings: {
    args: ['p_model', 'p_embeddings:jsonb'],
    grants: SERVICE,
    via: 'service',
    returns: 'value',
    retried: true,
  },
  kb_optimize: { args: [], grants: SERVICE, via: 'service', returns: 'void', retried: true, definer: true },
  // Bulk loads in the embedded store: drop the HNSW index first, rebuild after.
  kb_defer_embedding_index: {
    args: [],
    grants: SERVICE,
    via: 'service',
    returns: 'value',
    retried: false,
    embeddedOnly: true,
    definer: true,
  },
  kb_restore_indexes: {
    args: [],
    grants: SERVICE,
    via: 'service',
    returns: 'value',
    retried: false,
    embeddedOnly: true,
    definer: true,
  },
  // The webhook with its secret, for the service role only: a sync run emits `sync.finished` to it.
  kb_webhook_target: { args: [], grants: SERVICE, via: 'service', returns: 'rows', retried: true },
  // Not retried: a second attempt after a lost reply would find the first attempt's claim and not send.
  kb_claim_webhook_event: { args: ['p_event_id'], grants: SERVICE, via: 'service', returns: 'value', retried: false },
  // Re-crawling: validators set to a value; a run finished with the same counts again. Starting a run
  // inserts a row: a retry would leave a second, never-finished one.
  kb_http_cache: { args: ['p_prefix'], grants: SERVICE, via: 'service', returns: 'rows', retried: true },
  kb_set_http_cache: {
    args: ['p_source', 'p_http_cache:jsonb'],
    grants: SERVICE,
    via: 'service',
    returns: 'value',
    retried: true,
  },
  kb_sync_run_start: {
    args: ['p_source', 'p_trigger'],
    grants: SERVICE,
    via: 'service',
    returns: 'value',
    retried: false,
  },
  kb_sync_run_finish: {
    args: ['p_id', 'p_counts:jsonb', 'p_errors:jsonb'],
    grants: SERVICE,
    via: 'service',
    returns: 'value',
    retried: true,
  },
  // BM25's statistics, kept by triggers on kb_documents and kb_chunks.
  kb_recount_statistics: { args: [], grants: SERVICE, via: 'sql' },
  kb_count_chunks: { args: ['p_fts', 'p_total_length', 'p_sign'], grants: SERVICE, via: 'sql' },
  kb_chunks_count_trigger: { args: [], grants: SERVICE, via: 'sql' },
  kb_documents_count_trigger: { args: [], grants: SERVICE, via: 'sql' },
  kb_statistics_deferred: { args: [], grants: SERVICE, via: 'sql' },
} as const satisfies Record<string, SqlFunction>;

export type SqlFunctionName = keyof typeof SQL_FUNCTIONS;
/** The functions a store calls (everything but `via: 'sql'`). */
export type CalledName = {
  [F in SqlFunctionName]: (typeof SQL_FUNCTIONS)[F] extends { via: 'sql' } ? never : F;
}[SqlFunctionName];

type ArgName<A> = A extends `${infer N}:${string}` ? N : A;
/** A call's arguments by SQL name; an argument left out takes its default (the Supabase store) or null. */
export type SqlArgs<F extends SqlFunctionName> = {
  [K in ArgName<(typeof SQL_FUNCTIONS)[F]['args'][number]>]?: unknown;
};

const TABLE: Record<string, SqlFunction> = SQL_FUNCTIONS;

export function describeFunction(name: string): SqlFunction | undefined {
  return Object.hasOwn(TABLE, name) ? TABLE[name] : undefined;
}

/** Whether the Supabase store retries `name` after a transient failure; false for anything not called. */
export function isRetried(name: string): boolean {
  const f = describeFunction(name);
  return f !== undefined && f.via !== 'sql' && f.retried;
}

/** An argument's SQL name (without the `:jsonb` / `:vector` hint). */
export function argName(arg: string): string {
  return arg.split(':')[0]!;
}

/**
 * The embedded store's statement for one call: `select <columns> from f($1, …)` for rows, `select f($1, …)
 * as v` otherwise, with the arguments in declaration order. Arguments may be left out only at the end (they
 * take their SQL defaults); JSON arguments are sent as text and cast.
 */
export function positionalCall<F extends CalledName>(
  name: F,
  args: SqlArgs<F>,
  columns = '*',
): { sql: string; params: unknown[] } {
  const f = SQL_FUNCTIONS[name] as CalledFunction;
  const given = args as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!f.args.some((a) => argName(a) === key)) throw new Error(`${name}: no argument ${key}`);
  }
  const last = f.args.reduce((at, a, i) => (argName(a) in given ? i : at), -1);
  const params: unknown[] = [];
  const placeholders: string[] = [];
  for (const [i, arg] of f.args.slice(0, last + 1).entries()) {
    const [key, type] = arg.split(':') as [string, string | undefined];
    if (!(key in given)) throw new Error(`${name}: ${key} left out before a later argument`);
    const value = given[key] ?? null;
    params.push(type && value !== null ? JSON.stringify(value) : value);
    placeholders.push(type ? `$${i + 1}::${type}` : `$${i + 1}`);
  }
  const call = `${name}(${placeholders.join(', ')})`;
  return { sql: f.returns === 'rows' ? `select ${columns} from ${call}` : `select ${call} as v`, params };
}
