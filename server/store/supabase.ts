/**
 * The Supabase store: the same SQL functions as the embedded store, called through supabase-js `rpc()`
 * (PostgREST). Visitor calls carry the visitor's own JWT, so PostgREST runs them as role `authenticated`
 * with `request.jwt.claims` set and row-level security decides, exactly as in the embedded store.
 *
 * Two factories with two keys: `createSupabaseChatStore` (anon key + the visitor's token; what the Worker
 * uses) and `createSupabaseIngestStore` (service-role key; only the ingestion CLI). The Worker never holds
 * the service-role key. The chat store also holds the answer write key (KB_ANSWER_WRITE_KEY): the functions
 * that store the server's word — the answer, a content gap, a written answer — refuse a caller without it,
 * so a visitor's own JWT is not enough to call them over PostgREST.
 */
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import {
  ACCESS_TOKEN,
  StoreError,
  type BeginTurn,
  type ChatStore,
  type ChunkMatch,
  type DocumentInfo,
  type DocumentState,
  type FinishTurn,
  type Generated,
  type IngestDocument,
  type IngestStore,
  type JwtClaims,
  type KbStats,
  type SearchChunkRow,
  type SearchChunksParams,
  type ContentGap,
  type ExportRow,
  type FeedbackRow,
  type StoredSettings,
  type MessageRow,
  type RateLimitState,
  type SessionRow,
  type StoredChunk,
  type TurnState,
  type HttpCache,
} from './types.ts';
import { ANSWER_KEY_REFUSED } from './answer-key.ts';
import { iso, storedSettings, toAdminConversation, toAdminDocument, toAdminGap, toAdminThread, toOverview, toPage, toSyncStatus, toTurnState, type TurnRow } from './rows.ts';
import { DEFAULT_RETRY_POLICY, withRetry, type RetryPolicy } from './rpc-retry.ts';

/**
 * Whether a call may be retried after a transient failure (rpc-retry.ts): idempotent calls only — reads,
 * and writes keyed so that a second attempt finds what the first one stored. Every rpc this file makes has
 * an entry (a test derives the calls from this file and checks it).
 */
export const RETRIED: Record<string, boolean> = {
  kb_stats: true,
  kb_has_documents: true,
  match_chunks: true,
  search_chunks: true,
  // Keyed by the message id: a retry finds the turn the lost attempt stored (is_new false, same request).
  chat_begin_turn: true,
  // Keyed by reply_to: a retry returns the answer the lost attempt stored.
  chat_finish_turn: true,
  // Counts one request: done twice, it would count twice.
  rate_limit_hit: false,
  list_chat_sessions: true,
  get_chat_session: true,
  get_chat_messages: true,
  get_recent_chat_messages: true,
  get_chunk: true,
  // Keyed by the message id: a second call stores the same rating again (the end state of a change of mind).
  chat_set_feedback: true,
  get_chat_feedback: true,
  // Keyed by the message id (migration 20261124002000): a question is counted once however often it is sent.
  record_content_gap: true,
  list_content_gaps: true,
  // The first written answer stays: a second attempt returns it.
  chat_save_generated: true,
  // Sets the same hash however often (`npm run console -- answer-key`).
  kb_set_answer_write_key: true,
  kb_get_settings: true,
  // Sets the same value however often.
  kb_set_settings: true,
  document_state: true,
  // Replaces the document with the same content: the same end state however often.
  ingest_document: true,
  kb_list_documents: true,
  kb_set_document_enabled: true,
  // Their answer ("was it there?", "what was removed?") would be wrong after a lost first response.
  kb_delete_document: false,
  kb_prune_documents: false,
  kb_stale_documents: true,
  kb_document_chunks: true,
  // Replaces these chunks' embeddings.
  kb_set_embeddings: true,
  kb_optimize: true,
  // The console's (20261125030000_admin_console.sql): reads, and writes that set a state (done, enabled).
  admin_whoami: true,
  admin_list_gaps: true,
  admin_set_gap_done: true,
  admin_list_conversations: true,
  admin_get_thread: true,
  admin_list_documents: true,
  admin_set_document_enabled: true,
  // "Was it there?" would be wrong after a lost first response.
  admin_delete_document: false,
  admin_overview: true,
  // Data out (20261126060000_data_out.sql): reads.
  admin_export_conversations: true,
  admin_export_gaps: true,
  admin_export_feedback: true,
  admin_get_webhook: true,
  // The webhook with its secret: the service role's only (the ingestion CLI's store), so a sync run emits
  // `sync.finished` to the webhook an admin set in the console.
  kb_webhook_target: true,
  // Re-crawling (20261126050000_sync_runs.sql): validators set to a value; a run finished with the same
  // counts again. Starting a run inserts a row: a retry would leave a second, never-finished one.
  kb_http_cache: true,
  kb_set_http_cache: true,
  kb_sync_run_start: false,
  kb_sync_run_finish: true,
  admin_sync_status: true,
};

