/**
 * Row shapes that both stores read back from the SQL functions, and their conversion to what the API uses.
 * PGlite hands back Dates and parsed JSON; PostgREST hands back ISO strings and parsed JSON.
 */
import type {
  AdminCitation,
  AdminConversation,
  AdminDocument,
  AdminGap,
  AdminThread,
  AdminThreadTurn,
  Citation,
  Overview,
  Page,
  Related,
} from '../../protocol/index.ts';
import type {
  ChunkMatch,
  ContentGap,
  DocumentInfo,
  DocumentState,
  FeedbackRow,
  KbStats,
  MessageRow,
  RateLimitState,
  SessionRow,
  StoredChunk,
  StoredSettings,
  SyncStatus,
  TurnState,
  WebhookState,
} from './types.ts';

/** One row of `chat_begin_turn`. */
export interface TurnRow {
  session_id: string;
  is_new: boolean;
  same_request: boolean;
  answer_id: string | null;
  answer_content: string | null;
  answer_citations: Citation[] | null;
  answer_meta: Record<string, unknown> | null;
}

export function toTurnState(row: TurnRow): TurnState {
  return {
    session_id: row.session_id,
    is_new: row.is_new,
    same_request: row.same_request,
    answer:
      row.answer_id === null
        ? null
        : {
            id: row.answer_id,
            content: row.answer_content ?? '',
            citations: row.answer_citations,
            meta: row.answer_meta ?? {},
          },
  };
}

/** timestamptz arrives as a Date from PGlite and as an ISO string from PostgREST; the API speaks ISO. */
export function iso(value: unknown): string {
  return value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
}

/** One row of an admin list function: its columns plus `total`, the count of every matching row. */
type Counted = { total: number | string | bigint };

/** A page of an admin list, as both stores build it from the function's rows. */
export function toPage<R extends Counted, T>(
  rows: R[] | null,
  limit: number,
  offset: number,
  map: (row: R) => T,
): Page<T> {
  const list = rows ?? [];
  return { items: list.map(map), total: list.length > 0 ? Number(list[0]!.total) : 0, limit, offset };
}

const isoOrNull = (value: unknown) => (value === null || value === undefined ? null : iso(value));

export function toAdminGap(r: Record<string, unknown>): AdminGap {
  return {
    question_key: String(r.question_key),
    question: String(r.question),
    reason: String(r.reason),
    asked: Number(r.asked),
    first_asked_at: iso(r.first_asked_at),
    last_asked_at: iso(r.last_asked_at),
    done_at: isoOrNull(r.done_at),
  };
}

