/**
 * One error type, thrown anywhere before a response starts, and one handler that turns it into
 * `{error:{code,message}}`. Anything else becomes a 500 whose internal message never reaches the client.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ErrorBody, ErrorCode } from '../../protocol/index.ts';
import { StoreError } from '../store/types.ts';

export class AppError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AppError';
  }
}

/** Translates a store failure into what the visitor may be told. */
export function fromStoreError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof StoreError) {
    switch (error.kind) {
      case 'conflict':
        return new AppError(409, 'conflict', 'This message id was already used.', { cause: error });
      // Row-level security refused: the session belongs to somebody else. Say "not found", not "forbidden",
      // so that session ids cannot be probed.
      case 'forbidden':
        return new AppError(404, 'not_found', 'No such chat session.', { cause: error });
      // A SQL function refused an argument that got past the API's validation (the route says which, when it can).
      case 'invalid':
        return new AppError(400, 'invalid_request', 'The request is not valid.', { cause: error });
      case 'unavailable':
        return new AppError(503, 'unavailable', 'The knowledge base is unavailable. Please try again shortly.', {
          cause: error,
        });
    }
  }
  return new AppError(500, 'internal', 'Something went wrong on our side.', { cause: error });
}

/** Retry-After of a 503 for an unavailable database. */
export const STORE_RETRY_AFTER_SECONDS = 5;

export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { error: { code, message } };
}

export function onAppError(error: Error, c: Context): Response {
  const appError = fromStoreError(error);
  // A 503 without a cause is load shedding (admission, stream slots): expected under load, not worth a log
  // line per visitor. A failure with a cause (the database) is logged.
  if (appError.status >= 500 && (appError.status !== 503 || appError.cause)) console.error('[kb-chat]', error);
  // A database that is unavailable now is worth one more try in a few seconds (the widget waits and retries
  // once); load shedding has set its own Retry-After already.
  if (appError.status === 503 && !c.res.headers.has('Retry-After'))
    c.header('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
  return c.json(errorBody(appError.code, appError.message), appError.status);
}