export interface SupabaseStoreOptions {
  /** The project URL, e.g. https://abcd.supabase.co */
  url: string;
  /** The anon (publishable) key for the chat store; the service-role key for the ingest store. */
  key: string;
  /**
   * A WebSocket constructor for supabase-js's realtime client, which it creates eagerly even though this
   * store never subscribes: required on Node 20 (pass `ws`), not on Workers or Node ≥ 22 (native WebSocket).
   */
  realtimeTransport?: unknown;
  /** Replaces the global fetch (tests, tracing). */
  fetch?: typeof fetch;
  /** Per-attempt timeout, deadline and backoff (rpc-retry.ts). */
  retry?: RetryPolicy;
}

export interface SupabaseChatStoreOptions extends SupabaseStoreOptions {
  /** KB_ANSWER_WRITE_KEY: sent to chat_finish_turn, record_content_gap and chat_save_generated. */
  answerWriteKey: string;
}

type RpcResult<T> = PromiseLike<{ data: T | null; error: { code?: string; message: string } | null; status: number }>;

/** `rpc(fn, args, token?)`: one SQL function through PostgREST, with its timeout and, if idempotent, retries. */
function rpcCaller({ url, key, realtimeTransport, fetch, retry = DEFAULT_RETRY_POLICY }: SupabaseStoreOptions) {
  const supabase: SupabaseClient = createClient(url, key, {
    // A server-side client never keeps a session: every visitor call sets its own Authorization header.
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    ...(realtimeTransport ? { realtime: { transport: realtimeTransport as never } } : {}),
    ...(fetch ? { global: { fetch } } : {}),
  });
  return <T>(fn: string, args?: Record<string, unknown>, token?: string): Promise<T | null> =>
    call<T>(
      fn,
      (signal) => {
        const request = supabase.rpc(fn, args).abortSignal(signal);
        return token ? request.setHeader('Authorization', `Bearer ${token}`) : request;
      },
      retry,
    );
}

