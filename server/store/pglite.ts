/**
 * The embedded store: PGlite + pgvector, with the same migrations, SQL functions and row-level security as
 * Supabase. Visitor calls run the way PostgREST runs them: inside one transaction, `request.jwt.claims` set
 * and `set local role authenticated`, so the policies are enforced by Postgres itself.
 */
import { createHash, randomBytes } from 'node:crypto';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type { Overview } from '../../protocol/index.ts';
import { ANSWER_KEY_REFUSED, answerWriteKeyHash, newAnswerWriteKey } from './answer-key.ts';
import { migrate, type MigrationResult } from './migrate.ts';
import {
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
  type LocalAuthStore,
  type SearchChunkRow,
  type SearchChunksParams,
  type ContentGap,
  type FeedbackRow,
  type ConversationsQuery,
  type ExportPageQuery,
  type ExportRow,
  type SettingsPatch,
  type StoredSettings,
  type MessageRow,
  type RateLimitState,
  type SessionRow,
  type StoredChunk,
  type TurnState,
  type HttpCache,
  type SyncCounts,
  type SyncStatus,
  type SyncTrigger,
} from './types.ts';
import { iso, storedSettings, toAdminConversation, toAdminDocument, toAdminGap, toAdminThread, toOverview, toPage, toSyncStatus, toTurnState, type TurnRow } from './rows.ts';

export interface PgliteStore extends ChatStore, LocalAuthStore, IngestStore {
  readonly db: PGlite;
  readonly migrations: MigrationResult;
  close(): Promise<void>;
}

export interface PgliteStoreOptions {
  /**
   * The key this store writes answers with (server/store/answer-key.ts). Its hash is stored at open, so the
   * database accepts this store's answers and no one else's: the embedded database has one process at a
   * time, and whoever opened it last holds the key. `npm start` passes the one kept in KB_DATA_DIR (or
   * KB_ANSWER_WRITE_KEY); without one, a random key for this open. `null`: leave the database's key alone,
   * for a store that writes no answers (the ingestion CLI), whose answer writes are then refused.
   */
  answerWriteKey?: string | null;
}

/**
 * Opens (creating when needed) the database in `dataDir`, or in memory when `dataDir` is null, applies
 * pending migrations and sets the answer write key.
 */
export async function openPgliteStore(dataDir: string | null, options: PgliteStoreOptions = {}): Promise<PgliteStore> {
  const db = await PGlite.create(dataDir ?? undefined, { extensions: { vector } });
  // Supabase puts `extensions` on every role's search_path; do the same for this (single) connection.
  await db.exec('set search_path = public, extensions');
  const migrations = await migrate(db);
  if (options.answerWriteKey === null) return new Store(db, migrations, null);
  const answerWriteKey = options.answerWriteKey ?? newAnswerWriteKey();
  // As the database owner, as the service role does it on Supabase (`npm run console -- answer-key`).
  await db.query('select kb_set_answer_write_key($1)', [await answerWriteKeyHash(answerWriteKey)]);
  return new Store(db, migrations, answerWriteKey);
}

class Store implements PgliteStore {
  constructor(
    readonly db: PGlite,
    readonly migrations: MigrationResult,
    private readonly answerWriteKey: string | null,
  ) {}

  async close(): Promise<void> {
    await this.db.close();
  }

  async kbStats(): Promise<KbStats> {
    const { rows } = await this.run((q) => q.query<Record<keyof KbStats, string>>('select * from kb_stats()'));
    const row = rows[0]!;
    return {
      documents: Number(row.documents),
      ready_documents: Number(row.ready_documents),
      chunks: Number(row.chunks),
      embeddings: Number(row.embeddings),
    };
  }

  async hasDocuments(): Promise<boolean> {
    return this.scalar<boolean>('select kb_has_documents() as v');
  }

