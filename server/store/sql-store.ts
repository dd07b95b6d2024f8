// Long file: one short method per SQL function of the Store interface (70 functions), kept together so both SQL transports (PGlite, PostgreSQL) read as one list.
/**
 * The store over a Postgres connection, embedded (PGlite, pglite.ts) or a server (PostgreSQL, postgres.ts):
 * the same migrations, SQL functions and row-level security as Supabase. Visitor calls run the way PostgREST
 * runs them: inside one transaction, `request.jwt.claims` set and `set local role authenticated`, so the
 * policies are enforced by Postgres itself. Service work runs as the connecting user, the database owner
 * (the service role's place on Supabase).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Overview } from '../../protocol/index.ts';
import { answerWriteKeyHash, newAnswerWriteKey } from './answer-key.ts';
import { positionalCall, type CalledName, type SqlArgs } from './functions.ts';
import type { MigrationResult } from './migrate.ts';
import type { SqlDb, SqlLocks, SqlQueryable, Unlock } from './sql-db.ts';
import type {
  AssistantPage,
  AssistantsState,
  BeginTurn,
  ChatStore,
  ChunkMatch,
  DocumentInfo,
  DocumentState,
  FinishTurn,
  Generated,
  IngestDocument,
  IngestStore,
  JwtClaims,
  KbStats,
  LocalAuthStore,
  SearchChunkRow,
  SearchChunksParams,
  ContentGap,
  FeedbackRow,
  ConversationsQuery,
  ExportPageQuery,
  ExportRow,
  SettingsPatch,
  StoredSettings,
  MessageRow,
  RateLimitState,
  SessionRow,
  StoredChunk,
  TurnState,
  HttpCache,
  SyncCounts,
  SyncStatus,
  SyncTrigger,
  WebhookState,
} from './types.ts';
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
} from './rows.ts';
import { toStoreError } from './sqlstate.ts';

export type { SqlDb, SqlQueryable };

export interface OpenStore<D extends SqlDb = SqlDb> extends ChatStore, LocalAuthStore, IngestStore {
  readonly db: D;
  readonly migrations: MigrationResult;
  close(): Promise<void>;
  tryDatabaseLock(name: string): Promise<Unlock | null>;
  scheduledSyncSince(seconds: number): Promise<boolean>;
}

export interface StoreKeyOptions {
  /**
   * The key this store writes answers with (server/store/answer-key.ts). Its hash is stored at open, so the
   * database accepts this store's answers and no one else's: whoever opened it last holds the key. `npm start`
   * passes the one kept in KB_DATA_DIR (or KB_ANSWER_WRITE_KEY); without one, a random key for this open.
   * Servers sharing one PostgreSQL database must therefore share KB_ANSWER_WRITE_KEY. `null`: leave the
   * database's key alone, for a store that writes no answers (the ingestion CLI), whose answer writes are
   * then refused.
   */
  answerWriteKey?: string | null;
  /**
   * Whether admins may set the webhook through kb_set_settings (`kb_settings.webhook_console`, which only the
   * owner writes). The Node server says true: its console API is the only caller of kb_set_settings on the
   * database it opens, and it asks for a fresh sign-in first. Unset: left as the database has it (off in a
   * new one).
   */
  consoleWebhook?: boolean;
}

/**
 * The store over a migrated database, with the answer write key and the webhook switch set as `options` says.
 * `afterClose` runs once the database is closed (the embedded store tightens its files' modes then).
 */
export async function withAnswerWriteKey<D extends SqlDb>(
  db: D,
  migrations: MigrationResult,
  options: StoreKeyOptions,
  afterClose?: () => void,
): Promise<OpenStore<D>> {
  if (options.consoleWebhook !== undefined)
    await db.query('update kb_settings set webhook_console = $1 where id', [options.consoleWebhook]);
  if (options.answerWriteKey === null) return new SqlStore(db, migrations, null, afterClose);
  const answerWriteKey = options.answerWriteKey ?? newAnswerWriteKey();
  // As the database owner, as the service role does it on Supabase (`npm run console -- answer-key`).
  await db.query('select kb_set_answer_write_key($1)', [await answerWriteKeyHash(answerWriteKey)]);
  return new SqlStore(db, migrations, answerWriteKey, afterClose);
}

