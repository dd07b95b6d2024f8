/**
 * Chat history: `GET /api/sessions` (the visitor's sessions, newest first) and
 * `GET /api/sessions/:id` (its messages with citations, oldest first). Isolation is row-level security in
 * the database: another visitor's session is not there, so it is a 404.
 */
import { Hono } from 'hono';
import * as v from 'valibot';
import type {
  AnswerContext,
  FeedbackRating,
  Generated,
  Related,
  SessionDetail,
  SessionList,
  StoredMessage,
} from '../../protocol/index.ts';
import { contextOf } from '../chat/answer.ts';
import { requireAuth, type AuthVariables, type TokenVerification } from '../auth/jwt.ts';
import { storedRefusal } from '../chat/refusal.ts';
import { AppError, fromStoreError } from '../http/errors.ts';
import type { ChatStore, MessageRow } from '../store/types.ts';

const Limit = v.pipe(v.string(), v.transform(Number), v.integer(), v.minValue(1), v.maxValue(200));
const Uuid = v.pipe(v.string(), v.uuid());

export function historyRoute({ store, auth }: { store: ChatStore; auth: TokenVerification }) {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.use('*', requireAuth(auth));

  app.get('/', async function listSessions(c) {
    const raw = c.req.query('limit');
    const limit = raw === undefined ? 50 : v.safeParse(Limit, raw);
    if (typeof limit !== 'number' && !limit.success) {
      throw new AppError(400, 'invalid_request', 'limit: must be a whole number from 1 to 200');
    }
    const sessions = await store
      .listSessions(c.get('claims'), typeof limit === 'number' ? limit : limit.output)
      .catch(rethrow);
    return c.json<SessionList>({ sessions });
  });

  app.get('/:id', async function getSession(c) {
    const id = c.req.param('id');
    if (!v.is(Uuid, id)) throw new AppError(400, 'invalid_request', 'id: must be a UUID');
    const claims = c.get('claims');
    const session = await store.getSession(claims, id).catch(rethrow);
    if (!session) throw new AppError(404, 'not_found', 'No such chat session.');
    const [messages, feedback] = await Promise.all([
      store.getMessages(claims, id),
      store.getFeedback(claims, id),
    ]).catch(rethrow);
    const ratings = new Map(feedback.map((f) => [f.message_id, f.rating]));
    return c.json<SessionDetail>({ session, messages: messages.map((m) => toStoredMessage(m, ratings.get(m.id))) });
  });

  return app;
}

function toStoredMessage(row: MessageRow, rating: FeedbackRating | undefined): StoredMessage {
  const meta = row.meta as {
    kind?: string;
    reason?: string;
    suggestions?: string[];
    actions?: string[];
    closest?: Related[];
    related?: Related[];
    generated?: Generated;
    context?: AnswerContext;
  };
  return {
    id: row.id,
    role: row.role,
    content: row.content,
    citations: row.citations,
    ...(Array.isArray(meta.related) && meta.related.length > 0 ? { related: meta.related } : {}),
    ...(meta.kind === 'refusal' ? { refusal: { reason: meta.reason ?? 'no_evidence', ...storedRefusal(meta) } } : {}),
    ...(meta.generated ? { generated: { text: meta.generated.text, model: meta.generated.model } } : {}),
    ...(rating === undefined ? {} : { feedback: rating }),
    ...(meta.context?.used ? { context: contextOf(meta.context) } : {}),
    created_at: row.created_at,
  };
}

function rethrow(error: unknown): never {
  throw fromStoreError(error);
}
