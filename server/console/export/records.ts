/**
 * What each export writes: the SQL functions' rows (admin_export_*) as the JSON records of
 * protocol/export.ts, and the same fields as CSV columns. Timestamps arrive as Dates from PGlite and as
 * strings from PostgREST; both become ISO 8601.
 */
import type {
  ConversationRecord,
  ExportCitation,
  ExportKind,
  FeedbackRecord,
  GapRecord,
} from '../../../protocol/export.ts';
import { isObject, iso, toAdminCitation } from '../../store/rows.ts';
import type { CsvValue } from './csv.ts';

type Row = Record<string, unknown>;

const text = (value: unknown): string => (value === null || value === undefined ? '' : String(value));
const textOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
const isoOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : iso(value));
const rating = (value: unknown): 1 | -1 | null =>
  value === null || value === undefined ? null : Number(value) === 1 ? 1 : -1;
const kindOf = (value: unknown): 'answer' | 'refusal' => (value === 'refusal' ? 'refusal' : 'answer');

/** Typed as the console types them (store/rows.ts): a stored value of the wrong type is exported as null. */
function citations(value: unknown): ExportCitation[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(isObject)
    .map(toAdminCitation)
    .map(({ n, title, url, section }) => ({ n, title, url, section }));
}

function generated(value: unknown): { text: string; model: string } | null {
  const g = value as { text?: unknown; model?: unknown } | null;
  return g && typeof g.text === 'string' && typeof g.model === 'string' ? { text: g.text, model: g.model } : null;
}

function conversation(r: Row): ConversationRecord {
  return {
    asked_at: iso(r.asked_at),
    session_id: text(r.session_id),
    question_id: text(r.question_id),
    message_id: text(r.message_id),
    visitor: text(r.visitor),
    question: text(r.question),
    kind: kindOf(r.kind),
    reason: textOrNull(r.reason),
    answer: text(r.answer),
    confidence: textOrNull(r.confidence),
    mode: textOrNull(r.mode),
    citations: citations(r.citations),
    rating: rating(r.rating),
    comment: textOrNull(r.comment),
    rated_at: isoOrNull(r.rated_at),
    context: r.context ?? null,
    generated: generated(r.generated),
  };
}

function gap(r: Row): GapRecord {
  return {
    question_key: text(r.question_key),
    question: text(r.question),
    reason: text(r.reason),
    asked: Number(r.asked),
    first_asked_at: iso(r.first_asked_at),
    last_asked_at: iso(r.last_asked_at),
    done_at: isoOrNull(r.done_at),
  };
}

function feedback(r: Row): FeedbackRecord {
  return {
    rated_at: iso(r.updated_at),
    created_at: iso(r.created_at),
    message_id: text(r.message_id),
    session_id: text(r.session_id),
    visitor: text(r.visitor),
    rating: rating(r.rating) ?? -1,
    comment: textOrNull(r.comment),
    question: text(r.question),
    kind: kindOf(r.kind),
    answer: text(r.answer),
  };
}

/** Citations in one cell: `[1] Billing › Refunds <https://…>`, one per line. */
const citationsCell = (list: ExportCitation[]) =>
  list
    .map((c) => `[${c.n ?? '?'}] ${c.title ?? ''}${c.section ? ` › ${c.section}` : ''}${c.url ? ` <${c.url}>` : ''}`)
    .join('\n');
/** The context note as text: a string as it is, anything else as JSON. */
const contextCell = (value: unknown) =>
  value === null || value === undefined ? null : typeof value === 'string' ? value : JSON.stringify(value);

interface Shape<R> {
  record: (row: Row) => R;
  columns: readonly string[];
  cells: (record: R) => CsvValue[];
}

const shape = <R>(s: Shape<R>) => s as Shape<unknown>;

export const SHAPES: Record<ExportKind, Shape<unknown>> = {
  conversations: shape<ConversationRecord>({
    record: conversation,
    columns: [
      'asked_at',
      'session_id',
      'question_id',
      'message_id',
      'visitor',
      'question',
      'kind',
      'reason',
      'answer',
      'confidence',
      'mode',
      'citations',
      'rating',
      'comment',
      'rated_at',
      'context',
      'generated_text',
      'generated_model',
    ],
    cells: (c) => [
      c.asked_at,
      c.session_id,
      c.question_id,
      c.message_id,
      c.visitor,
      c.question,
      c.kind,
      c.reason,
      c.answer,
      c.confidence,
      c.mode,
      citationsCell(c.citations),
      c.rating,
      c.comment,
      c.rated_at,
      contextCell(c.context),
      c.generated?.text,
      c.generated?.model,
    ],
  }),
  gaps: shape<GapRecord>({
    record: gap,
    columns: ['question_key', 'question', 'reason', 'asked', 'first_asked_at', 'last_asked_at', 'done_at'],
    cells: (g) => [g.question_key, g.question, g.reason, g.asked, g.first_asked_at, g.last_asked_at, g.done_at],
  }),
  feedback: shape<FeedbackRecord>({
    record: feedback,
    columns: [
      'rated_at',
      'created_at',
      'message_id',
      'session_id',
      'visitor',
      'rating',
      'comment',
      'question',
      'kind',
      'answer',
    ],
    cells: (f) => [
      f.rated_at,
      f.created_at,
      f.message_id,
      f.session_id,
      f.visitor,
      f.rating,
      f.comment,
      f.question,
      f.kind,
      f.answer,
    ],
  }),
};