export class SqlStore<D extends SqlDb> implements OpenStore<D> {
  constructor(
    readonly db: D,
    readonly migrations: MigrationResult,
    private readonly answerWriteKey: string | null,
    private readonly afterClose?: () => void,
  ) {}

  async close(): Promise<void> {
    await this.db.close();
    this.afterClose?.();
  }

  async kbStats(): Promise<KbStats> {
    return toKbStats((await this.rows(null, 'kb_stats', {}))[0]!);
  }

  async hasDocuments(): Promise<boolean> {
    return this.value(null, 'kb_has_documents', {});
  }

  async assistantsState(): Promise<AssistantsState> {
    const row = (await this.rows(null, 'kb_assistants_state', {}))[0]!;
    return { enabled: row.enabled !== false, version: String(row.version) };
  }

  async assistantPages(withText: boolean): Promise<AssistantPage[]> {
    return (await this.rows(null, 'kb_assistant_pages', { p_with_text: withText })) as AssistantPage[];
  }

  async setAssistants(claims: JwtClaims, enabled: boolean | null): Promise<boolean> {
    return (await this.value(claims, 'admin_set_assistants', { p_enabled: enabled })) === true;
  }

  async matchChunks(claims: JwtClaims, embedding: number[], threshold: number, count: number): Promise<ChunkMatch[]> {
    return this.rows(claims, 'match_chunks', { query_embedding: embedding, threshold, match_count: count });
  }

  async searchChunks(claims: JwtClaims, params: SearchChunksParams): Promise<SearchChunkRow[]> {
    return this.rows(claims, 'search_chunks', {
      query_embedding: params.embedding,
      query_text: params.text,
      match_count: params.count,
      search_mode: params.mode,
      filters: params.filters,
      candidate_count: params.candidates ?? 50,
    });
  }

  async beginTurn(claims: JwtClaims, turn: BeginTurn): Promise<TurnState> {
    const rows = await this.rows(claims, 'chat_begin_turn', {
      p_session_id: turn.session_id ?? null,
      p_message_id: turn.message_id,
      p_content: turn.content,
      p_title: turn.title,
    });
    return toTurnState(rows[0]!);
  }

  async finishTurn(claims: JwtClaims, turn: FinishTurn): Promise<string> {
    return this.value(claims, 'chat_finish_turn', {
      p_session_id: turn.session_id,
      p_reply_to: turn.reply_to,
      p_content: turn.content,
      p_citations: turn.citations,
      p_meta: turn.meta,
      p_write_key: this.answerWriteKey,
    });
  }

  async rateLimitHit(claims: JwtClaims, bucket: string, limit: number, windowSeconds: number): Promise<RateLimitState> {
    const rows = await this.rows(claims, 'rate_limit_hit', {
      p_bucket: bucket,
      p_limit: limit,
      p_window_seconds: windowSeconds,
    });
    return toRateLimit(rows[0]!);
  }

  async listSessions(claims: JwtClaims, limit: number): Promise<SessionRow[]> {
    return (await this.rows(claims, 'list_chat_sessions', { p_limit: limit })).map(toSession);
  }

  async getSession(claims: JwtClaims, sessionId: string): Promise<SessionRow | null> {
    const row = (await this.rows(claims, 'get_chat_session', { p_session_id: sessionId }))[0];
    return row ? toSession(row) : null;
  }

  async getMessages(claims: JwtClaims, sessionId: string): Promise<MessageRow[]> {
    return (await this.rows(claims, 'get_chat_messages', { p_session_id: sessionId })).map(toMessage);
  }

  async recentMessages(claims: JwtClaims, sessionId: string, limit: number): Promise<MessageRow[]> {
    return (await this.rows(claims, 'get_recent_chat_messages', { p_session_id: sessionId, p_limit: limit })).map(
      toMessage,
    );
  }