  async matchChunks(claims: JwtClaims, embedding: number[], threshold: number, count: number): Promise<ChunkMatch[]> {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<ChunkMatch>('select * from match_chunks($1::vector, $2, $3)', [
        JSON.stringify(embedding),
        threshold,
        count,
      ]),
    );
    return rows;
  }

  async searchChunks(claims: JwtClaims, params: SearchChunksParams): Promise<SearchChunkRow[]> {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<SearchChunkRow>('select * from search_chunks($1::vector, $2, $3, $4, $5, $6)', [
        params.embedding ? JSON.stringify(params.embedding) : null,
        params.text,
        params.count,
        params.mode,
        JSON.stringify(params.filters),
        params.candidates ?? 50,
      ]),
    );
    return rows;
  }

  async beginTurn(claims: JwtClaims, turn: BeginTurn): Promise<TurnState> {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<TurnRow>('select * from chat_begin_turn($1, $2, $3, $4)', [
        turn.session_id ?? null,
        turn.message_id,
        turn.content,
        turn.title,
      ]),
    );
    return toTurnState(rows[0]!);
  }

  async finishTurn(claims: JwtClaims, turn: FinishTurn): Promise<string> {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<{ id: string }>('select chat_finish_turn($1, $2, $3, $4, $5, $6) as id', [
        turn.session_id,
        turn.reply_to,
        turn.content,
        turn.citations === null ? null : JSON.stringify(turn.citations),
        JSON.stringify(turn.meta),
        this.answerWriteKey,
      ]),
    );
    return rows[0]!.id;
  }

  async rateLimitHit(claims: JwtClaims, bucket: string, limit: number, windowSeconds: number): Promise<RateLimitState> {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<{ allowed: boolean; remaining: number; reset_at: Date }>('select * from rate_limit_hit($1, $2, $3)', [
        bucket,
        limit,
        windowSeconds,
      ]),
    );
    const row = rows[0]!;
    return { allowed: row.allowed, remaining: row.remaining, reset_at: new Date(row.reset_at) };
  }

  async listSessions(claims: JwtClaims, limit: number): Promise<SessionRow[]> {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<SessionRow>(
        'select id, title, created_at, updated_at from list_chat_sessions($1)',
        [limit],
      ),
    );
    return rows.map((r) => ({ ...r, created_at: iso(r.created_at), updated_at: iso(r.updated_at) }));
  }

  async getSession(claims: JwtClaims, sessionId: string): Promise<SessionRow | null> {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<SessionRow>('select id, title, created_at, updated_at from get_chat_session($1)', [sessionId]),
    );
    const row = rows[0];
    return row ? { ...row, created_at: iso(row.created_at), updated_at: iso(row.updated_at) } : null;
  }

  async getMessages(claims: JwtClaims, sessionId: string): Promise<MessageRow[]> {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<MessageRow>('select id, role, content, citations, meta, created_at from get_chat_messages($1)', [sessionId]),
    );
    return rows.map((r) => ({ ...r, created_at: iso(r.created_at) }));
  }

  async recentMessages(claims: JwtClaims, sessionId: string, limit: number): Promise<MessageRow[]> {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<MessageRow>('select id, role, content, citations, meta, created_at from get_recent_chat_messages($1, $2)', [sessionId, limit]),
    );
    return rows.map((r) => ({ ...r, created_at: iso(r.created_at) }));
  }

  async setFeedback(claims: JwtClaims, feedback: Pick<FeedbackRow, 'message_id' | 'rating' | 'comment'>): Promise<FeedbackRow> {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<FeedbackRow>('select * from chat_set_feedback($1, $2, $3)', [feedback.message_id, feedback.rating, feedback.comment]),
    );
    const row = rows[0]!;
    return { ...row, updated_at: iso(row.updated_at) };
  }

  async getFeedback(claims: JwtClaims, sessionId: string): Promise<Pick<FeedbackRow, 'message_id' | 'rating'>[]> {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<Pick<FeedbackRow, 'message_id' | 'rating'>>('select message_id, rating from get_chat_feedback($1)', [sessionId]),
    );
    return rows;
  }

  async getChunk(claims: JwtClaims, chunkId: string): Promise<ChunkMatch | null> {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<Omit<ChunkMatch, 'similarity'>>('select * from get_chunk($1)', [chunkId]),
    );
    return rows[0] ? { ...rows[0], similarity: 1 } : null;
  }

  async recordContentGap(claims: JwtClaims, question: string, reason: string, messageId: string): Promise<void> {
    await this.asVisitor(claims, (tx) => tx.query('select record_content_gap($1, $2, $3, $4)', [question, reason, messageId, this.answerWriteKey]));
  }

  async listContentGaps(claims: JwtClaims, limit: number): Promise<ContentGap[]> {
    const { rows } = await this.asVisitor(claims, (tx) => tx.query<ContentGap>('select * from list_content_gaps($1)', [limit]));
    return rows.map((r) => ({ ...r, first_asked_at: iso(r.first_asked_at), last_asked_at: iso(r.last_asked_at) }));
  }

  async saveGenerated(claims: JwtClaims, messageId: string, generated: Generated): Promise<Generated> {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<{ generated: Generated }>('select chat_save_generated($1, $2, $3, $4) as generated', [
        messageId,
        generated.text,
        generated.model,
        this.answerWriteKey,
      ]),
    );
    return { text: rows[0]!.generated.text, model: rows[0]!.generated.model };
  }

  async getSettings(): Promise<StoredSettings> {
    const { rows } = await this.run((q) => q.query<StoredSettings & { updated_at: Date }>('select * from kb_get_settings()'));
    return storedSettings(rows[0]!);
  }

  async setSettings(claims: JwtClaims, patch: SettingsPatch): Promise<StoredSettings> {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<StoredSettings & { updated_at: Date }>('select * from kb_set_settings($1::jsonb)', [JSON.stringify(patch)]),
    );
    return storedSettings(rows[0]!);
  }

  async adminWhoami(claims: JwtClaims): Promise<{ user_id: string }> {
    const { rows } = await this.asVisitor(claims, (tx) => tx.query<{ user_id: string }>('select * from admin_whoami()'));
    return { user_id: rows[0]!.user_id };
  }

  async adminListGaps(claims: JwtClaims, q: { status: string; limit: number; offset: number }) {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<Record<string, unknown> & { total: number }>('select * from admin_list_gaps($1, $2, $3)', [q.status, q.limit, q.offset]),
    );
    return toPage(rows, q.limit, q.offset, toAdminGap);
  }

  async adminSetGapDone(claims: JwtClaims, questionKey: string, done: boolean): Promise<boolean> {
    const { rows } = await this.asVisitor(claims, (tx) => tx.query<{ v: boolean }>('select admin_set_gap_done($1, $2) as v', [questionKey, done]));
    return rows[0]!.v;
  }

  async adminGetThread(claims: JwtClaims, sessionId: string) {
    const { rows } = await this.asVisitor(claims, (tx) => tx.query<Record<string, unknown>>('select * from admin_get_thread($1)', [sessionId]));
    return toAdminThread(rows);
  }

  async adminListConversations(claims: JwtClaims, q: ConversationsQuery) {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<Record<string, unknown> & { total: number }>('select * from admin_list_conversations($1, $2, $3, $4, $5, $6)', [
        q.rating, q.outcome, q.from ?? null, q.to ?? null, q.limit, q.offset,
      ]),
    );
    return toPage(rows, q.limit, q.offset, toAdminConversation);
  }

  async adminListDocuments(claims: JwtClaims, q: { q: string; limit: number; offset: number }) {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<Record<string, unknown> & { total: number }>('select * from admin_list_documents($1, $2, $3)', [q.q, q.limit, q.offset]),
    );
    return toPage(rows, q.limit, q.offset, toAdminDocument);
  }

  async adminSetDocumentEnabled(claims: JwtClaims, id: string, enabled: boolean): Promise<boolean> {
    const { rows } = await this.asVisitor(claims, (tx) => tx.query<{ v: boolean }>('select admin_set_document_enabled($1, $2) as v', [id, enabled]));
    return rows[0]!.v;
  }

  async adminDeleteDocument(claims: JwtClaims, id: string): Promise<boolean> {
    const { rows } = await this.asVisitor(claims, (tx) => tx.query<{ v: boolean }>('select admin_delete_document($1) as v', [id]));
    return rows[0]!.v;
  }

  async adminOverview(claims: JwtClaims, from: string, to: string): Promise<Overview> {
    const { rows } = await this.asVisitor(claims, (tx) => tx.query<{ v: unknown }>('select admin_overview($1, $2) as v', [from, to]));
    return toOverview(rows[0]!.v);
  }

  async adminExportConversations(claims: JwtClaims, q: ExportPageQuery): Promise<ExportRow[]> {
    return this.exportPage(claims, 'select * from admin_export_conversations($1, $2, $3, $4)', q);
  }

  async adminExportGaps(claims: JwtClaims, q: ExportPageQuery): Promise<ExportRow[]> {
    return this.exportPage(claims, 'select * from admin_export_gaps($1, $2, $3, $4)', q);
  }

  async adminExportFeedback(claims: JwtClaims, q: ExportPageQuery): Promise<ExportRow[]> {
    return this.exportPage(claims, 'select * from admin_export_feedback($1, $2, $3, $4)', q);
  }

  private async exportPage(claims: JwtClaims, sql: string, q: ExportPageQuery): Promise<ExportRow[]> {
    const { rows } = await this.asVisitor(claims, (tx) => tx.query<ExportRow>(sql, [q.from, q.to, q.after, q.limit]));
    return rows;
  }

  async adminGetWebhook(claims: JwtClaims): Promise<{ url: string | null; secret_set: boolean }> {
    const { rows } = await this.asVisitor(claims, (tx) => tx.query<{ url: string | null; secret_set: boolean }>('select * from admin_get_webhook()'));
    return rows[0] ?? { url: null, secret_set: false };
  }

  async webhookTarget(): Promise<{ url: string | null; secret: string | null }> {
    const { rows } = await this.run((q) => q.query<{ url: string | null; secret: string | null }>('select * from kb_webhook_target()'));
    return rows[0] ?? { url: null, secret: null };
  }

  async consumeAdminLink(jti: string): Promise<string | null> {
    return this.run((db) =>
      db.transaction(async (tx) => {
        const known = await tx.query<{ user_id: string }>('select user_id from auth.admin_link_uses order by used_at limit 1');
        const userId =
          known.rows[0]?.user_id ??
          (await tx.query<{ id: string }>('insert into auth.users (is_anonymous) values (false) returning id')).rows[0]!.id;
        const used = await tx.query<{ user_id: string }>(
          'insert into auth.admin_link_uses (jti, user_id) values ($1, $2) on conflict (jti) do nothing returning user_id',
          [jti, userId],
        );
        return used.rows[0]?.user_id ?? null;
      }),
    );
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

  async rotateRefreshToken(token: string, ttlSeconds: number): Promise<{ userId: string; refreshToken: string } | null> {
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
    const { rows } = await this.run((q) =>
      q.query<DocumentState & { stale_embeddings: string }>('select * from document_state($1, $2)', [source, model]),
    );
    const row = rows[0];
    return row ? { ...row, stale_embeddings: Number(row.stale_embeddings) } : null;
  }

  async ingestDocument(doc: IngestDocument): Promise<string> {
    const { rows } = await this.run((q) =>
      q.query<{ id: string }>('select ingest_document($1, $2, $3, $4, $5, $6) as id', [
        doc.source,
        doc.name,
        JSON.stringify(doc.meta),
        doc.checksum,
        doc.model,
        JSON.stringify(doc.chunks),
      ]),
    );
    return rows[0]!.id;
  }

  async listDocuments(): Promise<DocumentInfo[]> {
    const { rows } = await this.run((q) =>
      q.query<Omit<DocumentInfo, 'chunks' | 'updated_at'> & { chunks: string; updated_at: Date }>(
        'select * from kb_list_documents()',
      ),
    );
    return rows.map((r) => ({ ...r, chunks: Number(r.chunks), updated_at: new Date(r.updated_at).toISOString() }));
  }

  async setDocumentEnabled(id: string, enabled: boolean): Promise<boolean> {
    return this.scalar<boolean>('select kb_set_document_enabled($1, $2) as v', [id, enabled]);
  }

  async deleteDocument(id: string): Promise<boolean> {
    return this.scalar<boolean>('select kb_delete_document($1) as v', [id]);
  }

  async pruneDocuments(prefix: string, keep: string[], dryRun: boolean): Promise<{ id: string; source: string }[]> {
    const { rows } = await this.run((q) =>
      q.query<{ id: string; source: string }>('select * from kb_prune_documents($1, $2, $3)', [prefix, keep, dryRun]),
    );
    return rows;
  }

  async staleDocuments(model: string): Promise<{ id: string; source: string; name: string; stale: number }[]> {
    const { rows } = await this.run((q) =>
      q.query<{ id: string; source: string; name: string; stale: string }>('select * from kb_stale_documents($1)', [model]),
    );
    return rows.map((r) => ({ ...r, stale: Number(r.stale) }));
  }

  async documentChunks(documentId: string): Promise<StoredChunk[]> {
    const { rows } = await this.run((q) =>
      q.query<{ chunk_id: string; chunk_position: number; content: string; meta: StoredChunk['meta'] }>(
        'select * from kb_document_chunks($1)',
        [documentId],
      ),
    );
    return rows.map(({ chunk_position, ...r }) => ({ ...r, position: chunk_position }));
  }

  async setEmbeddings(model: string, rows: { chunk_id: string; embedding: number[] }[]): Promise<number> {
    return this.scalar<number>('select kb_set_embeddings($1, $2) as v', [model, JSON.stringify(rows)]);
  }

  async deferEmbeddingIndex(): Promise<boolean> {
    return this.scalar<boolean>('select kb_defer_embedding_index() as v');
  }

  async restoreIndexes(): Promise<number> {
    return this.scalar<number>('select kb_restore_indexes() as v');
  }

  async optimize(): Promise<void> {
    await this.run(async (db) => {
      await db.query('select kb_optimize()');
      // The statistics rows are updated once per document: vacuum them, since nothing else will here (no
      // autovacuum in the embedded database) and a search reads them on every question. VACUUM cannot run
      // inside a function, hence here rather than in kb_optimize.
      await db.exec('vacuum kb_corpus_stats, kb_lexemes');
    });
  }

  async httpCache(prefix: string): Promise<{ source: string; http_cache: HttpCache }[]> {
    const { rows } = await this.run((q) => q.query<{ source: string; http_cache: HttpCache }>('select * from kb_http_cache($1)', [prefix]));
    return rows;
  }

  async setHttpCache(source: string, cache: HttpCache | null): Promise<boolean> {
    return (await this.scalar<boolean | null>('select kb_set_http_cache($1, $2) as v', [source, cache && JSON.stringify(cache)])) === true;
  }

  async startSyncRun(source: string, trigger: SyncTrigger): Promise<string> {
    return this.scalar<string>('select kb_sync_run_start($1, $2) as v', [source, trigger]);
  }

  async finishSyncRun(id: string, counts: SyncCounts, errors: { source: string; error: string }[]): Promise<void> {
    await this.run((q) => q.query('select kb_sync_run_finish($1, $2, $3)', [id, JSON.stringify(counts), JSON.stringify(errors)]));
  }

  async adminSyncStatus(claims: JwtClaims): Promise<SyncStatus[]> {
    const { rows } = await this.asVisitor(claims, (tx) => tx.query<Record<string, unknown>>('select * from admin_sync_status()'));
    return rows.map(toSyncStatus);
  }

  private async scalar<T>(sql: string, params: unknown[] = []): Promise<T> {
    const { rows } = await this.run((q) => q.query<{ v: T }>(sql, params));
    return rows[0]!.v;
  }

  /** Runs as the visitor: one transaction, claims set, role `authenticated` — what PostgREST does. */
  private asVisitor<T>(claims: JwtClaims, fn: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.run((db) =>
      db.transaction(async (tx) => {
        // One round trip for both, as PostgREST does it (set_config('role') is `set local role`).
        await tx.query("select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)", [
          JSON.stringify(claims),
        ]);
        return fn(tx);
      }),
    );
  }

  /** Maps Postgres errors to the StoreError kinds the API understands. */
  private async run<T>(fn: (db: PGlite) => Promise<T>): Promise<T> {
    try {
      return await fn(this.db);
    } catch (error) {
      throw toStoreError(error);
    }
  }
}

/** At most this many ended refresh-token rows are deleted per token issued: more than one is added. */
export const REFRESH_PRUNE_BATCH = 100;

/**
 * Deletes ended rows, a bounded batch: families past their absolute end, and unused tokens past their own
 * expiry. A used token stays until its family ends, so presenting it again is recognised as reuse.
 */
async function pruneRefreshTokens(tx: Transaction): Promise<void> {
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

function toStoreError(error: unknown): StoreError {
  const code = (error as { code?: string } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  // 23505 unique_violation; 42501 insufficient_privilege / row-level security; 23503 foreign key (e.g. a
  // token for a user that does not exist).
  if (code === '23505') return new StoreError('conflict', message, { cause: error });
  // The database refusing this store's own answer write key: a misconfiguration, not the visitor's doing.
  if (code === '42501' && ANSWER_KEY_REFUSED.test(message)) return new StoreError('unavailable', message, { cause: error });
  if (code === '42501' || code === '23503') return new StoreError('forbidden', message, { cause: error });
  if (code === '22023') return new StoreError('invalid', message, { cause: error });
  return new StoreError('unavailable', message, { cause: error });
}