export function toAdminConversation(r: Record<string, unknown>): AdminConversation {
  return {
    message_id: String(r.message_id),
    session_id: String(r.session_id),
    visitor: String(r.visitor),
    question: String(r.question),
    asked_at: iso(r.asked_at),
    answer: String(r.answer),
    kind: r.kind === 'refusal' ? 'refusal' : 'answer',
    reason: text(r.reason),
    // admin_list_conversations already types every value (20261126020000); checked again here, so a value of
    // the wrong type can never reach the console from either store.
    citations: Array.isArray(r.citations) ? r.citations.filter(isObject).map(toAdminCitation) : [],
    confidence: r.confidence === 'high' || r.confidence === 'medium' || r.confidence === 'low' ? r.confidence : null,
    mode: r.mode === 'hybrid' || r.mode === 'vector' || r.mode === 'lexical' ? r.mode : null,
    rating: r.rating === null || r.rating === undefined ? null : Number(r.rating) === 1 ? 1 : -1,
    comment: (r.comment as string | null) ?? null,
    generated: isGenerated(r.generated) ? { text: r.generated.text, model: r.generated.model } : null,
    channel: r.channel === 'mcp' ? 'mcp' : null,
  };
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const finite = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A stored citation with each field of its type, else null: what the console and the exports show. */
export function toAdminCitation(c: Record<string, unknown>): AdminCitation {
  return {
    n: finite(c.n),
    chunk_id: text(c.chunk_id),
    document_id: text(c.document_id),
    title: text(c.title),
    page: finite(c.page),
    section: text(c.section),
    url: text(c.url),
    similarity: finite(c.similarity),
  };
}

/** `admin_get_thread` rows (one per question, oldest first) as one thread; null when there are none. */
export function toAdminThread(rows: Record<string, unknown>[]): AdminThread | null {
  const first = rows[0];
  if (!first) return null;
  return {
    session_id: String(first.session_id),
    title: String(first.title),
    visitor: String(first.visitor),
    turns: rows.map(
      (r): AdminThreadTurn => ({
        question_id: String(r.question_id),
        question: String(r.question),
        asked_at: iso(r.asked_at),
        message_id: r.message_id == null ? null : String(r.message_id),
        answer: r.answer == null ? null : String(r.answer),
        kind: r.kind === 'refusal' ? 'refusal' : r.kind == null ? null : 'answer',
        reason: (r.reason as string | null) ?? null,
        // Typed again, as for the conversations list: a stored row of the wrong shape shows as unknown.
        citations: Array.isArray(r.citations) ? r.citations.filter(isObject).map(toAdminCitation) : [],
        closest: Array.isArray(r.closest) ? (r.closest.filter(isObject) as unknown as Related[]) : [],
        confidence:
          r.confidence === 'high' || r.confidence === 'medium' || r.confidence === 'low' ? r.confidence : null,
        mode: r.mode === 'hybrid' || r.mode === 'vector' || r.mode === 'lexical' ? r.mode : null,
        rating: r.rating == null ? null : Number(r.rating) === 1 ? 1 : -1,
        comment: (r.comment as string | null) ?? null,
        generated: isGenerated(r.generated) ? { text: r.generated.text, model: r.generated.model } : null,
        context: toAnswerContext(r.context),
      }),
    ),
  };
}

/** The stored follow-up context, typed again: another shape shows as none. */
function toAnswerContext(value: unknown): AdminThreadTurn['context'] {
  if (!isObject(value) || typeof value.used !== 'boolean') return null;
  return typeof value.about === 'string' ? { used: value.used, about: value.about } : { used: value.used };
}

function isGenerated(value: unknown): value is { text: string; model: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { text?: unknown }).text === 'string' &&
    typeof (value as { model?: unknown }).model === 'string'
  );
}

export function toAdminDocument(r: Record<string, unknown>): AdminDocument {
  return {
    id: String(r.id),
    source: String(r.source),
    title: String(r.title),
    status: String(r.status),
    enabled: r.enabled === true,
    chunks: Number(r.chunks),
    updated_at: iso(r.updated_at),
    embedding_model: (r.embedding_model as string | null) ?? null,
    source_type: (r.source_type as string | null) ?? null,
    url: (r.url as string | null) ?? null,
  };
}

/** admin_overview's JSON, numbers as numbers (jsonb counts may arrive as strings from some drivers). */
export function toOverview(raw: unknown): Overview {
  const o = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Record<string, unknown>;
  const n = (x: unknown) => Number(x ?? 0);
  return {
    from: iso(o.from),
    to: iso(o.to),
    questions: n(o.questions),
    answered: n(o.answered),
    refused: n(o.refused),
    up: n(o.up),
    down: n(o.down),
    median_confidence: (o.median_confidence as Overview['median_confidence']) ?? null,
    median_evidence: finite(typeof o.median_evidence === 'string' ? Number(o.median_evidence) : o.median_evidence),
    days: ((o.days as Record<string, unknown>[]) ?? []).map((d) => ({
      day: String(d.day),
      questions: n(d.questions),
      answered: n(d.answered),
      refused: n(d.refused),
      up: n(d.up),
      down: n(d.down),
    })),
  };
}

