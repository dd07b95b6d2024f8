/**
 * A question of a conversation that the detector (protocol/context.ts) reads as complete is searched as in a
 * new session. When that answer is a guess — its first passage is on a page whose title holds none of the
 * question's own words, and that page is off the pages the conversation cited — the question is searched
 * once more within the thread (the pages earlier answers cited, its own words required there, as for a
 * complete question refused alone), and the thread's answer is taken when its first passage is on the
 * thread. "Does Railway keep checking it after the deployment is live?" after a question about healthchecks
 * goes to Skipped Builds alone (the words "checking" and "deployment"), to Healthchecks in the thread.
 *
 * Not in keyword mode (a question without an embedding): there the thread's pages count the earlier topic as
 * present in coverage, and the demo's "Which browsers are supported?" after the evidence threshold was answered
 * with the Configuration page (server/chat/follow-ups.test.ts).
 *
 * A topic switch names the page it moves to ("How many services can I have in a project during the free
 * trial?" answered on Free Trial, "How do I get production source maps from vite build?" on Build Options):
 * it is answered as alone, with no extra query. So is a question answered on the thread's own page (nothing
 * to move to), and a question without a session or whose session has no answered turn (no thread to read).
 * The cost: a question that meets the first condition reads the session's last messages (bounded, as for a
 * follow-up) and, when the conversation has cited pages and its answer is off them, makes one more
 * `search_chunks` call. Measured on four sites, leave-one-site-out (docs/conversation.md, eleventh pass).
 */
import type { ChunkMatch, JwtClaims, ChatStore } from '../store/types.ts';
import { retrieve, type RetrievalOptions, type Retrieval, type RetrieveInput } from '../retrieval/index.ts';
import { threadOf, type FollowUp, type FollowUpRequest } from './context.ts';
import { ownWords, sameWord } from './follow-up-units.ts';
import { contentWords } from './text.ts';

type Answered = Extract<Retrieval, { kind: 'answer' }>;

/** The thread's answer and the thread, when the question is answered there instead (see the file's comment). */
export async function threadAnswer(
  store: ChatStore,
  claims: JwtClaims,
  request: FollowUpRequest,
  question: Omit<RetrieveInput, 'context'>,
  alone: Answered,
  options: RetrievalOptions,
): Promise<[Answered, FollowUp] | null> {
  // Keyword mode is left out: with no embedding, coverage on the thread's pages (where the earlier topic counts as
  // present) answered the demo's "Which browsers are supported?" after the evidence threshold with Configuration.
  if (options.mode === 'lexical' || !question.embedding || namesPageOf(request.query, alone.chunks[0]!)) return null;
  const thread = await threadOf(store, claims, request);
  if (!thread || !offThread(thread, alone.chunks[0]!)) return null;
  const again = await retrieve(store, { ...question, context: { ...thread.sql, own_required: true } }, options);
  return again.kind === 'answer' && !offThread(thread, again.chunks[0]!) ? [again, thread] : null;
}

/**
 * Whether the title of the page `chunk` is on holds one of the question's own words (pointing words and the
 * words of "how many", "how long" aside; matched loosely, "build" holds "builds"): the question names it.
 */
export function namesPageOf(question: string, chunk: Pick<ChunkMatch, 'document_title'>): boolean {
  const own = ownWords(question);
  return contentWords(chunk.document_title).some((w) => own.some((o) => sameWord(o, w)));
}

/** Whether the conversation has cited pages and `chunk` is on none of them. */
export function offThread(thread: Pick<FollowUp, 'sql'>, chunk: Pick<ChunkMatch, 'document_id'>): boolean {
  const pages = [...thread.sql.documents, ...thread.sql.thread];
  return pages.length > 0 && !pages.includes(chunk.document_id);
}
