/**
 * Questions through the real API code path: `createApp` over the eval's store and `app.request()`, exactly
 * as server/app.test.ts does, with anonymous sign-in, the SSE stream read to its end, refusals as JSON.
 */
import type { AnswerContext, Citation, Refusal, RetrievalMode } from '../../protocol/index.ts';
import { createApp } from '../../server/app.ts';
import type { Embedder } from '../../server/ingest/embedder.ts';
import type { RetrievalOptions } from '../../server/retrieval/index.ts';
import type { PgliteStore } from '../../server/store/pglite.ts';
import { readChatEvents } from '../../protocol/sse.ts';

export type Reply =
  | {
      kind: 'answer';
      text: string;
      citations: Citation[];
      mode: RetrievalMode | undefined;
      ms: number;
      session_id?: string;
      context?: AnswerContext;
    }
  | { kind: 'refusal'; reason: Refusal['reason']; ms: number };

/** A turn of a conversation: its session (absent for the first) and `context: false` to ask it as new. */
export interface TurnOptions {
  session_id?: string;
  context?: boolean;
}

export interface Asker {
  ask(question: string, embedding: number[] | undefined, turn?: TurnOptions): Promise<Reply>;
  /** One visitor for a whole conversation (a session is its visitor's only). */
  visitor(): Promise<Asker>;
}

const SECRET = 'kb-chat-eval-secret-0123456789abcdef';
/** A fresh visitor every few questions keeps the eval under any per-visitor rate limit. */
const QUESTIONS_PER_VISITOR = 5;

export function createAsker(
  store: PgliteStore,
  options: { evidenceThreshold: number; retrieval?: Partial<RetrievalOptions>; repeatWeight?: number },
): Asker {
  const app = createApp({
    store,
    localAuth: store,
    jwtSecret: SECRET,
    evidenceThreshold: options.evidenceThreshold,
    embedModel: 'eval',
    retrieval: options.retrieval,
    ...(options.repeatWeight !== undefined ? { repeatWeight: options.repeatWeight } : {}),
  });
  let token: string | null = null;
  let asked = 0;

  async function signIn(): Promise<string> {
    const res = await app.request('/api/auth/anonymous', { method: 'POST' });
    if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { access_token: string }).access_token;
  }

  async function askAs(
    token: string,
    question: string,
    embedding: number[] | undefined,
    turn: TurnOptions = {},
  ): Promise<Reply> {
    const started = performance.now();
    const res = await app.request('/api/chat', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', Authorization: `Bearer ${token}` },
      body: JSON.stringify({
        message: question,
        message_id: crypto.randomUUID(),
        ...(embedding ? { embedding } : {}),
        ...turn,
      }),
    });
    if (res.status !== 200) throw new Error(`chat failed: ${res.status} ${await res.text()}`);
    if (res.headers.get('content-type')?.startsWith('application/json')) {
      const body = (await res.json()) as Refusal;
      return { kind: 'refusal', reason: body.reason, ms: performance.now() - started };
    }
    let text = '';
    let citations: Citation[] = [];
    let mode: RetrievalMode | undefined;
    let session: string | undefined;
    let context: AnswerContext | undefined;
    for (const { event } of await readChatEvents(res)) {
      if (event.event === 'answer_start') ({ mode, session_id: session, context } = event.data);
      if (event.event === 'answer_delta') text += event.data.text;
      if (event.event === 'sources') citations = event.data.citations;
      if (event.event === 'error') throw new Error(`stream error: ${event.data.code} ${event.data.message}`);
    }
    return {
      kind: 'answer',
      text,
      citations,
      mode,
      ms: performance.now() - started,
      session_id: session,
      ...(context ? { context } : {}),
    };
  }

  return {
    async ask(question, embedding, turn) {
      if (token === null || asked++ % QUESTIONS_PER_VISITOR === 0) token = await signIn();
      return askAs(token, question, embedding, turn);
    },
    async visitor() {
      const own = await signIn();
      const asker: Asker = {
        ask: (question, embedding, turn) => askAs(own, question, embedding, turn),
        visitor: async () => asker,
      };
      return asker;
    },
  };
}

/**
 * Asks `questions` one after another. The browser embeds the question; here all are embedded first, before
 * any clock starts for an API call (lexical mode sends no embedding).
 */
export async function askAll(
  asker: Asker,
  embedder: Embedder,
  mode: RetrievalMode,
  questions: string[],
  onAsked?: (done: number) => void,
): Promise<Reply[]> {
  const embeddings = mode === 'lexical' ? null : await embedder.embed(questions);
  const replies: Reply[] = [];
  for (const [i, q] of questions.entries()) {
    replies.push(await asker.ask(q, embeddings?.[i]));
    onAsked?.(i + 1);
  }
  return replies;
}