/** The visitor-facing store: kb_stats as `anon`, everything else as the visitor (their JWT, RLS applies). */
export function createSupabaseChatStore(options: SupabaseChatStoreOptions): ChatStore {
  const rpc = rpcCaller(options);
  const { answerWriteKey } = options;

  /** One rpc as the visitor: the token they authenticated with, forwarded unchanged. */
  const asVisitor = <T>(claims: JwtClaims, fn: string, args: Record<string, unknown>) => {
    const token = claims[ACCESS_TOKEN];
    // Without it the call would silently run as `anon` (supabase-js falls back to the API key).
    if (!token) return Promise.reject(new StoreError('forbidden', `no access token to call ${fn} as the visitor`));
    return rpc<T>(fn, args, token);
  };

  return {
    async kbStats(): Promise<KbStats> {
      const rows = await rpc<Record<keyof KbStats, number | string>[]>('kb_stats');
      const row = single('kb_stats', rows);
      return {
        documents: Number(row.documents),
        ready_documents: Number(row.ready_documents),
        chunks: Number(row.chunks),
        embeddings: Number(row.embeddings),
      };
    },

    async hasDocuments(): Promise<boolean> {
      return (await rpc<boolean>('kb_has_documents')) === true;
    },

    async matchChunks(claims, embedding, threshold, count): Promise<ChunkMatch[]> {
      // A vector argument travels as a JSON array; PostgREST casts it to `vector(384)` like any typed arg.
      return (
        (await asVisitor<ChunkMatch[]>(claims, 'match_chunks', {
          query_embedding: embedding,
          threshold,
          match_count: count,
        })) ?? []
      );
    },

    async searchChunks(claims, params: SearchChunksParams): Promise<SearchChunkRow[]> {
      return (
        (await asVisitor<SearchChunkRow[]>(claims, 'search_chunks', {
          query_embedding: params.embedding,
          query_text: params.text,
          match_count: params.count,
          search_mode: params.mode,
          filters: params.filters,
          candidate_count: params.candidates ?? 50,
        })) ?? []
      );
    },

    async beginTurn(claims, turn: BeginTurn): Promise<TurnState> {
      const rows = await asVisitor<TurnRow[]>(claims, 'chat_begin_turn', {
        p_session_id: turn.session_id ?? null,
        p_message_id: turn.message_id,
        p_content: turn.content,
        p_title: turn.title,
      });
      return toTurnState(single('chat_begin_turn', rows));
    },

    async finishTurn(claims, turn: FinishTurn): Promise<string> {
      return scalar(
        'chat_finish_turn',
        await asVisitor<string>(claims, 'chat_finish_turn', {
          p_session_id: turn.session_id,
          p_reply_to: turn.reply_to,
          p_content: turn.content,
          p_citations: turn.citations,
          p_meta: turn.meta,
          p_write_key: answerWriteKey,
        }),
      );
    },

    async rateLimitHit(claims, bucket, limit, windowSeconds): Promise<RateLimitState> {
      const rows = await asVisitor<{ allowed: boolean; remaining: number; reset_at: string }[]>(claims, 'rate_limit_hit', {
        p_bucket: bucket,
        p_limit: limit,
        p_window_seconds: windowSeconds,
      });
      const row = single('rate_limit_hit', rows);
      return { allowed: row.allowed, remaining: row.remaining, reset_at: new Date(row.reset_at) };
    },

    async listSessions(claims, limit): Promise<SessionRow[]> {
      const rows = (await asVisitor<SessionRow[]>(claims, 'list_chat_sessions', { p_limit: limit })) ?? [];
      return rows.map(({ id, title, created_at, updated_at }) => ({
        id,
        title,
        created_at: iso(created_at),
        updated_at: iso(updated_at),
      }));
    },

    async getSession(claims, sessionId): Promise<SessionRow | null> {
      const row = ((await asVisitor<SessionRow[]>(claims, 'get_chat_session', { p_session_id: sessionId })) ?? [])[0];
      return row
        ? { id: row.id, title: row.title, created_at: iso(row.created_at), updated_at: iso(row.updated_at) }
        : null;
    },

    async getMessages(claims, sessionId): Promise<MessageRow[]> {
      const rows = (await asVisitor<MessageRow[]>(claims, 'get_chat_messages', { p_session_id: sessionId })) ?? [];
      return rows.map(({ id, role, content, citations, meta, created_at }) => ({
        id,
        role,
        content,
        citations,
        meta,
        created_at: iso(created_at),
      }));
    },

    async recentMessages(claims, sessionId, limit): Promise<MessageRow[]> {
      const rows = (await asVisitor<MessageRow[]>(claims, 'get_recent_chat_messages', { p_session_id: sessionId, p_limit: limit })) ?? [];
      return rows.map(({ id, role, content, citations, meta, created_at }) => ({ id, role, content, citations, meta, created_at: iso(created_at) }));
    },

    async setFeedback(claims, feedback): Promise<FeedbackRow> {
      const rows = await asVisitor<FeedbackRow[]>(claims, 'chat_set_feedback', {
        p_message_id: feedback.message_id,
        p_rating: feedback.rating,
        p_comment: feedback.comment,
      });
      const row = single('chat_set_feedback', rows);
      return { message_id: row.message_id, rating: row.rating, comment: row.comment, updated_at: iso(row.updated_at) };
    },

    async getFeedback(claims, sessionId): Promise<Pick<FeedbackRow, 'message_id' | 'rating'>[]> {
      const rows = (await asVisitor<Pick<FeedbackRow, 'message_id' | 'rating'>[]>(claims, 'get_chat_feedback', { p_session_id: sessionId })) ?? [];
      return rows.map(({ message_id, rating }) => ({ message_id, rating }));
    },

    async getChunk(claims, chunkId): Promise<ChunkMatch | null> {
      const row = ((await asVisitor<Omit<ChunkMatch, 'similarity'>[]>(claims, 'get_chunk', { p_chunk_id: chunkId })) ?? [])[0];
      return row ? { ...row, similarity: 1 } : null;
    },

    async recordContentGap(claims, question, reason, messageId): Promise<void> {
      await asVisitor<null>(claims, 'record_content_gap', {
        p_question: question,
        p_reason: reason,
        p_message_id: messageId,
        p_write_key: answerWriteKey,
      });
    },

    async saveGenerated(claims, messageId, generated): Promise<Generated> {
      const row = await asVisitor<Generated | null>(claims, 'chat_save_generated', {
        p_message_id: messageId,
        p_text: generated.text,
        p_model: generated.model,
        p_write_key: answerWriteKey,
      });
      if (!row || typeof row.text !== 'string') throw new StoreError('unavailable', 'chat_save_generated returned no answer');
      return { text: row.text, model: row.model };
    },

    async getSettings(): Promise<StoredSettings> {
      return storedSettings(single('kb_get_settings', await rpc<StoredSettings[]>('kb_get_settings')));
    },

    async setSettings(claims, patch): Promise<StoredSettings> {
      // A patch is idempotent (it sets values), so kb_set_settings is retried like a read.
      return storedSettings(single('kb_set_settings', await asVisitor<StoredSettings[]>(claims, 'kb_set_settings', { p_patch: patch })));
    },

    async listContentGaps(claims, limit): Promise<ContentGap[]> {
      const rows = (await asVisitor<ContentGap[]>(claims, 'list_content_gaps', { p_limit: limit })) ?? [];
      return rows.map((r) => ({ ...r, first_asked_at: iso(r.first_asked_at), last_asked_at: iso(r.last_asked_at) }));
    },

    async adminWhoami(claims) {
      const row = single('admin_whoami', await asVisitor<{ user_id: string }[]>(claims, 'admin_whoami', {}));
      return { user_id: row.user_id };
    },

    async adminListGaps(claims, q) {
      const rows = await asVisitor<(Record<string, unknown> & { total: number })[]>(claims, 'admin_list_gaps', {
        p_status: q.status, p_limit: q.limit, p_offset: q.offset,
      });
      return toPage(rows, q.limit, q.offset, toAdminGap);
    },

    async adminSetGapDone(claims, questionKey, done) {
      return (await asVisitor<boolean>(claims, 'admin_set_gap_done', { p_question_key: questionKey, p_done: done })) === true;
    },

    async adminGetThread(claims, sessionId) {
      return toAdminThread((await asVisitor<Record<string, unknown>[]>(claims, 'admin_get_thread', { p_session_id: sessionId })) ?? []);
    },

    async adminListConversations(claims, q) {
      const rows = await asVisitor<(Record<string, unknown> & { total: number })[]>(claims, 'admin_list_conversations', {
        p_rating: q.rating, p_outcome: q.outcome, p_from: q.from ?? null, p_to: q.to ?? null, p_limit: q.limit, p_offset: q.offset,
      });
      return toPage(rows, q.limit, q.offset, toAdminConversation);
    },

    async adminListDocuments(claims, q) {
      const rows = await asVisitor<(Record<string, unknown> & { total: number })[]>(claims, 'admin_list_documents', {
        p_query: q.q, p_limit: q.limit, p_offset: q.offset,
      });
      return toPage(rows, q.limit, q.offset, toAdminDocument);
    },

    async adminSetDocumentEnabled(claims, id, enabled) {
      return (await asVisitor<boolean>(claims, 'admin_set_document_enabled', { p_id: id, p_enabled: enabled })) === true;
    },

    async adminDeleteDocument(claims, id) {
      return (await asVisitor<boolean>(claims, 'admin_delete_document', { p_id: id })) === true;
    },

    async adminOverview(claims, from, to) {
      return toOverview(await asVisitor<unknown>(claims, 'admin_overview', { p_from: from, p_to: to }));
    },

    async adminExportConversations(claims, q) {
      return (await asVisitor<ExportRow[]>(claims, 'admin_export_conversations', { p_from: q.from, p_to: q.to, p_after: q.after, p_limit: q.limit })) ?? [];
    },

    async adminExportGaps(claims, q) {
      return (await asVisitor<ExportRow[]>(claims, 'admin_export_gaps', { p_from: q.from, p_to: q.to, p_after: q.after, p_limit: q.limit })) ?? [];
    },

    async adminExportFeedback(claims, q) {
      return (await asVisitor<ExportRow[]>(claims, 'admin_export_feedback', { p_from: q.from, p_to: q.to, p_after: q.after, p_limit: q.limit })) ?? [];
    },

    async adminGetWebhook(claims) {
      return (await asVisitor<{ url: string | null; secret_set: boolean }[]>(claims, 'admin_get_webhook', {}))?.[0] ?? { url: null, secret_set: false };
    },

    async adminSyncStatus(claims) {
      return ((await asVisitor<Record<string, unknown>[]>(claims, 'admin_sync_status', {})) ?? []).map(toSyncStatus);
    },
  };
}

