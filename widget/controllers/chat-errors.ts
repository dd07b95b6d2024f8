/**
 * The ways a question can fail after it was sent, and plain words for each. Server messages are never shown
 * verbatim: a 5xx message is internal, and a code is a stable contract while its English text is not.
 */
import { ApiError } from '../api/api-client.ts';
import { format, type KbChatStrings } from '../i18n.ts';

/** The server sent an in-band `error` event after the stream started. */
export class StreamError extends Error {
  constructor(readonly code: string) {
    super(`stream error: ${code}`);
  }
}
/** The stream ended (cleanly or not) without `answer_end`. */
export class StreamInterrupted extends Error {
  constructor(cause?: unknown) {
    super('stream interrupted', { cause });
  }
}

const BY_CODE: Record<string, keyof KbChatStrings> = {
  rate_limited: 'rateLimited',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  invalid_request: 'invalidRequest',
  payload_too_large: 'tooLong',
  unavailable: 'unavailable',
};
const BY_STATUS: Record<number, keyof KbChatStrings> = {
  401: 'unauthorized',
  403: 'forbidden',
  413: 'tooLong',
  429: 'rateLimited',
  503: 'unavailable',
};

/** A stable code for `kb-error` events. */
export function errorCode(error: unknown): string {
  if (error instanceof ApiError || error instanceof StreamError) return error.code;
  if (error instanceof StreamInterrupted || error instanceof TypeError) return 'network';
  return 'internal';
}

/** `partial` = part of an answer is already on screen. */
export function userMessageFor(error: unknown, partial: boolean, s: KbChatStrings): string {
  if (error instanceof ApiError) {
    const key = BY_CODE[error.code] ?? BY_STATUS[error.status];
    if (key === 'rateLimited' && error.retryAfter)
      return format(s.rateLimitedSeconds, { seconds: Math.ceil(error.retryAfter) });
    return key ? s[key] : s.generic;
  }
  if (error instanceof StreamError) {
    const key = BY_CODE[error.code];
    return key ? s[key] : partial ? s.incomplete : s.generic;
  }
  if (error instanceof StreamInterrupted || error instanceof TypeError)
    return partial ? s.interruptedPartial : s.unreachable;
  return s.generic;
}