  async setFeedback(
    claims: JwtClaims,
    feedback: Pick<FeedbackRow, 'message_id' | 'rating' | 'comment'>,
  ): Promise<FeedbackRow> {
    const rows = await this.rows(claims, 'chat_set_feedback', {
      p_message_id: feedback.message_id,
      p_rating: feedback.rating,
      p_comment: feedback.comment,
    });
    return toFeedback(rows[0]!);
  }

  async getFeedback(claims: JwtClaims, sessionId: string): Promise<Pick<FeedbackRow, 'message_id' | 'rating'>[]> {
    return (await this.rows(claims, 'get_chat_feedback', { p_session_id: sessionId })).map(toFeedbackRating);
  }

  async getChunk(claims: JwtClaims, chunkId: string): Promise<ChunkMatch | null> {
    const row = (await this.rows(claims, 'get_chunk', { p_chunk_id: chunkId }))[0];
    return row ? toOpenedChunk(row) : null;
  }

  async recordContentGap(claims: JwtClaims, question: string, reason: string, messageId: string): Promise<void> {
    await this.value(claims, 'record_content_gap', {
      p_question: question,
      p_reason: reason,
      p_message_id: messageId,
      p_write_key: this.answerWriteKey,
    });
  }

  async listContentGaps(claims: JwtClaims, limit: number): Promise<ContentGap[]> {
    return (await this.rows(claims, 'list_content_gaps', { p_limit: limit })).map(toContentGap);
  }

  async saveGenerated(claims: JwtClaims, messageId: string, generated: Generated): Promise<Generated> {
    const saved = await this.value(claims, 'chat_save_generated', {
      p_message_id: messageId,
      p_text: generated.text,
      p_model: generated.model,
      p_write_key: this.answerWriteKey,
    });
    return { text: saved.text, model: saved.model };
  }

  async getSettings(): Promise<StoredSettings> {
    return storedSettings((await this.rows(null, 'kb_get_settings', {}))[0]!);
  }

  async setSettings(claims: JwtClaims, patch: SettingsPatch): Promise<StoredSettings> {
    return storedSettings((await this.rows(claims, 'kb_set_settings', { p_patch: patch }))[0]!);
  }

  async adminWhoami(claims: JwtClaims): Promise<{ user_id: string }> {
    const rows = await this.rows(claims, 'admin_whoami', {});
    return { user_id: rows[0]!.user_id };
  }

  async adminListGaps(claims: JwtClaims, q: { status: string; limit: number; offset: number }) {
    const rows = await this.rows(claims, 'admin_list_gaps', {
      p_status: q.status,
      p_limit: q.limit,
      p_offset: q.offset,
    });
    return toPage(rows, q.limit, q.offset, toAdminGap);
  }

  async adminSetGapDone(claims: JwtClaims, questionKey: string, done: boolean): Promise<boolean> {
    return this.value(claims, 'admin_set_gap_done', { p_question_key: questionKey, p_done: done });
  }

  async adminGetThread(claims: JwtClaims, sessionId: string) {
    return toAdminThread(await this.rows(claims, 'admin_get_thread', { p_session_id: sessionId }));
  }

  async adminListConversations(claims: JwtClaims, q: ConversationsQuery) {
    const rows = await this.rows(claims, 'admin_list_conversations', {
      p_rating: q.rating,
      p_outcome: q.outcome,
      p_from: q.from ?? null,
      p_to: q.to ?? null,
      p_limit: q.limit,
      p_offset: q.offset,
    });
    return toPage(rows, q.limit, q.offset, toAdminConversation);
  }

  async adminListDocuments(claims: JwtClaims, q: { q: string; limit: number; offset: number }) {
    const rows = await this.rows(claims, 'admin_list_documents', {
      p_query: q.q,
      p_limit: q.limit,
      p_offset: q.offset,
    });
    return toPage(rows, q.limit, q.offset, toAdminDocument);
  }

  async adminSetDocumentEnabled(claims: JwtClaims, id: string, enabled: boolean): Promise<boolean> {
    return this.value(claims, 'admin_set_document_enabled', { p_id: id, p_enabled: enabled });
  }

  async adminDeleteDocument(claims: JwtClaims, id: string): Promise<boolean> {
    return this.value(claims, 'admin_delete_document', { p_id: id });
  }

