/**
 * Postgres errors as the StoreError kinds the API understands, for both stores: PGlite throws the error
 * with its SQLSTATE as `code`; PostgREST reports the same SQLSTATE as `code` in its JSON body.
 *
 * 23505 unique_violation (a reused message id) is `conflict`; 42501 insufficient_privilege / row-level
 * security (somebody else's session) and 23503 foreign_key_violation (a token for a user that no longer
 * exists) are `forbidden` — except the database refusing the server's own answer write key, a
 * misconfiguration rather than the visitor's doing, which is `unavailable`; 22023 invalid_parameter_value
 * (a function refused an argument the API should have caught first) is `invalid`. Anything else —
 * PGRST* (PostgREST itself: bad JWT, unknown function), network failures (supabase-js reports those with an
 * empty code), a database that is not there — is `unavailable`.
 */
import { ANSWER_KEY_REFUSED } from './answer-key.ts';
import { StoreError } from './types.ts';

/** `fn`, when given, prefixes the message (the Supabase store names the rpc that failed). */
export function toStoreError(error: unknown, fn?: string): StoreError {
  const code = (error as { code?: unknown } | null)?.code;
  const raw = errorMessage(error);
  const message = fn ? `${fn}: ${raw}` : raw;
  if (code === '23505') return new StoreError('conflict', message, { cause: error });
  if (code === '42501' && ANSWER_KEY_REFUSED.test(raw)) return new StoreError('unavailable', message, { cause: error });
  if (code === '42501' || code === '23503') return new StoreError('forbidden', message, { cause: error });
  if (code === '22023') return new StoreError('invalid', message, { cause: error });
  return new StoreError('unavailable', message, { cause: error });
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}
