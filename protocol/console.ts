/**
 * The site-owner console's wire contract (`/api/admin/*`): query and body schemas the server
 * validates, and the response shapes the console renders. Admins only: a JWT whose `app_metadata.role` is
 * `admin`; the SQL functions check the claim too.
 */
import * as v from 'valibot';
import {
  EmbeddingSchema,
  MESSAGE_MAX_CHARS,
  RetrievalModeSchema,
  type Citation,
  type Confidence,
  type Refusal,
  type Related,
  type RetrievalMode,
} from './chat.ts';
import type { AnswerContext } from './context.ts';

/** Where the console's API is mounted; every path below starts with it (the server mounts each relative to it). */
export const ADMIN_BASE = '/api/admin';

/** Every console endpoint, the one table the console calls and the server mounts (server/console/route.ts). */
export const ADMIN_PATHS = {
  session: '/api/admin/session',
  password: '/api/admin/password',
  me: '/api/admin/me',
  gaps: '/api/admin/gaps',
  conversations: '/api/admin/conversations',
  documents: '/api/admin/documents',
  uploads: '/api/admin/documents/upload',
  sync: '/api/admin/documents/sync',
  overview: '/api/admin/overview',
  try: '/api/admin/try',
  settings: '/api/admin/settings',
  url: '/api/admin/documents/url',
  export: '/api/admin/export',
  assistants: '/api/admin/assistants',
} as const;

/** `path` relative to `base` (a mount point it starts with): how a sub-app registers a path of the table. */
export function pathUnder(base: string, path: string): string {
  if (!path.startsWith(`${base}/`)) throw new Error(`${path} is not under ${base}`);
  return path.slice(base.length);
}

/** Largest page of any list. */
export const ADMIN_MAX_LIMIT = 200;
/** Largest upload the Node server accepts (bytes). */
export const UPLOAD_MAX_BYTES = 5 * 1024 * 1024;
/** File types an upload may have: the ingestion pipeline's formats. */
export const UPLOAD_EXTENSIONS = ['.md', '.mdx', '.markdown', '.html', '.htm', '.pdf', '.txt'] as const;

/** Query strings arrive as text: numbers are parsed, bounded, and named in a 400 when wrong. */
const IntText = (min: number, max: number, fallback: number) =>
  v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,6}$/, `must be a whole number from ${min} to ${max}`),
      v.transform(Number),
      v.minValue(min, `must be a whole number from ${min} to ${max}`),
      v.maxValue(max, `must be a whole number from ${min} to ${max}`),
    ),
    String(fallback),
  );
const PageQuery = { limit: IntText(1, ADMIN_MAX_LIMIT, 50), offset: IntText(0, 100000, 0) };
const IsoDate = v.optional(
  v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 timestamp, e.g. 2026-11-25T00:00:00Z')),
);

export const GapsQuerySchema = v.object({
  status: v.optional(v.picklist(['open', 'done', 'all'], 'must be open, done or all'), 'open'),
  ...PageQuery,
});
export const GapUpdateSchema = v.object({
  question_key: v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must not be empty'),
    v.maxLength(2000, 'must be at most 2000 characters'),
  ),
  done: v.boolean('must be true or false'),
});
export type GapUpdate = v.InferOutput<typeof GapUpdateSchema>;

export interface AdminGap {
  /** The normalised question (lower case, spaces collapsed): what groups the askings. */
  question_key: string;
  /** The latest wording asked. */
  question: string;
  reason: string;
  asked: number;
  first_asked_at: string;
  last_asked_at: string;
  /** When it was marked done; a gap asked again after that is open again. */
  done_at: string | null;
}

export const ConversationsQuerySchema = v.object({
  rating: v.optional(v.picklist(['any', 'up', 'down', 'none'], 'must be any, up, down or none'), 'any'),
  outcome: v.optional(v.picklist(['any', 'answered', 'refused'], 'must be any, answered or refused'), 'any'),
  from: IsoDate,
  to: IsoDate,
  ...PageQuery,
});
export type ConversationsQuery = v.InferOutput<typeof ConversationsQuerySchema>;