  async adminOverview(claims: JwtClaims, from: string, to: string): Promise<Overview> {
    return toOverview(await this.value(claims, 'admin_overview', { p_from: from, p_to: to }));
  }

  async adminExportConversations(claims: JwtClaims, q: ExportPageQuery): Promise<ExportRow[]> {
    return this.rows(claims, 'admin_export_conversations', exportArgs(q));
  }

  async adminExportGaps(claims: JwtClaims, q: ExportPageQuery): Promise<ExportRow[]> {
    return this.rows(claims, 'admin_export_gaps', exportArgs(q));
  }

  async adminExportFeedback(claims: JwtClaims, q: ExportPageQuery): Promise<ExportRow[]> {
    return this.rows(claims, 'admin_export_feedback', exportArgs(q));
  }

  async adminGetWebhook(claims: JwtClaims): Promise<WebhookState> {
    return toWebhookState((await this.rows(claims, 'admin_get_webhook', {}))[0]);
  }

  async webhookTarget(): Promise<{ url: string | null; secret: string | null }> {
    return (await this.rows(null, 'kb_webhook_target', {}))[0] ?? { url: null, secret: null };
  }

  async claimWebhookEvent(eventId: string): Promise<boolean> {
    return (await this.value(null, 'kb_claim_webhook_event', { p_event_id: eventId })) === true;
  }

  async consumeAdminLink(jti: string): Promise<string | null> {
    return this.run((db) =>
      db.transaction(async (tx) => {
        // Servers sharing one database: two first links exchanged at once must not each create an admin
        // user. The lock is this transaction's, released at its end.
        await tx.query("select pg_advisory_xact_lock(hashtext('kb-chat:admin-link'))");
        const known = await tx.query<{ user_id: string }>(
          'select user_id from auth.admin_link_uses order by used_at limit 1',
        );
        const userId =
          known.rows[0]?.user_id ??
          (await tx.query<{ id: string }>('insert into auth.users (is_anonymous) values (false) returning id')).rows[0]!
            .id;
        const used = await tx.query<{ user_id: string }>(
          'insert into auth.admin_link_uses (jti, user_id) values ($1, $2) on conflict (jti) do nothing returning user_id',
          [jti, userId],
        );
        return used.rows[0]?.user_id ?? null;
      }),
    );
  }

  /**
   * Takes the database-wide lock `name` (the ingestion slot, the scheduled sync) when the database is
   * shared by several servers; on the embedded database, which has one process, it is always free.
   */
  async tryDatabaseLock(name: string): Promise<Unlock | null> {
    const locks = (this.db as Partial<SqlLocks>).tryLock;
    if (!locks) return async () => {};
    return this.run(() => locks.call(this.db, name));
  }

  /** Whether a scheduled sync started within the last `seconds` (by any server on this database). */
  async scheduledSyncSince(seconds: number): Promise<boolean> {
    const { rows } = await this.run((db) =>
      db.query<{ ran: boolean }>(
        "select exists (select 1 from kb_sync_runs where trigger = 'schedule' and started_at > now() - make_interval(secs => $1)) as ran",
        [seconds],
      ),
    );
    return rows[0]?.ran === true;
  }

  async createAnonymousUser(): Promise<string> {
    const { rows } = await this.run((q) =>
      q.query<{ id: string }>('insert into auth.users (is_anonymous) values (true) returning id'),
    );
    return rows[0]!.id;
  }

  async createRefreshToken(userId: string, ttlSeconds: number, lifetimeSeconds: number): Promise<string> {
    const token = randomToken();
    await this.run((db) =>
      db.transaction(async (tx) => {
        await tx.query(
          `insert into auth.refresh_tokens (token_hash, user_id, family_id, family_expires_at, expires_at)
           select $1, $2, gen_random_uuid(), e, least(now() + make_interval(secs => $3), e)
           from (select now() + make_interval(secs => $4) as e) as family`,
          [sha256(token), userId, ttlSeconds, lifetimeSeconds],
        );
        await pruneRefreshTokens(tx);
      }),
    );
    return token;
  }

