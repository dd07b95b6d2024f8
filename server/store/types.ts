// Long file: the Store interface, one documented method per SQL function, and the row types they return.
/**
 * The database contract as the API sees it. Every method is one SQL function of supabase/migrations, so
 * the embedded store (PGlite) and the Supabase store (supabase-js `rpc()`) differ only in transport.
 * Methods that take `claims` run as that visitor, exactly as PostgREST would: role `authenticated` and
 * `request.jwt.claims` set, so row-level security applies.
 */
import type {
  AdminConversation,
  AdminDocument,
  AdminGap,
  AdminThread,
  AnswerMode,
  Citation,
  ConversationsQuery,
  FeedbackRating,
  Generated,
  Overview,
  Page,
  SyncRun,
} from '../../protocol/index.ts';

export type { AnswerMode, ConversationsQuery, Generated };

/**
 * The bearer token the claims were verified from. A store that forwards the visitor to the database as
 * PostgREST expects (the Supabase store) sends this token unchanged; the embedded store only needs the
 * claims. A symbol, so it never becomes a claim: `JSON.stringify(claims)` and spreads skip it.
 */
export const ACCESS_TOKEN: unique symbol = Symbol('kb-chat.access-token');

/** The verified JWT payload of the visitor (Supabase's claims: sub, role, aud, exp, …). */
export interface JwtClaims {
  sub: string;
  role: string;
  aud?: string | string[];
  exp?: number;
  iat?: number;
  [claim: string]: unknown;
  [ACCESS_TOKEN]?: string;
}

export interface ChunkMeta {
  section?: string | null;
  heading_path?: string[];
  page?: number | null;
  anchor?: string | null;
  url?: string | null;
  [key: string]: unknown;
}

/** One row of `match_chunks`. */
export interface ChunkMatch {
  chunk_id: string;
  content: string;
  meta: ChunkMeta;
  document_id: string;
  document_title: string;
  document_url: string | null;
  similarity: number;
}

/**
 * Arguments of `search_chunks`: hybrid, vector or full-text retrieval. What it does now and who may call it:
 * docs/database.md#search_chunks; its current definition (several migrations redefined it): supabase/schema.sql.
 */
export interface SearchChunksParams {
  embedding: number[] | null;
  text: string | null;
  count: number;
  mode: 'hybrid' | 'vector' | 'lexical';
  /**
   * `{document_ids, source_types, tags, languages, date_from, date_to}`; absent keys do not filter. `context`
   * (a follow-up's earlier terms, documents and sections) widens and orders the search instead.
   */
  filters: Record<string, unknown>;
  /** Candidates taken from each list (vector, full text) before fusion. Default 50. */
  candidates?: number;
}

/** One row of `search_chunks`, best first. */
export interface SearchChunkRow {
  chunk_id: string;
  content: string;
  meta: ChunkMeta;
  document_id: string;
  document_title: string;
  document_url: string | null;
  document_meta: Record<string, unknown>;
  /** Cosine similarity to the question; null without an embedding. */
  cosine: number | null;
  /** BM25 of the full-text match; null when the chunk is not among the full-text candidates. */
  bm25: number | null;
  /** IDF-weighted share of the question's lexemes that the chunk contains (0…1); null without text. */
  coverage: number | null;
  vector_rank: number | null;
  lexical_rank: number | null;
  /** RRF (hybrid), cosine (vector) or BM25 (lexical). */
  score: number;
}

/** One row of `kb_stats`. */
export interface KbStats {
  documents: number;
  ready_documents: number;
  chunks: number;
  embeddings: number;
}

export interface BeginTurn {
  session_id?: string;
  message_id: string;
  content: string;
  /** Title for a session created by this turn (ignored when the session exists). */
  title: string;
}

export interface FinishTurn {
  session_id: string;
  reply_to: string;
  content: string;
  citations: Citation[] | null;
  meta: Record<string, unknown>;
}

/** What `chat_begin_turn` found: a new turn, or the earlier one with this message id (and its answer). */
export interface TurnState {
  session_id: string;
  /** The user message was stored by this call. */
  is_new: boolean;
  /** An earlier message with this id has the same content and session: a retry, not a reuse. */
  same_request: boolean;
  /** The stored answer to that message, when there is one. */
  answer: StoredAnswer | null;
}

