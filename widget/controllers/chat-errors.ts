/**
 * The ways a question can fail after it was sent, and plain words for each. Server messages are never shown verbatim: a 5xx message is
 * internal, and a code is a stable contract while its English text is not.
 */
import { ApiError } from '../api/api-client.ts';

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

const BY_CODE: Record<string, string> = {
  rate_limited: 'You are sending questions too quickly. Please wait a moment and try again.',
  unauthorized: 'Your session could not be verified. Please reload the page and try again.',
  forbidden: 'You are not allowed to ask questions here.',
  invalid_request: 'That question could not be sent. Please rephrase it and try again.',
  payload_too_large: 'That question is too long. Please shorten it.',
  unavailable: 'The assistant is temporarily unavailable. Please try again in a moment.',
};

const BY_STATUS: Record<number, string> = {
  401: BY_CODE.unauthorized!,
  403: BY_CODE.forbidden!,
  413: BY_CODE.payload_too_large!,
  429: BY_CODE.rate_limited!,
  503: BY_CODE.unavailable!,
};

const GENERIC = 'Something went wrong. Please try again.';

/** `partial` = part of an answer is already on screen. */
export function userMessageFor(error: unknown, partial: boolean): string {
  if (error instanceof ApiError) return BY_CODE[error.code] ?? BY_STATUS[error.status] ?? GENERIC;
  if (error instanceof StreamError) {
    return BY_CODE[error.code] ?? (partial ? 'The answer could not be completed. Please try again.' : GENERIC);
  }
  if (error instanceof StreamInterrupted || error instanceof TypeError) {
    return partial
      ? 'The connection was lost before the answer was complete. Please try again.'
      : 'Could not reach the server. Please check your connection and try again.';
  }
  return GENERIC;
}