/** The ingestion CLI's store: the service-role key, which bypasses RLS and may call ingest_document. */
export function createSupabaseIngestStore(options: SupabaseStoreOptions): IngestStore {
  const rpc = rpcCaller(options);
  return {
    async documentState(source, model): Promise<DocumentState | null> {
      const rows = await rpc<(DocumentState & { stale_embeddings: number | string })[]>('document_state', { p_source: source, p_model: model });
      const row = rows?.[0];
      return row ? { ...row, stale_embeddings: Number(row.stale_embeddings) } : null;
    },

    async ingestDocument(doc: IngestDocument): Promise<string> {
      return scalar(
        'ingest_document',
        await rpc<string>('ingest_document', {
          p_source: doc.source,
          p_name: doc.name,
          p_meta: doc.meta,
          p_checksum: doc.checksum,
          p_model: doc.model,
          p_chunks: doc.chunks,
        }),
      );
    },

    async listDocuments() {
      const rows = await rpc<(DocumentInfo & { chunks: number | string })[]>('kb_list_documents');
      return (rows ?? []).map((r) => ({ ...r, chunks: Number(r.chunks) }));
    },

    async setDocumentEnabled(id, enabled) {
      return (await rpc<boolean>('kb_set_document_enabled', { p_id: id, p_enabled: enabled })) === true;
    },

    async deleteDocument(id) {
      return (await rpc<boolean>('kb_delete_document', { p_id: id })) === true;
    },

    async pruneDocuments(prefix, keep, dryRun) {
      return (await rpc<{ id: string; source: string }[]>('kb_prune_documents', { p_prefix: prefix, p_keep: keep, p_dry_run: dryRun })) ?? [];
    },

    async staleDocuments(model) {
      const rows = await rpc<{ id: string; source: string; name: string; stale: number | string }[]>('kb_stale_documents', { p_model: model });
      return (rows ?? []).map((r) => ({ ...r, stale: Number(r.stale) }));
    },

    async documentChunks(documentId) {
      const rows = await rpc<(Omit<StoredChunk, 'position'> & { chunk_position: number })[]>('kb_document_chunks', { p_document_id: documentId });
      return (rows ?? []).map(({ chunk_position, ...r }) => ({ ...r, position: chunk_position }));
    },

    async setEmbeddings(model, rows) {
      return Number(await rpc<number>('kb_set_embeddings', { p_model: model, p_embeddings: rows }));
    },

    async webhookTarget() {
      const rows = await rpc<{ url: string | null; secret: string | null }[]>('kb_webhook_target');
      return rows?.[0] ?? { url: null, secret: null };
    },

    async optimize() {
      await rpc('kb_optimize');
    },

    async httpCache(prefix) {
      return (await rpc<{ source: string; http_cache: HttpCache }[]>('kb_http_cache', { p_prefix: prefix })) ?? [];
    },

    async setHttpCache(source, cache) {
      return (await rpc<boolean | null>('kb_set_http_cache', { p_source: source, p_http_cache: cache })) === true;
    },

    async startSyncRun(source, trigger) {
      return scalar('kb_sync_run_start', await rpc<string>('kb_sync_run_start', { p_source: source, p_trigger: trigger }));
    },

    async finishSyncRun(id, counts, errors) {
      await rpc('kb_sync_run_finish', { p_id: id, p_counts: counts, p_errors: errors });
    },
  };
}