  async rotateRefreshToken(
    token: string,
    ttlSeconds: number,
  ): Promise<{ userId: string; refreshToken: string } | null> {
    const hash = sha256(token);
    return this.run((db) =>
      db.transaction(async (tx) => {
        // One statement uses it up: two requests racing with the same token cannot both use it.
        const used = await tx.query<{ user_id: string; family_id: string; family_expires_at: Date }>(
          `update auth.refresh_tokens set used_at = now()
           where token_hash = $1 and used_at is null and expires_at > now() and family_expires_at > now()
           returning user_id, family_id, family_expires_at`,
          [hash],
        );
        const family = used.rows[0];
        if (!family) {
          // Used before: whoever presents it now, someone else holds its successor. End the family for both.
          await tx.query(
            'delete from auth.refresh_tokens where family_id = (select family_id from auth.refresh_tokens where token_hash = $1 and used_at is not null)',
            [hash],
          );
          return null;
        }
        const next = randomToken();
        await tx.query(
          `insert into auth.refresh_tokens (token_hash, user_id, family_id, family_expires_at, expires_at)
           values ($1, $2, $3, $4, least(now() + make_interval(secs => $5), $4))`,
          [sha256(next), family.user_id, family.family_id, family.family_expires_at, ttlSeconds],
        );
        await pruneRefreshTokens(tx);
        return { userId: family.user_id, refreshToken: next };
      }),
    );
  }

  async documentState(source: string, model: string): Promise<DocumentState | null> {
    const row = (await this.rows(null, 'document_state', { p_source: source, p_model: model }))[0];
    return row ? toDocumentState(row) : null;
  }

  async ingestDocument(doc: IngestDocument): Promise<string> {
    return this.value(null, 'ingest_document', {
      p_source: doc.source,
      p_name: doc.name,
      p_meta: doc.meta,
      p_checksum: doc.checksum,
      p_model: doc.model,
      p_chunks: doc.chunks,
    });
  }

  async listDocuments(): Promise<DocumentInfo[]> {
    return (await this.rows(null, 'kb_list_documents', {})).map(toDocumentInfo);
  }

  async setDocumentEnabled(id: string, enabled: boolean): Promise<boolean> {
    return this.value(null, 'kb_set_document_enabled', { p_id: id, p_enabled: enabled });
  }

  async deleteDocument(id: string): Promise<boolean> {
    return this.value(null, 'kb_delete_document', { p_id: id });
  }

  async pruneDocuments(prefix: string, keep: string[], dryRun: boolean): Promise<{ id: string; source: string }[]> {
    return this.rows(null, 'kb_prune_documents', { p_prefix: prefix, p_keep: keep, p_dry_run: dryRun });
  }

  async staleDocuments(model: string): Promise<{ id: string; source: string; name: string; stale: number }[]> {
    return (await this.rows(null, 'kb_stale_documents', { p_model: model })).map(toStaleDocument);
  }

  async documentChunks(documentId: string): Promise<StoredChunk[]> {
    return (await this.rows(null, 'kb_document_chunks', { p_document_id: documentId })).map(toStoredChunk);
  }

  async setEmbeddings(model: string, rows: { chunk_id: string; embedding: number[] }[]): Promise<number> {
    return this.value(null, 'kb_set_embeddings', { p_model: model, p_embeddings: rows });
  }

  async deferEmbeddingIndex(): Promise<boolean> {
    return this.value(null, 'kb_defer_embedding_index', {});
  }

  async restoreIndexes(): Promise<number> {
    return this.value(null, 'kb_restore_indexes', {});
  }

  async optimize(): Promise<void> {
    await this.value(null, 'kb_optimize', {});
    // The statistics rows are updated once per document: vacuum them, since nothing else will here (no
    // autovacuum in the embedded database) and a search reads them on every question. VACUUM cannot run
    // inside a function, hence here rather than in kb_optimize.
    await this.run((db) => db.exec('vacuum kb_corpus_stats, kb_lexemes'));
  }

  async httpCache(prefix: string): Promise<{ source: string; http_cache: HttpCache }[]> {
    return this.rows(null, 'kb_http_cache', { p_prefix: prefix });
  }

