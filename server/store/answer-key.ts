/**
 * The answer write key: what the server passes to the SQL functions that store its word (the answer, a
 * content gap's count, a written answer), so that a visitor calling them over PostgREST with their own JWT
 * is refused (supabase/migrations/20261126020000_server_written_answers.sql). The database keeps only its
 * SHA-256. Web Crypto only, so the Worker, Node and the CLI compute the same hash.
 *
 * @example
 * const key = newAnswerWriteKey();             // 43 characters, 256 random bits
 * const hash = await answerWriteKeyHash(key);  // what kb_set_answer_write_key stores
 */

/** Shorter keys are refused at start-up: a key is a password that cannot be rate limited. */
export const ANSWER_WRITE_KEY_MIN_CHARS = 32;

/** 32 random bytes, base64url (no padding). */
export function newAnswerWriteKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** SHA-256 of the key's UTF-8 bytes, lowercase hex: `encode(sha256(convert_to(key, 'UTF8')), 'hex')` in SQL. */
export async function answerWriteKeyHash(key: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(key));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The database's refusal of the key (supabase/migrations/20261126020000_server_written_answers.sql). To a
 * PostgREST caller it is insufficient_privilege; to the server it means its own key is not the one the
 * database holds (rotated without updating the server, or never set), so the stores report it as an
 * unavailable database: a 503 and a log line with the database's message, which says what to set.
 */
export const ANSWER_KEY_REFUSED = /answers are written by the server only/;

/** Why a configured key cannot be used, or null when it can. */
export function answerWriteKeyProblem(key: string | null | undefined, name = 'KB_ANSWER_WRITE_KEY'): string | null {
  if (!key) return `${name} is not set (see docs/deploy.md)`;
  if (key.length < ANSWER_WRITE_KEY_MIN_CHARS) {
    return `${name} must be at least ${ANSWER_WRITE_KEY_MIN_CHARS} characters: \`npm run console -- answer-key\` makes one and stores its hash (see docs/deploy.md)`;
  }
  return null;
}