/**
 * Stores the SHA-256 of the answer write key (`kb_set_answer_write_key`), replacing any earlier one: with the
 * service-role key, as `npm run console -- answer-key` does. The key itself is not sent.
 */
export async function setSupabaseAnswerWriteKey(options: SupabaseStoreOptions, keyHash: string): Promise<void> {
  const rpc = rpcCaller(options);
  await rpc('kb_set_answer_write_key', { p_key_hash: keyHash });
}

/**
 * Runs one rpc (retried when RETRIED says so) and maps its error to the StoreError kinds the API understands
 * (as pglite.ts does).
 */
async function call<T>(fn: string, attempt: (signal: AbortSignal) => RpcResult<T>, policy: RetryPolicy): Promise<T | null> {
  let result: Awaited<RpcResult<T>>;
  try {
    result = await withRetry(attempt, RETRIED[fn] === true, policy);
  } catch (error) {
    throw new StoreError('unavailable', `${fn}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  if (result.error) throw toStoreError(fn, result.error);
  return result.data;
}

/**
 * PostgREST reports the Postgres SQLSTATE as `code`: 23505 unique_violation (a reused message id);
 * 42501 insufficient_privilege / row-level security (somebody else's session; but the database refusing the
 * server's own answer write key is a misconfiguration, `unavailable`); 23503 foreign key (a
 * token for a user that no longer exists); 22023 invalid_parameter_value (a function refused an argument the
 * API should have caught first). Anything else — PGRST* (PostgREST itself: bad JWT, unknown
 * function), network failures (supabase-js reports those with an empty code) — is `unavailable`.
 */
export function toStoreError(fn: string, error: { code?: string; message: string }): StoreError {
  const message = `${fn}: ${error.message}`;
  if (error.code === '23505') return new StoreError('conflict', message, { cause: error });
  if (error.code === '42501' && ANSWER_KEY_REFUSED.test(error.message)) return new StoreError('unavailable', message, { cause: error });
  if (error.code === '42501' || error.code === '23503') return new StoreError('forbidden', message, { cause: error });
  if (error.code === '22023') return new StoreError('invalid', message, { cause: error });
  return new StoreError('unavailable', message, { cause: error });
}

function single<T>(fn: string, rows: T[] | null): T {
  const row = rows?.[0];
  if (!row) throw new StoreError('unavailable', `${fn} returned no row`);
  return row;
}

function scalar(fn: string, value: string | null): string {
  if (typeof value !== 'string') throw new StoreError('unavailable', `${fn} returned ${JSON.stringify(value)}`);
  return value;
}