  async setHttpCache(source: string, cache: HttpCache | null): Promise<boolean> {
    return (await this.value(null, 'kb_set_http_cache', { p_source: source, p_http_cache: cache })) === true;
  }

  async startSyncRun(source: string, trigger: SyncTrigger): Promise<string> {
    return this.value(null, 'kb_sync_run_start', { p_source: source, p_trigger: trigger });
  }

  async finishSyncRun(id: string, counts: SyncCounts, errors: { source: string; error: string }[]): Promise<void> {
    await this.value(null, 'kb_sync_run_finish', { p_id: id, p_counts: counts, p_errors: errors });
  }

  async adminSyncStatus(claims: JwtClaims): Promise<SyncStatus[]> {
    return (await this.rows(claims, 'admin_sync_status', {})).map(toSyncStatus);
  }

  /**
   * One SQL function's rows (server/store/functions.ts): as the visitor when `claims` are given, else as
   * the database owner (the service role's place on Supabase).
   */
  private async rows<F extends CalledName>(claims: JwtClaims | null, fn: F, args: SqlArgs<F>): Promise<DbRow[]> {
    const { sql, params } = positionalCall(fn, args);
    const query = (q: SqlQueryable) => q.query<DbRow>(sql, params);
    return (await (claims ? this.asVisitor(claims, query) : this.run(query))).rows;
  }

  /** One SQL function's single value (or nothing, for a `void` one), as `rows` runs it. */
  private async value<F extends CalledName>(claims: JwtClaims | null, fn: F, args: SqlArgs<F>): Promise<DbRow> {
    return (await this.rows(claims, fn, args))[0]!.v;
  }

  /** Runs as the visitor: one transaction, claims set, role `authenticated` — what PostgREST does. */
  private asVisitor<T>(claims: JwtClaims, fn: (tx: SqlQueryable) => Promise<T>): Promise<T> {
    const json = JSON.stringify(claims);
    return this.run((db) =>
      db.visitorTransaction
        ? db.visitorTransaction(json, fn)
        : db.transaction(async (tx) => {
            await tx.query(VISITOR_SETTINGS, [json]);
            return fn(tx);
          }),
    );
  }

  /** Maps Postgres errors to the StoreError kinds the API understands (sqlstate.ts). */
  private async run<T>(fn: (db: D) => Promise<T>): Promise<T> {
    try {
      return await fn(this.db);
    } catch (error) {
      throw toStoreError(error);
    }
  }
}

/**
 * What a visitor's transaction starts with: the claims (`$1`, JSON) and the role, both local to it — one
 * statement for both, as PostgREST does it (set_config('role') is `set local role`).
 */
export const VISITOR_SETTINGS =
  "select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)";

/** At most this many ended refresh-token rows are deleted per token issued: more than one is added. */
export const REFRESH_PRUNE_BATCH = 100;

/**
 * Deletes ended rows, a bounded batch: families past their absolute end, and unused tokens past their own
 * expiry. A used token stays until its family ends, so presenting it again is recognised as reuse.
 */
async function pruneRefreshTokens(tx: SqlQueryable): Promise<void> {
  await tx.query(
    `delete from auth.refresh_tokens where token_hash in (
       select token_hash from auth.refresh_tokens
       where family_expires_at <= now() or (used_at is null and expires_at <= now())
       limit $1)`,
    [REFRESH_PRUNE_BATCH],
  );
}

/** 32 random bytes, base64url: what a refresh token is. */
function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Refresh tokens are stored hashed: a copy of the database does not hold usable tokens. */
function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * A row as the driver returns it. Each method gives it its type: through a mapping of rows.ts, or by its
 * declared return type where the row is already the API's shape.
 */
// biome-ignore lint/suspicious/noExplicitAny: rows of 70 functions, each typed by its caller (a mapping or the declared return type)
type DbRow = any;

/** The export functions' arguments: one keyset page. */
function exportArgs(q: ExportPageQuery) {
  return { p_from: q.from, p_to: q.to, p_after: q.after, p_limit: q.limit };
}