export interface StoredAnswer {
  id: string;
  content: string;
  citations: Citation[] | null;
  meta: Record<string, unknown>;
}

export interface RateLimitState {
  allowed: boolean;
  remaining: number;
  /** When the current window ends. */
  reset_at: Date;
}

export interface SessionRow {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
}

export interface MessageRow {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  citations: Citation[] | null;
  meta: Record<string, unknown>;
  created_at: string;
}

export interface ContentGap {
  question: string;
  reason: string;
  asked: number;
  first_asked_at: string;
  last_asked_at: string;
}

/** One row of `chat_set_feedback`: the rating as stored now. */
export interface FeedbackRow {
  message_id: string;
  rating: FeedbackRating;
  comment: string | null;
  updated_at: string;
}

/**
 * The site-owner console's calls (the admin_* functions, docs/database.md), each as the caller:
 * admins only — the SQL functions refuse anyone else with a `forbidden` StoreError.
 */
export interface AdminStore {
  /** Raises `forbidden` unless the claims are an admin's (checked in SQL: `admin_whoami`). */
  adminWhoami(claims: JwtClaims): Promise<{ user_id: string }>;
  adminListGaps(
    claims: JwtClaims,
    query: { status: 'open' | 'done' | 'all'; limit: number; offset: number },
  ): Promise<Page<AdminGap>>;
  /** False when there is no such gap. */
  adminSetGapDone(claims: JwtClaims, questionKey: string, done: boolean): Promise<boolean>;
  adminListConversations(claims: JwtClaims, query: ConversationsQuery): Promise<Page<AdminConversation>>;
  /** Admins only (`admin_get_thread`): one session's turns, oldest first; null when there is no such session. */
  adminGetThread(claims: JwtClaims, sessionId: string): Promise<AdminThread | null>;
  adminListDocuments(
    claims: JwtClaims,
    query: { q: string; limit: number; offset: number },
  ): Promise<Page<AdminDocument>>;
  adminSetDocumentEnabled(claims: JwtClaims, id: string, enabled: boolean): Promise<boolean>;
  adminDeleteDocument(claims: JwtClaims, id: string): Promise<boolean>;
  adminOverview(claims: JwtClaims, from: string, to: string): Promise<Overview>;
  /**
   * One page of an export (`admin_export_conversations` / `_gaps` / `_feedback`,
   * supabase/migrations/20261126060000_data_out.sql): up to `limit` rows after the cursor `after` (null: from
   * the start), as the function returns them, each with its own `cursor`. Keyset paging: pass the last row's
   * `cursor` to get the next page.
   */
  adminExportConversations(claims: JwtClaims, page: ExportPageQuery): Promise<ExportRow[]>;
  adminExportGaps(claims: JwtClaims, page: ExportPageQuery): Promise<ExportRow[]>;
  adminExportFeedback(claims: JwtClaims, page: ExportPageQuery): Promise<ExportRow[]>;
  /** The console's view of the webhook (`admin_get_webhook`): the stored URL, whether a secret is stored, the last change. */
  adminGetWebhook(claims: JwtClaims): Promise<WebhookState>;
  /** Per source, its latest sync run (newest first, at most 200). */
  adminSyncStatus(claims: JwtClaims): Promise<SyncStatus[]>;
}

/** A row of an export function: its columns as the driver returns them, and the keyset cursor. */
export type ExportRow = Record<string, unknown> & { cursor: string };

export interface ExportPageQuery {
  from: string | null;
  to: string | null;
  after: string | null;
  limit: number;
}