export interface AdminConversation {
  /** The assistant message (answer or refusal). */
  message_id: string;
  session_id: string;
  /** An opaque id of the visitor (a hash of their user id): the same visitor, never who they are. */
  visitor: string;
  question: string;
  asked_at: string;
  /** At most 4,000 characters. */
  answer: string;
  kind: 'answer' | 'refusal';
  reason: string | null;
  /** As stored, each field of its type or null (rows written before answers were the server's alone may be odd). */
  citations: AdminCitation[];
  confidence: Confidence | null;
  mode: RetrievalMode | null;
  /** 1 (👍), -1 (👎) or null (not rated). */
  rating: 1 | -1 | null;
  comment: string | null;
  /** Generative mode: the answer the visitor's model wrote from the quoted one's sources (text ≤ 4,000 characters). */
  generated: { text: string; model: string } | null;
  /** `mcp`: asked by an AI assistant through /mcp (docs/mcp.md); null: through the widget or the API. */
  channel: 'mcp' | null;
}

/**
 * A stored citation as the console shows it: a field of the wrong type is null ("—"), never an error. A
 * Citation is one (every field present and typed).
 */
export interface AdminCitation {
  n: number | null;
  chunk_id: string | null;
  document_id: string | null;
  title: string | null;
  page: number | null;
  section: string | null;
  url: string | null;
  similarity: number | null;
}

/** `GET /api/admin/conversations/:session_id`: one conversation as the visitor had it, oldest turn first. */
export interface AdminThread {
  session_id: string;
  /** The session's title (its first question). */
  title: string;
  /** The visitor's opaque id, as in `AdminConversation`. */
  visitor: string;
  /** At most 500. */
  turns: AdminThreadTurn[];
}

/** One question and what it got; the answer fields are null when no answer was stored (the stream failed). */
export interface AdminThreadTurn {
  question_id: string;
  question: string;
  asked_at: string;
  /** The assistant message (answer or refusal), what ratings name. */
  message_id: string | null;
  /** At most 4,000 characters. */
  answer: string | null;
  kind: 'answer' | 'refusal' | null;
  reason: string | null;
  citations: AdminCitation[];
  /** A refusal's closest pages, when it listed any. */
  closest: Related[];
  confidence: Confidence | null;
  mode: RetrievalMode | null;
  rating: 1 | -1 | null;
  comment: string | null;
  generated: { text: string; model: string } | null;
  /** A follow-up answered in the context of the turn before it: what the widget showed as "About: …". */
  context: AnswerContext | null;
}

export const DocumentsQuerySchema = v.object({
  q: v.optional(v.pipe(v.string(), v.maxLength(200, 'must be at most 200 characters')), ''),
  ...PageQuery,
});
export const DocumentUpdateSchema = v.object({ enabled: v.boolean('must be true or false') });

export interface AdminDocument {
  id: string;
  source: string;
  title: string;
  status: string;
  enabled: boolean;
  chunks: number;
  updated_at: string;
  /** The model(s) its chunks were embedded with. */
  embedding_model: string | null;
  source_type: string | null;
  url: string | null;
}

/** A page of a list: `total` rows match, `items` are those from `offset`. */
export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

