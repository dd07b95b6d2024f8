// Long file: one short rpc() call per SQL function of the Store interface, kept together so the Supabase transport reads as one list.
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
  type TurnState,
  type HttpCache,
  type AssistantPage,
  type AssistantsState,
} from './types.ts';
import { isRetried, type CalledName, type SqlArgs } from './functions.ts';
import {
  storedSettings,
  toAdminConversation,
  toAdminDocument,
  toAdminGap,
  toAdminThread,
  toContentGap,
  toDocumentInfo,
  toDocumentState,
  toFeedback,
  toFeedbackRating,
  toKbStats,
  toMessage,
  toOpenedChunk,
  toOverview,
  toPage,
  toRateLimit,
  toSession,
  toStaleDocument,
  toStoredChunk,
  toSyncStatus,
  toTurnState,
  toWebhookState,
  type TurnRow,
} from './rows.ts';
import { toStoreError } from './sqlstate.ts';
import { DEFAULT_RETRY_POLICY, withRetry, type RetryPolicy } from './rpc-retry.ts';

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

type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
/**
 * `rpc` typed per function, as the embedded store's calls are: one overload per called SQL function whose
 * arguments are that function's own (server/store/functions.ts), so a misspelled or another function's argument
 * name is a type error rather than a call PostgREST refuses at run time.
 */
export type Rpc = Intersection<
  { [F in CalledName]: <T>(fn: F, args?: SqlArgs<F>, token?: string) => Promise<T | null> }[CalledName]
>;
type Untyped = <T>(fn: CalledName, args?: Record<string, unknown>, token?: string) => Promise<T | null>;
type VisitorRpc = Intersection<
  { [F in CalledName]: <T>(claims: JwtClaims, fn: F, args: SqlArgs<F>) => Promise<T | null> }[CalledName]
>;

/** `rpc(fn, args, token?)`: one SQL function through PostgREST, with its timeout and, if idempotent, retries. */
function rpcCaller({ url, key, realtimeTransport, fetch, retry = DEFAULT_RETRY_POLICY }: SupabaseStoreOptions): Rpc {
  const supabase: SupabaseClient = createClient(url, key, {
    // A server-side client never keeps a session: every visitor call sets its own Authorization header.
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    ...(realtimeTransport ? { realtime: { transport: realtimeTransport as never } } : {}),
    ...(fetch ? { global: { fetch } } : {}),
  });
  const untyped: Untyped = <T>(fn: CalledName, args?: Record<string, unknown>, token?: string) =>
    call<T>(
      fn,
      (signal) => {
        const request = supabase.rpc(fn, args).abortSignal(signal);
        return token ? request.setHeader('Authorization', `Bearer ${token}`) : request;
      },
      retry,
    );
  return untyped as unknown as Rpc;
}

