/**
 * POST /api/chat: authenticate, rate-limit, validate, then answer the turn — a
 * JSON refusal, an SSE stream (`answer_start → answer_delta… → sources → answer_end`), or, with
 * `Accept: application/json`, the whole answer as one JSON body (for callers that cannot read a stream). Everything that can
 * fail with a clear status happens before the stream starts; after that, failures arrive as an in-band
 * `error` event.
 *
 * POST /api/chat/:answer_id/generated (generative mode): the answer the visitor's model wrote from
 * the passages of their answer `answer_id`, stored against it once (the first one stays) — only while the
 * answer mode in effect is generative and only under the configured generation model's name. The database
 * cannot check either (the server's default mode is not stored there); it refuses a caller without the
 * server's answer write key instead, so this route is the only way in.
 */
import { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import { GeneratedRequestSchema, type ChatAnswer, type Generated } from '../../protocol/index.ts';
import { requireAuth, type AuthVariables, type TokenVerification } from '../auth/jwt.ts';
import { AppError } from '../http/errors.ts';
import { rateLimit, type RateLimitOptions } from '../http/rate-limit.ts';
import type { RetrievalOptions } from '../retrieval/index.ts';
import { StoreError, type ChatStore, type JwtClaims } from '../store/types.ts';
import { visitorId, type Webhooks } from '../webhooks/dispatcher.ts';
import { waitUntilOf } from '../webhooks/wait-until.ts';
import { answerTurn, storeAnswer, type AnswerTurnOptions } from './answer.ts';
import { parseBody, readJson } from '../http/body.ts';
import { readChatRequest, type ReadChatRequest } from './request.ts';
import { answerEvents, streamAnswer, type StreamOptions } from './stream.ts';
import { DEFAULT_ANSWER_MODE } from '../config/defaults.ts';

export interface ChatRouteOptions {
  store: ChatStore;
  auth: TokenVerification;
  rateLimit: Omit<RateLimitOptions, 'store'>;
  retrieval: RetrievalOptions;
  streaming: StreamOptions;
  /** Open streams on this instance; past `max`, new questions get 503 until one ends. */
  streams: StreamSlots;
  /** The settings in effect, read once per question (server/settings). */
  settings?: AnswerTurnOptions['settings'];
  /** KB_GENERATION_MODEL: the only model name a written answer is stored under. */
  generationModel: string;
  /** `question.refused` goes out here (server/webhooks); none when unset. */
  webhooks?: Webhooks;
  /** For scripts/eval/thread-sweep.ts only (AnswerTurnOptions.repeatWeight); unset everywhere else. */
  repeatWeight?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function chatRoute({
  store,
  auth,
  rateLimit: limits,
  retrieval,
  streaming,
  streams,
  settings,
  generationModel,
  webhooks,
  repeatWeight,
}: ChatRouteOptions) {
  const app = new Hono<{ Variables: AuthVariables & { chatRequest: ReadChatRequest; generated: Generated } }>();

  // The body is read and validated before the rate limiter: an invalid request costs no database work and
  // writes nothing, not even a rate-limit count.
  const validate = createMiddleware<{ Variables: { chatRequest: ReadChatRequest } }>(async (c, next) => {
    c.set('chatRequest', await readChatRequest(c.req.raw));
    await next();
  });

  app.post('/', requireAuth(auth), validate, rateLimit({ store, ...limits }), async function chat(c) {
    const claims = c.get('claims');
    const request = c.get('chatRequest');
    const wantsJson = prefersJson(c.req.header('Accept'));
    if (!wantsJson && !streams.tryAcquire()) {
      c.header('Retry-After', '2');
      throw new AppError(503, 'unavailable', 'Too many conversations at once. Please try again in a moment.');
    }
    const release = wantsJson ? () => {} : once(() => streams.release());
    try {
      const outcome = await answerTurn(store, claims, request, retrieval, {
        settings,
        ...(repeatWeight !== undefined ? { repeatWeight } : {}),
      });
      if (outcome.kind === 'refusal') {
        release();
        // After the refusal is stored, off the request path: the visitor's answer never waits for it. A
        // retried request repeats the event with the same id (the refusal's), so receivers can drop it.
        if (webhooks && outcome.refusal.message_id) {
          webhooks.emit(
            'question.refused',
            refusedEvent(claims, request.message_id, request.message, outcome.session_id, outcome.refusal),
            {
              id: `evt_${outcome.refusal.message_id}`,
              waitUntil: waitUntilOf(c),
            },
          );
        }
        return c.json(outcome.refusal);
      }
      if (wantsJson) {
        const answerId = outcome.answer_message_id ?? (await storeAnswer(store, claims, outcome));
        return c.json<ChatAnswer>({
          type: 'answer',
          session_id: outcome.session_id,
          message_id: outcome.message_id,
          answer_message_id: answerId,
          text: outcome.text,
          citations: outcome.citations,
          ...(outcome.related.length > 0 ? { related: outcome.related } : {}),
          confidence: outcome.confidence,
          mode: outcome.mode,
          ...(outcome.warning ? { warning: outcome.warning } : {}),
          ...(outcome.passages ? { passages: outcome.passages } : {}),
          ...(outcome.generated ? { generated: outcome.generated } : {}),
          ...(outcome.context ? { context: outcome.context } : {}),
          event_count: answerEvents(outcome, answerId).length,
        });
      }
      return streamAnswer(c, outcome, (o) => storeAnswer(store, claims, o), streaming, release);
    } catch (error) {
      release();
      throw error;
    }
  });

  app.post(
    '/:answer_id/generated',
    requireAuth(auth),
    async (c, next) => {
      // Validated before the rate limiter, like a question: a bad request writes nothing, not even a count.
      if (!UUID.test(c.req.param('answer_id'))) throw new AppError(400, 'invalid_request', 'answer_id: must be a UUID');
      const generated = parseBody(GeneratedRequestSchema, await readJson(c.req.raw));
      // A written answer is shown in the console as the configured model's: any other name is refused, and in
      // extractive mode there is nothing to store (the widget writes nothing then). Before the rate limiter, so
      // a refused request counts nothing; reading the settings writes nothing either.
      if (generated.model !== generationModel) {
        throw new AppError(
          400,
          'invalid_request',
          'model: must be the generation model this server is configured with',
        );
      }
      // Without a settings reader, extractive, as answerTurn decides (the app's reader never rejects).
      if (((await settings?.())?.answerMode ?? DEFAULT_ANSWER_MODE) !== 'generative') {
        throw new AppError(409, 'conflict', 'Written answers are stored only in generative mode.');
      }
      c.set('generated', generated);
      await next();
    },
    rateLimit({ store, ...limits }),
    async function saveGenerated(c) {
      const stored = await store
        .saveGenerated(c.get('claims'), c.req.param('answer_id'), c.get('generated'))
        .catch((error: unknown) => {
          // The only argument SQL checks beyond the schema: every [n] must be one of the answer's citations.
          if (error instanceof StoreError && error.kind === 'invalid') {
            throw new AppError(
              400,
              'invalid_request',
              "text: cites a source that is not one of this answer's citations",
              { cause: error },
            );
          }
          // Someone else's answer, a refusal, or no such message: one answer, so ids cannot be probed.
          if (error instanceof StoreError && error.kind === 'forbidden')
            throw new AppError(404, 'not_found', 'No such answer.', { cause: error });
          throw error;
        });
      return c.json<Generated>(stored);
    },
  );

  return app;
}

/** The `question.refused` event's data, for the chat route and /mcp (server/mcp/tools.ts). */
export async function refusedEvent(
  claims: JwtClaims,
  questionId: string,
  question: string,
  sessionId: string,
  refusal: { reason: string; message_id?: string },
) {
  return {
    message_id: refusal.message_id!,
    question_id: questionId,
    session_id: sessionId,
    visitor: await visitorId(claims.sub),
    question,
    reason: refusal.reason,
  };
}

/** JSON only when the client asks for it and not for an event stream. */
function prefersJson(accept: string | undefined): boolean {
  return !!accept && accept.includes('application/json') && !accept.includes('text/event-stream');
}

/** Default cap on open answer streams per instance (AppDeps.streaming.maxConcurrent). */
export const DEFAULT_MAX_STREAMS = 100;

/**
 * Open answer streams. A slot is released when its stream has ended *and* its answer is stored (stream.ts
 * calls `onClose` last): `open` is 0 once no answer is left to store (graceful shutdown waits for that).
 */
export class StreamSlots {
  private count = 0;
  constructor(readonly max: number = DEFAULT_MAX_STREAMS) {}
  get open(): number {
    return this.count;
  }
  tryAcquire(): boolean {
    if (this.count >= this.max) return false;
    this.count += 1;
    return true;
  }
  release(): void {
    this.count = Math.max(0, this.count - 1);
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (!done) {
      done = true;
      fn();
    }
  };
}
