/**
 * POST /api/chat (seed 000 FR-001…FR-011): embedding in, evidence check, then either a JSON refusal or an
 * SSE stream `answer_start → answer_delta… → sources → answer_end`. Everything that can fail with a clear
 * status (validation, auth, the session, the database) happens before the stream starts; after that,
 * failures are sent in-band as an `error` event.
 */
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import * as v from 'valibot';
import { ChatRequestSchema, type ChatEvent, type ChatRequest, type Refusal } from '../../protocol/index.ts';
import { requireAuth, type AuthVariables } from '../auth/jwt.ts';
import { AppError, fromStoreError } from '../http/errors.ts';
import type { ChatStore, JwtClaims } from '../store/types.ts';
import { retrieve } from '../retrieval/index.ts';
import { extractAnswer } from './extract.ts';
import { emptyKbRefusal, noEvidenceRefusal } from './refusal.ts';
import { sessionTitle } from './title.ts';

export interface ChatRouteOptions {
  store: ChatStore;
  jwtSecret: string;
  evidenceThreshold: number;
  /** How many chunks retrieval returns before the evidence gate (seed: top-K = 5). */
  matchCount?: number;
}

export function chatRoute({ store, jwtSecret, evidenceThreshold, matchCount = 5 }: ChatRouteOptions) {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.post('/', requireAuth({ secret: jwtSecret }), async function chat(c) {
    const claims = c.get('claims');
    const request = await readChatRequest(c.req.raw);

    const stats = await store.kbStats().catch(rethrowStore);
    if (stats.ready_documents === 0) return c.json(await refuse(store, claims, request, emptyKbRefusal()));

    const retrieval = await retrieve(
      store,
      { claims, question: request.message, embedding: request.embedding },
      { evidenceThreshold, matchCount },
    ).catch(rethrowStore);
    if (retrieval.kind === 'refuse') return c.json(await refuse(store, claims, request, noEvidenceRefusal()));

    const answer = extractAnswer(request.message, retrieval.chunks);
    const sessionId = await beginTurn(store, claims, request);

    return streamSSE(
      c,
      async (stream) => {
        let seq = 0;
        const send = (event: ChatEvent) =>
          stream.writeSSE({ event: event.event, data: JSON.stringify(event.data), id: `${request.message_id}:${seq++}` });

        await send({
          event: 'answer_start',
          data: { session_id: sessionId, message_id: request.message_id, confidence: retrieval.confidence, mode: retrieval.mode },
        });
        for (const text of deltas(answer.text)) await send({ event: 'answer_delta', data: { text } });
        await send({ event: 'sources', data: { citations: answer.citations } });
        const assistantId = await store.finishTurn(claims, {
          session_id: sessionId,
          reply_to: request.message_id,
          content: answer.text,
          citations: answer.citations,
          meta: { kind: 'answer', confidence: retrieval.confidence, mode: retrieval.mode },
        });
        await send({ event: 'answer_end', data: { message_id: assistantId } });
      },
      // Without onError a failure would close the stream silently; the client must learn it ended badly.
      async (error, stream) => {
        console.error('[kb-chat] stream failed', error);
        const { code, message } = fromStoreError(error);
        await stream.writeSSE({ event: 'error', data: JSON.stringify({ code, message }) });
      },
    );
  });

  return app;
}

async function readChatRequest(request: Request): Promise<ChatRequest> {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    throw new AppError(400, 'invalid_request', 'The request body must be JSON.');
  }
  const parsed = v.safeParse(ChatRequestSchema, body);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const field = issue ? v.getDotPath(issue) : null;
    throw new AppError(400, 'invalid_request', field ? `${field}: ${issue!.message}` : issue?.message ?? 'Invalid request.');
  }
  return parsed.output;
}

async function beginTurn(store: ChatStore, claims: JwtClaims, request: ChatRequest): Promise<string> {
  return store
    .beginTurn(claims, {
      session_id: request.session_id,
      message_id: request.message_id,
      content: request.message,
      title: sessionTitle(request.message),
    })
    .catch(rethrowStore);
}

/** A refusal is an answer too: it is stored in the session like any other. */
async function refuse(store: ChatStore, claims: JwtClaims, request: ChatRequest, refusal: Refusal): Promise<Refusal> {
  const sessionId = await beginTurn(store, claims, request);
  await store
    .finishTurn(claims, {
      session_id: sessionId,
      reply_to: request.message_id,
      content: refusal.message,
      citations: null,
      meta: { kind: 'refusal', reason: refusal.reason, suggestions: refusal.suggestions },
    })
    .catch(rethrowStore);
  return refusal;
}

function rethrowStore(error: unknown): never {
  throw fromStoreError(error);
}

/** The answer in a few words at a time, so the widget renders it as it arrives. */
export function* deltas(text: string, wordsPerDelta = 4): Generator<string> {
  const words = text.split(/(?<=\s)/);
  for (let i = 0; i < words.length; i += wordsPerDelta) yield words.slice(i, i + wordsPerDelta).join('');
}