export interface ChatStore extends AdminStore {
  kbStats(): Promise<KbStats>;
  /** At least one ready, enabled document (`kb_has_documents`): cheap, unlike kbStats' counts. */
  hasDocuments(): Promise<boolean>;
  /** Whether /mcp and /llms.txt are on, and the documents' version (`kb_assistants_state`). */
  assistantsState(): Promise<AssistantsState>;
  /** The pages /llms.txt lists, with their chunks' text when `withText` (`kb_assistant_pages`). */
  assistantPages(withText: boolean): Promise<AssistantPage[]>;
  /** The console's switch for /mcp and /llms.txt (`admin_set_assistants`); null restores the default (on). */
  setAssistants(claims: JwtClaims, enabled: boolean | null): Promise<boolean>;
  /**
   * The first retrieval function, plain cosine top-k (`match_chunks`). The API retrieves with `searchChunks`; this stays for
   * tools and tests that check what ingestion stored by vector alone.
   */
  matchChunks(claims: JwtClaims, embedding: number[], threshold: number, count: number): Promise<ChunkMatch[]>;
  /** Hybrid / vector / full-text retrieval with filters (`search_chunks`), as the visitor. */
  searchChunks(claims: JwtClaims, params: SearchChunksParams): Promise<SearchChunkRow[]>;
  /** Creates the session when needed and stores the user message, or finds the earlier turn with this id. */
  beginTurn(claims: JwtClaims, turn: BeginTurn): Promise<TurnState>;
  /**
   * Returns the assistant message id (the existing one when the turn was already answered). Sent with the
   * store's answer write key (server/store/answer-key.ts), as are recordContentGap and saveGenerated: the
   * database refuses these writes from anyone without it, visitors calling PostgREST directly included.
   */
  finishTurn(claims: JwtClaims, turn: FinishTurn): Promise<string>;
  /** Counts one request of the visitor against `bucket`. */
  rateLimitHit(claims: JwtClaims, bucket: string, limit: number, windowSeconds: number): Promise<RateLimitState>;
  listSessions(claims: JwtClaims, limit: number): Promise<SessionRow[]>;
  /** Null when the session does not exist or is not the visitor's. */
  getSession(claims: JwtClaims, sessionId: string): Promise<SessionRow | null>;
  /** Oldest first; empty when the session does not exist or is not the visitor's. */
  getMessages(claims: JwtClaims, sessionId: string): Promise<MessageRow[]>;
  /**
   * The last `limit` messages of one of the visitor's sessions, newest first (`get_recent_chat_messages`, bounded
   * to 20 in SQL); empty when the session does not exist or is not the visitor's. What a follow-up reads.
   */
  recentMessages(claims: JwtClaims, sessionId: string, limit: number): Promise<MessageRow[]>;
  /**
   * Rates one of the visitor's assistant messages (`chat_set_feedback`), replacing an earlier rating; a
   * message that is not theirs (or does not exist) is a `forbidden` StoreError.
   */
  setFeedback(
    claims: JwtClaims,
    feedback: { message_id: string; rating: FeedbackRating; comment: string | null },
  ): Promise<FeedbackRow>;
  /** The visitor's own ratings of a session's answers (`get_chat_feedback`); empty for anyone else's session. */
  getFeedback(claims: JwtClaims, sessionId: string): Promise<{ message_id: string; rating: FeedbackRating }[]>;
  /** A chunk of a ready, enabled document; null otherwise. */
  getChunk(claims: JwtClaims, chunkId: string): Promise<ChunkMatch | null>;
  /** Counts a refused question once per message id (`record_content_gap`: idempotent). */
  recordContentGap(claims: JwtClaims, question: string, reason: string, messageId: string): Promise<void>;
  /** Admins only (app_metadata.role = 'admin'); others get a `forbidden` StoreError. */
  listContentGaps(claims: JwtClaims, limit: number): Promise<ContentGap[]>;
  /**
   * Stores the answer the visitor's model wrote against their extractive answer `messageId`
   * (`chat_save_generated`): the first one stays and is returned. Someone else's message or a refusal is a
   * `forbidden` StoreError; a `[n]` that is not one of the answer's citations an `invalid` one.
   */
  saveGenerated(claims: JwtClaims, messageId: string, generated: Generated): Promise<Generated>;
  /** The runtime settings (`kb_get_settings`); readable without a user. */
  getSettings(): Promise<StoredSettings>;
  /**
   * Admins only (`kb_set_settings`); others get a `forbidden` StoreError, a value out of bounds an `invalid`
   * one. A patch: fields present are set (null clears the admin's choice), absent ones are left alone.
   */
  setSettings(claims: JwtClaims, patch: SettingsPatch): Promise<StoredSettings>;
  /**
   * The webhook an admin stored, secret included (`kb_webhook_target`): the server's own connection only —
   * the embedded store has one; the Supabase chat store (anon key) does not, so a Worker uses its env.
   */
  webhookTarget?(): Promise<{ url: string | null; secret: string | null }>;
  /**
   * Claims a webhook event id (`kb_claim_webhook_event`, the server's own connection): true for the first
   * claim, false when another server — or a retried request — already sends that event.
   */
  claimWebhookEvent?(eventId: string): Promise<boolean>;
}

