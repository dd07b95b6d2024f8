/**
 * `POST /api/feedback`: 👍 / 👎 on one of the visitor's own answers or refusals, with an optional
 * comment; a second rating of the same answer replaces the first. Authenticated, validated before anything
 * touches the database, and rate limited with the chat and search budget. Ownership is decided in the
 * database (`chat_set_feedback` checks the caller's session): another visitor's answer, a question, or an id
 * that does not exist are the same 404, so ids cannot be probed.
 */
import { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import { FeedbackRequestSchema, type FeedbackRequest, type FeedbackResponse } from '../../protocol/index.ts';
import { requireAuth, type AuthVariables, type TokenVerification } from '../auth/jwt.ts';
import { parseBody, readJson } from '../http/body.ts';
import { cleanText } from '../chat/request.ts';
import { AppError, fromStoreError } from '../http/errors.ts';
import { rateLimit, type RateLimitOptions } from '../http/rate-limit.ts';
import { StoreError, type ChatStore } from '../store/types.ts';
import { visitorId, type Webhooks } from '../webhooks/dispatcher.ts';
import { waitUntilOf } from '../webhooks/wait-until.ts';

export interface FeedbackRouteOptions {
  store: ChatStore;
  auth: TokenVerification;
  rateLimit: Omit<RateLimitOptions, 'store'>;
  /** `answer.rated` goes out here (server/webhooks); none when unset. */
  webhooks?: Webhooks;
}

/** Reads and validates the body; a comment loses control characters and lone surrogates first (as a question does). */
export async function readFeedbackRequest(request: Request): Promise<FeedbackRequest> {
  const body = await readJson(request);
  if (body && typeof body === 'object' && typeof (body as { comment?: unknown }).comment === 'string') {
    (body as { comment: string }).comment = cleanText((body as { comment: string }).comment);
  }
  return parseBody(FeedbackRequestSchema, body);
}

export function feedbackRoute({ store, auth, rateLimit: limits, webhooks }: FeedbackRouteOptions) {
  const app = new Hono<{ Variables: AuthVariables & { feedback: FeedbackRequest } }>();

  // As for chat: an invalid body costs no database work, not even a rate-limit count.
  const validate = createMiddleware<{ Variables: { feedback: FeedbackRequest } }>(async (c, next) => {
    c.set('feedback', await readFeedbackRequest(c.req.raw));
    await next();
  });

  app.post('/', requireAuth(auth), validate, rateLimit({ store, ...limits }), async function feedback(c) {
    const { message_id, rating, comment } = c.get('feedback');
    const stored = await store
      .setFeedback(c.get('claims'), { message_id, rating, comment: comment ?? null })
      .catch((error: unknown) => {
        if (error instanceof StoreError && error.kind === 'forbidden')
          throw new AppError(404, 'not_found', 'No such answer.', { cause: error });
        throw fromStoreError(error);
      });
    // Once stored, and off the request path (a slow receiver never delays the visitor's 👍).
    const visitor = c.get('claims').sub;
    webhooks?.emit(
      'answer.rated',
      visitorId(visitor).then((id) => ({
        message_id: stored.message_id,
        visitor: id,
        rating: stored.rating,
        comment: stored.comment,
        rated_at: stored.updated_at,
      })),
      { waitUntil: waitUntilOf(c) },
    );
    return c.json<FeedbackResponse>(stored);
  });

  return app;
}