/** The visitor-facing store: kb_stats as `anon`, everything else as the visitor (their JWT, RLS applies). */
export function createSupabaseChatStore(options: SupabaseChatStoreOptions): ChatStore {
  const rpc = rpcCaller(options);
  const { answerWriteKey } = options;

  /** One rpc as the visitor: the token they authenticated with, forwarded unchanged. */
  const asVisitor = (<T>(claims: JwtClaims, fn: CalledName, args: Record<string, unknown>) => {
    const token = claims[ACCESS_TOKEN];
    // Without it the call would silently run as `anon` (supabase-js falls back to the API key).
    if (!token) return Promise.reject(new StoreError('forbidden', `no access token to call ${fn} as the visitor`));
    return (rpc as unknown as Untyped)<T>(fn, args, token);
  }) as VisitorRpc;

  return {
    async kbStats(): Promise<KbStats> {
      return toKbStats(single('kb_stats', await rpc<Record<string, unknown>[]>('kb_stats')));
    },

    async hasDocuments(): Promise<boolean> {
      return (await rpc<boolean>('kb_has_documents')) === true;
    },

    async assistantsState(): Promise<AssistantsState> {
      const row = single('kb_assistants_state', await rpc<Record<string, unknown>[]>('kb_assistants_state'));
      return { enabled: row.enabled !== false, version: String(row.version) };
    },

    async assistantPages(withText: boolean): Promise<AssistantPage[]> {
      return (await rpc<AssistantPage[]>('kb_assistant_pages', { p_with_text: withText })) ?? [];
    },

    async setAssistants(claims, enabled): Promise<boolean> {
      return (await asVisitor<boolean>(claims, 'admin_set_assistants', { p_enabled: enabled })) === true;
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
      const rows = await asVisitor<Record<string, unknown>[]>(claims, 'rate_limit_hit', {
        p_bucket: bucket,
        p_limit: limit,
        p_window_seconds: windowSeconds,
      });
      return toRateLimit(single('rate_limit_hit', rows));
    },

    async listSessions(claims, limit): Promise<SessionRow[]> {
      return ((await asVisitor<Record<string, unknown>[]>(claims, 'list_chat_sessions', { p_limit: limit })) ?? []).map(
        toSession,
      );
    },

    async getSession(claims, sessionId): Promise<SessionRow | null> {
      const row = ((await asVisitor<Record<string, unknown>[]>(claims, 'get_chat_session', {
        p_session_id: sessionId,
      })) ?? [])[0];
      return row ? toSession(row) : null;
    },

    async getMessages(claims, sessionId): Promise<MessageRow[]> {
      return (
        (await asVisitor<Record<string, unknown>[]>(claims, 'get_chat_messages', { p_session_id: sessionId })) ?? []
      ).map(toMessage);
    },

    async recentMessages(claims, sessionId, limit): Promise<MessageRow[]> {
      return (
        (await asVisitor<Record<string, unknown>[]>(claims, 'get_recent_chat_messages', {
          p_session_id: sessionId,
          p_limit: limit,
        })) ?? []
      ).map(toMessage);
    },

    async setFeedback(claims, feedback): Promise<FeedbackRow> {
      const rows = await asVisitor<Record<string, unknown>[]>(claims, 'chat_set_feedback', {
        p_message_id: feedback.message_id,
        p_rating: feedback.rating,
        p_comment: feedback.comment,
      });
      return toFeedback(single('chat_set_feedback', rows));
    },

    async getFeedback(claims, sessionId): Promise<Pick<FeedbackRow, 'message_id' | 'rating'>[]> {
      return (
        (await asVisitor<Record<string, unknown>[]>(claims, 'get_chat_feedback', { p_session_id: sessionId })) ?? []
      ).map(toFeedbackRating);
    },

    async getChunk(claims, chunkId): Promise<ChunkMatch | null> {
      const row = ((await asVisitor<Record<string, unknown>[]>(claims, 'get_chunk', { p_chunk_id: chunkId })) ?? [])[0];
      return row ? toOpenedChunk(row) : null;
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
      if (!row || typeof row.text !== 'string')
        throw new StoreError('unavailable', 'chat_save_generated returned no answer');
      return { text: row.text, model: row.model };
    },

    async getSettings(): Promise<StoredSettings> {
      return storedSettings(single('kb_get_settings', await rpc<StoredSettings[]>('kb_get_settings')));
    },

    async setSettings(claims, patch): Promise<StoredSettings> {
      // A patch is idempotent (it sets values), so kb_set_settings is retried like a read.
      return storedSettings(
        single('kb_set_settings', await asVisitor<StoredSettings[]>(claims, 'kb_set_settings', { p_patch: patch })),
      );
    },

    async listContentGaps(claims, limit): Promise<ContentGap[]> {
      return ((await asVisitor<Record<string, unknown>[]>(claims, 'list_content_gaps', { p_limit: limit })) ?? []).map(
        toContentGap,
      );
    },

    async adminWhoami(claims) {
      const row = single('admin_whoami', await asVisitor<{ user_id: string }[]>(claims, 'admin_whoami', {}));
      return { user_id: row.user_id };
    },

    async adminListGaps(claims, q) {
      const rows = await asVisitor<(Record<string, unknown> & { total: number })[]>(claims, 'admin_list_gaps', {
        p_status: q.status,
        p_limit: q.limit,
        p_offset: q.offset,
      });
      return toPage(rows, q.limit, q.offset, toAdminGap);
    },

    async adminSetGapDone(claims, questionKey, done) {
      return (
        (await asVisitor<boolean>(claims, 'admin_set_gap_done', { p_question_key: questionKey, p_done: done })) === true
      );
    },

    async adminGetThread(claims, sessionId) {
      return toAdminThread(
        (await asVisitor<Record<string, unknown>[]>(claims, 'admin_get_thread', { p_session_id: sessionId })) ?? [],
      );
    },

    async adminListConversations(claims, q) {
      const rows = await asVisitor<(Record<string, unknown> & { total: number })[]>(
        claims,
        'admin_list_conversations',
        {
          p_rating: q.rating,
          p_outcome: q.outcome,
          p_from: q.from ?? null,
          p_to: q.to ?? null,
          p_limit: q.limit,
          p_offset: q.offset,
        },
      );
      return toPage(rows, q.limit, q.offset, toAdminConversation);
    },

    async adminListDocuments(claims, q) {
      const rows = await asVisitor<(Record<string, unknown> & { total: number })[]>(claims, 'admin_list_documents', {
        p_query: q.q,
        p_limit: q.limit,
        p_offset: q.offset,
      });
      return toPage(rows, q.limit, q.offset, toAdminDocument);
    },

    async adminSetDocumentEnabled(claims, id, enabled) {
      return (
        (await asVisitor<boolean>(claims, 'admin_set_document_enabled', { p_id: id, p_enabled: enabled })) === true
      );
    },

    async adminDeleteDocument(claims, id) {
      return (await asVisitor<boolean>(claims, 'admin_delete_document', { p_id: id })) === true;
    },

    async adminOverview(claims, from, to) {
      return toOverview(await asVisitor<unknown>(claims, 'admin_overview', { p_from: from, p_to: to }));
    },

    async adminExportConversations(claims, q) {
      return (
        (await asVisitor<ExportRow[]>(claims, 'admin_export_conversations', {
          p_from: q.from,
          p_to: q.to,
          p_after: q.after,
          p_limit: q.limit,
        })) ?? []
      );
    },

    async adminExportGaps(claims, q) {
      return (
        (await asVisitor<ExportRow[]>(claims, 'admin_export_gaps', {
          p_from: q.from,
          p_to: q.to,
          p_after: q.after,
          p_limit: q.limit,
        })) ?? []
      );
    },

    async adminExportFeedback(claims, q) {
      return (
        (await asVisitor<ExportRow[]>(claims, 'admin_export_feedback', {
          p_from: q.from,
          p_to: q.to,
          p_after: q.after,
          p_limit: q.limit,
        })) ?? []
      );
    },

    async adminGetWebhook(claims) {
      return toWebhookState((await asVisitor<Record<string, unknown>[]>(claims, 'admin_get_webhook', {}))?.[0]);
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
      const row = (await rpc<Record<string, unknown>[]>('document_state', { p_source: source, p_model: model }))?.[0];
      return row ? toDocumentState(row) : null;
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
      return ((await rpc<Record<string, unknown>[]>('kb_list_documents')) ?? []).map(toDocumentInfo);
    },

    async setDocumentEnabled(id, enabled) {
      return (await rpc<boolean>('kb_set_document_enabled', { p_id: id, p_enabled: enabled })) === true;
    },

    async deleteDocument(id) {
      return (await rpc<boolean>('kb_delete_document', { p_id: id })) === true;
    },

    async pruneDocuments(prefix, keep, dryRun) {
      return (
        (await rpc<{ id: string; source: string }[]>('kb_prune_documents', {
          p_prefix: prefix,
          p_keep: keep,
          p_dry_run: dryRun,
        })) ?? []
      );
    },

    async staleDocuments(model) {
      return ((await rpc<Record<string, unknown>[]>('kb_stale_documents', { p_model: model })) ?? []).map(
        toStaleDocument,
      );
    },

    async documentChunks(documentId) {
      return ((await rpc<Record<string, unknown>[]>('kb_document_chunks', { p_document_id: documentId })) ?? []).map(
        toStoredChunk,
      );
    },

    async setEmbeddings(model, rows) {
      return Number(await rpc<number>('kb_set_embeddings', { p_model: model, p_embeddings: rows }));
    },

    async webhookTarget() {
      const rows = await rpc<{ url: string | null; secret: string | null }[]>('kb_webhook_target');
      return rows?.[0] ?? { url: null, secret: null };
    },

    async claimWebhookEvent(eventId) {
      return (await rpc<boolean>('kb_claim_webhook_event', { p_event_id: eventId })) === true;
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
      return scalar(
        'kb_sync_run_start',
        await rpc<string>('kb_sync_run_start', { p_source: source, p_trigger: trigger }),
      );
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
 * Runs one rpc (retried when functions.ts says so) and maps its error to the StoreError kinds the API
 * understands (sqlstate.ts, as the embedded store does).
 */
async function call<T>(
  fn: CalledName,
  attempt: (signal: AbortSignal) => RpcResult<T>,
  policy: RetryPolicy,
): Promise<T | null> {
  let result: Awaited<RpcResult<T>>;
  try {
    result = await withRetry(attempt, isRetried(fn), policy);
  } catch (error) {
    throw new StoreError('unavailable', `${fn}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  if (result.error) throw toStoreError(result.error, fn);
  return result.data;
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
