/**
 * Row shapes that both stores read back from the SQL functions, and their conversion to what the API uses.
 * PGlite hands back Dates and parsed JSON; PostgREST hands back ISO strings and parsed JSON.
 */
import type { Citation } from '../../protocol/index.ts';
import type { TurnState } from './types.ts';

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
        : { id: row.answer_id, content: row.answer_content ?? '', citations: row.answer_citations, meta: row.answer_meta ?? {} },
  };
}

/** timestamptz arrives as a Date from PGlite and as an ISO string from PostgREST; the API speaks ISO. */
export function iso(value: unknown): string {
  return value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
}