/** One row of `kb_settings` as the functions return it: null where no admin has chosen. */
export interface StoredSettings {
  answer_mode: AnswerMode | null;
  /** The gate's threshold in vector / lexical / hybrid mode (null: CHAT_EVIDENCE/LEXICAL/HYBRID_THRESHOLD). */
  evidence_threshold: number | null;
  lexical_threshold: number | null;
  hybrid_threshold: number | null;
  /** The widget's greeting (null: the widget's own, or its `greeting` attribute). */
  greeting: string | null;
  /** What a refusal offers (null: the server's list; [] none). */
  refusal_suggestions: string[] | null;
  /** Where "Contact support" leads (https: or mailto:; null: the widget's `support-url`, else no link). */
  support_url: string | null;
  /** The empty panel's starter questions (null: the widget's `starters`, else none). */
  starters: string[] | null;
  updated_at: string;
}

/** The stored webhook as an admin sees it: never the secret; the latest change of the URL, if any. */
export interface WebhookState {
  url: string | null;
  secret_set: boolean;
  last_change: {
    changed_at: string;
    changed_by: string | null;
    old_host: string | null;
    new_host: string | null;
  } | null;
}

/** The fields present are set; `webhook_url` / `webhook_secret` are stored but never read back by a client. */
export type SettingsPatch = Partial<Omit<StoredSettings, 'updated_at'>> & {
  webhook_url?: string | null;
  webhook_secret?: string | null;
};

/** Local mode only: the stand-in for Supabase Auth's anonymous sign-in creates the auth.users row. */
export interface LocalAuthStore {
  createAnonymousUser(): Promise<string>;
  /**
   * A sign-in: the first refresh token (stored hashed) of a new family, valid `ttlSeconds`; no token of the
   * family is valid past `lifetimeSeconds` from now. Prunes a bounded batch of ended rows.
   */
  createRefreshToken(userId: string, ttlSeconds: number, lifetimeSeconds: number): Promise<string>;
  /**
   * A refresh: uses up `token` and issues the next token of its family (valid `ttlSeconds`, never past the
   * family's end). Null when the token is unknown, expired, or its family ended; a token used before
   * deletes its whole family (reuse means it was copied) and gets null too.
   */
  rotateRefreshToken(token: string, ttlSeconds: number): Promise<{ userId: string; refreshToken: string } | null>;
  /**
   * Local admin sign-in: uses up a one-time link (by the `jti` of its verified payload) and returns the local
   * admin's user id, or null when the link was used before. The first link ever used creates that user.
   */
  consumeAdminLink(jti: string): Promise<string | null>;
}

export interface DocumentState {
  document_id: string;
  status: string;
  checksum: string | null;
  stale_embeddings: number;
}

export interface IngestChunk {
  content: string;
  meta: ChunkMeta;
  /** null: stored for keyword search only (the model could not be loaded); the next ingestion embeds it. */
  embedding: number[] | null;
}

export interface IngestDocument {
  source: string;
  name: string;
  meta: Record<string, unknown>;
  checksum: string;
  model: string;
  chunks: IngestChunk[];
}