export const UrlUploadSchema = v.object({
  url: v.pipe(
    v.string('must be a string'),
    v.url('must be an http(s) URL'),
    v.regex(/^https?:\/\//i, 'must be an http(s) URL'),
    v.maxLength(2000, 'must be at most 2000 characters'),
  ),
  max_pages: v.optional(
    v.pipe(
      v.number('must be a number'),
      v.integer('must be a whole number'),
      v.minValue(1, 'must be 1 to 200'),
      v.maxValue(200, 'must be 1 to 200'),
    ),
    50,
  ),
});

/** `GET /api/admin/documents/sync`: per source, its latest sync run; this server's schedule. */
export interface SyncOverview {
  sources: SyncRun[];
  /** KB_SYNC_SOURCES / KB_SYNC_INTERVAL on a Node server; null on a Worker (sync with the CLI or a workflow). */
  schedule: { sources: string[]; intervalSeconds: number | null } | null;
  /** "Sync now" is available (Node, with KB_SYNC_SOURCES). */
  sync_now: boolean;
  /** What holds the server's ingestion slot ("an upload", "a scheduled sync"), or null. */
  running: string | null;
}

/** A source's latest run (`admin_sync_status`). */
export interface SyncRun {
  /** A sitemap or page URL, a folder or a file path. */
  source: string;
  trigger: 'cli' | 'schedule' | 'console';
  started_at: string;
  /** null while it runs, or when it was killed. */
  finished_at: string | null;
  counts: {
    added?: number;
    updated?: number;
    unchanged?: number;
    removed?: number;
    failed?: number;
    chunks?: number;
    bytes?: number;
  };
  errors: { source: string; error: string }[];
  /** The last run with no failed page, or null. */
  last_success_at: string | null;
}

/** Upload progress, one JSON object per line (`application/x-ndjson`) while the pipeline runs. */
export type UploadEvent =
  | { type: 'start'; total: number }
  | { type: 'loading-model' }
  | {
      type: 'document';
      source: string;
      outcome: 'added' | 'updated' | 'unchanged' | 'failed';
      chunks: number;
      done: number;
      total: number;
      error?: string;
    }
  | {
      type: 'done';
      added: number;
      updated: number;
      unchanged: number;
      failed: { source: string; error: string }[];
      /** Not fetched, with the reason in parentheses: robots.txt, a sitemap entry on another origin. */
      skipped: string[];
      chunks: number;
      seconds: number;
    }
  | { type: 'error'; code: string; message: string };

export const OverviewQuerySchema = v.object({ from: IsoDate, to: IsoDate });

export interface Overview {
  from: string;
  to: string;
  questions: number;
  answered: number;
  refused: number;
  up: number;
  down: number;
  median_confidence: Confidence | null;
  median_evidence: number | null;
  days: { day: string; questions: number; answered: number; refused: number; up: number; down: number }[];
}

export const TryRequestSchema = v.object({
  message: v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(MESSAGE_MAX_CHARS, `must be at most ${MESSAGE_MAX_CHARS} characters`),
  ),
  embedding: v.optional(EmbeddingSchema),
  mode: v.optional(RetrievalModeSchema),
});
export type TryRequest = v.InferOutput<typeof TryRequestSchema>;

export interface TryCandidate {
  chunk_id: string;
  document_id: string;
  title: string;
  section: string | null;
  /** The start of the chunk's text (≤ 300 characters). */
  excerpt: string;
  cosine: number | null;
  coverage: number | null;
  bm25: number | null;
  vector_rank: number | null;
  lexical_rank: number | null;
  /** The fused score search_chunks ranked by. */
  score: number;
  /** What the gate compares: cosine, coverage or their mean, by mode. */
  evidence: number;
  /** Cited by the answer the visitor would get. */
  cited: boolean;
}

export interface TryResult {
  mode: RetrievalMode;
  /** Whether the question was embedded (on the server or by the console) or answered by keywords. */
  embedded: boolean;
  decision: 'answer' | 'refuse';
  evidence: number;
  threshold: number;
  citation_floor: number;
  confidence: Confidence | null;
  candidates: TryCandidate[];
  /** The answer the visitor would get (nothing is stored), or the refusal. */
  answer: { text: string; citations: Citation[]; related: Related[] } | null;
  refusal: Refusal | null;
}

export const LinkSessionSchema = v.object({
  link_token: v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must not be empty'),
    v.maxLength(2000, 'must be at most 2000 characters'),
  ),
});
export const PasswordSessionSchema = v.object({
  email: v.pipe(
    v.string('must be a string'),
    v.email('must be an email address'),
    v.maxLength(320, 'must be at most 320 characters'),
  ),
  password: v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must not be empty'),
    v.maxLength(200, 'must be at most 200 characters'),
  ),
});

/** A console session: an access token whose claims say admin. */
export interface AdminSession {
  access_token: string;
  expires_in: number;
}

export interface AdminMe {
  user_id: string;
  role: 'admin';
  /** What this server can do: the Node server uploads and embeds; a Worker does neither (use the CLI). */
  capabilities: {
    upload: boolean;
    server_embedding: boolean;
    link_sign_in: boolean;
    password_sign_in: boolean;
    /** The webhook can be set in the console (Node); on a Worker it is KB_WEBHOOK_URL / KB_WEBHOOK_SECRET. */
    webhook_setting: boolean;
  };
}