/** A `kb_get_settings`/`kb_set_settings` row as the driver returns it (timestamps as Date or string). */
export function storedSettings(
  row: Omit<StoredSettings, 'updated_at'> & { updated_at: Date | string },
): StoredSettings {
  return {
    answer_mode: row.answer_mode ?? null,
    evidence_threshold: row.evidence_threshold ?? null,
    lexical_threshold: row.lexical_threshold ?? null,
    hybrid_threshold: row.hybrid_threshold ?? null,
    greeting: row.greeting ?? null,
    refusal_suggestions: row.refusal_suggestions ?? null,
    support_url: row.support_url ?? null,
    starters: row.starters ?? null,
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** One row of `admin_sync_status`, with its timestamps as ISO strings. */
export function toSyncStatus(row: Record<string, unknown>): SyncStatus {
  return {
    source: String(row.source),
    trigger: row.trigger as SyncStatus['trigger'],
    started_at: iso(row.started_at),
    finished_at: row.finished_at == null ? null : iso(row.finished_at),
    counts: (row.counts ?? {}) as SyncStatus['counts'],
    errors: (row.errors ?? []) as SyncStatus['errors'],
    last_success_at: row.last_success_at == null ? null : iso(row.last_success_at),
  };
}

/*
 * The rows of the chat and ingestion functions, as both stores return them. Counts are bigint in SQL (a
 * string from either driver), timestamps Date or string; fields are picked by name, so a function that
 * returns a whole table row (`setof chat_messages`) hands back only what the API uses.
 */
type Row = Record<string, unknown>;

export function toKbStats(row: Row): KbStats {
  return {
    documents: Number(row.documents),
    ready_documents: Number(row.ready_documents),
    chunks: Number(row.chunks),
    embeddings: Number(row.embeddings),
  };
}

export function toRateLimit(row: Row): RateLimitState {
  return {
    allowed: row.allowed as boolean,
    remaining: row.remaining as number,
    reset_at: new Date(row.reset_at as string | Date),
  };
}

export function toSession(row: Row): SessionRow {
  return {
    id: row.id as string,
    title: row.title as string,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function toMessage(row: Row): MessageRow {
  return {
    id: row.id as string,
    role: row.role as MessageRow['role'],
    content: row.content as string,
    citations: row.citations as MessageRow['citations'],
    meta: row.meta as MessageRow['meta'],
    created_at: iso(row.created_at),
  };
}

export function toFeedback(row: Row): FeedbackRow {
  return {
    message_id: row.message_id as string,
    rating: row.rating as FeedbackRow['rating'],
    comment: row.comment as string | null,
    updated_at: iso(row.updated_at),
  };
}

export function toFeedbackRating(row: Row): Pick<FeedbackRow, 'message_id' | 'rating'> {
  return { message_id: row.message_id as string, rating: row.rating as FeedbackRow['rating'] };
}

export function toContentGap(row: Row): ContentGap {
  return {
    ...(row as unknown as ContentGap),
    first_asked_at: iso(row.first_asked_at),
    last_asked_at: iso(row.last_asked_at),
  };
}

/** A `get_chunk` row: a passage the visitor opened, shown as a full match. */
export function toOpenedChunk(row: Row): ChunkMatch {
  return { ...(row as unknown as Omit<ChunkMatch, 'similarity'>), similarity: 1 };
}

export function toDocumentState(row: Row): DocumentState {
  return { ...(row as unknown as DocumentState), stale_embeddings: Number(row.stale_embeddings) };
}

export function toDocumentInfo(row: Row): DocumentInfo {
  return { ...(row as unknown as DocumentInfo), chunks: Number(row.chunks), updated_at: iso(row.updated_at) };
}

export function toStaleDocument(row: Row): { id: string; source: string; name: string; stale: number } {
  return { id: row.id as string, source: row.source as string, name: row.name as string, stale: Number(row.stale) };
}

export function toStoredChunk({ chunk_position, ...row }: Row): StoredChunk {
  return { ...(row as unknown as Omit<StoredChunk, 'position'>), position: chunk_position as number };
}

/** An `admin_get_webhook` row (or none: nothing stored). */
export function toWebhookState(row: Row | undefined): WebhookState {
  if (!row) return { url: null, secret_set: false, last_change: null };
  return {
    url: (row.url as string | null) ?? null,
    secret_set: row.secret_set === true,
    last_change:
      row.changed_at == null
        ? null
        : {
            changed_at: iso(row.changed_at),
            changed_by: (row.changed_by as string | null) ?? null,
            old_host: (row.old_host as string | null) ?? null,
            new_host: (row.new_host as string | null) ?? null,
          },
  };
}