/** What the ingestion CLI writes with (service role). */
export interface IngestStore {
  documentState(source: string, model: string): Promise<DocumentState | null>;
  /** Replaces the document and all its chunks atomically; returns the document id. */
  ingestDocument(doc: IngestDocument): Promise<string>;
  /** Lifecycle (supabase/migrations/20261122020000_document_lifecycle.sql), service role only. */
  listDocuments(): Promise<DocumentInfo[]>;
  /** False when no document has this id. */
  setDocumentEnabled(id: string, enabled: boolean): Promise<boolean>;
  deleteDocument(id: string): Promise<boolean>;
  /** Deletes (or, dry, lists) documents whose source starts with `prefix` and is not in `keep`. */
  pruneDocuments(prefix: string, keep: string[], dryRun: boolean): Promise<{ id: string; source: string }[]>;
  /** Documents with chunks not embedded by `model`. */
  staleDocuments(model: string): Promise<{ id: string; source: string; name: string; stale: number }[]>;
  documentChunks(documentId: string): Promise<StoredChunk[]>;
  /** Replaces the embeddings of these chunks (one document per call, atomically); returns rows written. */
  setEmbeddings(model: string, rows: { chunk_id: string; embedding: number[] }[]): Promise<number>;
  /**
   * Bulk loading (embedded store only): drop the HNSW index before a large run, rebuild it after. Restoring
   * also repairs a run that was killed in between.
   */
  deferEmbeddingIndex?(): Promise<boolean>;
  restoreIndexes?(): Promise<number>;
  /**
   * After writing: merge the full-text index's pending entries and refresh the planner's statistics
   * (`kb_optimize`), so that searches use their indexes from the first question on.
   */
  optimize(): Promise<void>;
  /**
   * The webhook an admin stored, secret included (`kb_webhook_target`, service role): a sync run emits
   * `sync.finished` to it (server/runtime/node/webhooks.ts).
   */
  webhookTarget?(): Promise<{ url: string | null; secret: string | null }>;
  /** Claims a webhook event id (`kb_claim_webhook_event`, service role): true for the first claim only. */
  claimWebhookEvent?(eventId: string): Promise<boolean>;
  /**
   * Re-crawling (supabase/migrations/20261126050000_sync_runs.sql): the HTTP validators of documents under a
   * prefix, still matching their document; storing them after a document is written or found unchanged.
   */
  httpCache(prefix: string): Promise<{ source: string; http_cache: HttpCache }[]>;
  setHttpCache(source: string, cache: HttpCache | null): Promise<boolean>;
  /** A run per source: started (returns its id), then finished with its counts and failed pages. */
  startSyncRun(source: string, trigger: SyncTrigger): Promise<string>;
  finishSyncRun(id: string, counts: SyncCounts, errors: { source: string; error: string }[]): Promise<void>;
}

/** What a conditional re-crawl needs to know about a page it stored before. */
export interface HttpCache {
  /** The URL requested (the document's source is its canonical URL). */
  url: string;
  etag: string | null;
  last_modified: string | null;
  /** The document's checksum, chunker version and model when these were stored: a change of any re-reads the page. */
  checksum: string;
  chunking: string;
  model: string;
  /** Same-origin links of a page reached by following links, followed again on a 304. */
  links?: string[];
}

export type SyncTrigger = 'cli' | 'schedule' | 'console';

export interface SyncCounts {
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  failed: number;
  chunks: number;
  /** Body bytes downloaded by the crawl (0 for files). */
  bytes: number;
}

/** One row of `admin_sync_status`: a source's latest run (the wire shape, protocol/console.ts). */
export type SyncStatus = SyncRun;

/** One row of `kb_list_documents`. */
export interface DocumentInfo {
  id: string;
  source: string;
  name: string;
  status: string;
  enabled: boolean;
  chunks: number;
  meta: Record<string, unknown>;
  updated_at: string;
}

/** One row of `kb_document_chunks`. */
export interface StoredChunk {
  chunk_id: string;
  position: number;
  content: string;
  meta: ChunkMeta;
}

/**
 * A database failure the API can explain: `conflict` (a unique key, e.g. a reused message id),
 * `forbidden` (row-level security refused the write, e.g. somebody else's session id),
 * `invalid` (a SQL function refused an argument: 22023 invalid_parameter_value),
 * `unavailable` (the database could not be reached or failed).
 */
export class StoreError extends Error {
  constructor(
    readonly kind: 'conflict' | 'forbidden' | 'invalid' | 'unavailable',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
}

/** One row of `kb_assistants_state`. */
export interface AssistantsState {
  enabled: boolean;
  /** Changes whenever an enabled, ready document is added, changed, removed, enabled or disabled. */
  version: string;
}

/** One row of `kb_assistant_pages`. */
export interface AssistantPage {
  document_id: string;
  title: string;
  url: string | null;
  description: string;
  section: string | null;
  /** The chunks' text in order; null unless asked for. */
  chunks: string[] | null;
}
