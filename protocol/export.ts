/**
 * Data out (the console's exports and the webhook): `GET /api/admin/export/{conversations|gaps|feedback}`
 * streams one kind of record as CSV or JSON for a date range. The record shapes below are the JSON rows (the
 * CSV has the same fields as columns, citations and context as text). Admins only, like all of `/api/admin`.
 */
import * as v from 'valibot';
import { ADMIN_PATHS } from './console.ts';

export const EXPORT_KINDS = ['conversations', 'gaps', 'feedback'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
export const EXPORT_FORMATS = ['csv', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** `/api/admin/export/<kind>`. */
export const exportPath = (kind: ExportKind) => `${ADMIN_PATHS.export}/${kind}`;

const IsoDate = v.optional(
  v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 timestamp, e.g. 2026-11-25T00:00:00Z')),
);

/**
 * `from` (inclusive) and `to` (exclusive) bound what is exported: a conversation by when its question was
 * asked, a rating by when it was last changed, a content gap when any of its askings falls in the range.
 * Either may be left out (open-ended).
 */
export const ExportQuerySchema = v.object({
  format: v.optional(v.picklist(EXPORT_FORMATS, 'must be csv or json'), 'csv'),
  from: IsoDate,
  to: IsoDate,
});
export type ExportQuery = v.InferOutput<typeof ExportQuerySchema>;

/** A field stored with the wrong type (an answer written before answers were the server's alone) is null. */
export interface ExportCitation {
  n: number | null;
  title: string | null;
  url: string | null;
  section: string | null;
}

/** One answered or refused question, oldest first. */
export interface ConversationRecord {
  asked_at: string;
  session_id: string;
  question_id: string;
  /** The assistant message (answer or refusal): what a rating and `answer.rated` refer to. */
  message_id: string;
  /** An opaque id of the visitor (a hash of their user id), as the console shows it. */
  visitor: string;
  question: string;
  kind: 'answer' | 'refusal';
  /** A refusal's reason (no_evidence, empty_kb…). */
  reason: string | null;
  answer: string;
  confidence: string | null;
  mode: string | null;
  citations: ExportCitation[];
  rating: 1 | -1 | null;
  comment: string | null;
  rated_at: string | null;
  /** The context note stored with a follow-up question (message meta `context`), when the chat stored one. */
  context: unknown;
  /** Generative mode: what the visitor's model wrote from the cited passages. */
  generated: { text: string; model: string } | null;
}

/** One content gap (a refused question, grouped by its normalised form), by question key. */
export interface GapRecord {
  question_key: string;
  question: string;
  reason: string;
  asked: number;
  first_asked_at: string;
  last_asked_at: string;
  done_at: string | null;
}

/** One 👍 / 👎, oldest change first. */
export interface FeedbackRecord {
  rated_at: string;
  created_at: string;
  message_id: string;
  session_id: string;
  visitor: string;
  rating: 1 | -1;
  comment: string | null;
  question: string;
  kind: 'answer' | 'refusal';
  answer: string;
}
