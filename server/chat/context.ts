/**
 * Follow-ups (protocol/context.ts decides which questions are): what the turn before a follow-up gives it.
 * The earlier question's topic words (and those it borrowed itself), searched at half weight, and the
 * documents and sections its answer cited, preferred by `search_chunks` (migration
 * 20261126070000_conversation_context.sql). A question that does not depend on the conversation reads
 * nothing here, so it is answered exactly as in a new session.
 */
import {
  borrowedTerms,
  contextualText,
  dependsOnContext,
  earlierTopic,
  pointsBack,
  topicWords,
  withoutPointingWords,
  type AnswerContext,
  type Citation,
} from '../../protocol/index.ts';
import type { ChatStore, JwtClaims, MessageRow } from '../store/types.ts';
import { contentWords } from './text.ts';

/**
 * Messages read at most: the last three turns. The latest is what a follow-up leans on; the two before it
 * pass on a topic through a follow-up that was refused (earlierTopic), without reading a long session whole.
 */
export const RECENT_MESSAGES = 6;

export interface FollowUp {
  /** The earlier topic words the question borrows (shown as "About: …"). */
  terms: string[];
  /** The question with the borrowed words after it: what extraction scores and the widget embeds. */
  text: string;
  /** The answer given to the turn before: extraction does not quote its units again (follow-up-units.ts). */
  earlierAnswer?: string;
  /** What `search_chunks` reads under `filters.context`. */
  /** `points_back`: the question says it, its, they… (protocol/context.ts `pointsBack`). */
  /** `thread`: the documents earlier answers cited, newest first, after the last answer's `documents`. */
  sql: { terms: string; documents: string[]; thread: string[]; sections: string[]; points_back: boolean };
  context: AnswerContext;
}

export interface FollowUpRequest {
  session_id?: string;
  message_id: string;
  /** The question as searched (the message, cut to what the model reads). */
  query: string;
  /** `false`: "Ask as a new question", no context. */
  context?: boolean;
}

/** The context of a follow-up, or null for a question that stands alone (or has nothing before it). */
export async function followUpOf(
  store: Pick<ChatStore, 'recentMessages'>,
  claims: JwtClaims,
  request: FollowUpRequest,
): Promise<FollowUp | null> {
  if (!dependsOnContext(request.query)) return null;
  return threadOf(store, claims, request);
}

/**
 * The conversation's thread for any question of a session, follow-up or not: what a question the detector
 * reads as complete gets when it would be refused alone ("How quickly do you answer on Pro?" after a
 * question about support), so that it is refused only when its own words find no evidence on the thread's
 * pages either (server/chat/answer.ts).
 */
export async function threadOf(
  store: Pick<ChatStore, 'recentMessages'>,
  claims: JwtClaims,
  request: FollowUpRequest,
): Promise<FollowUp | null> {
  if (request.context === false || !request.session_id) return null;
  // Newest first; another visitor's session reads as empty (row-level security), like a new one.
  const recent = (await store.recentMessages(claims, request.session_id, RECENT_MESSAGES)).filter(
    (m) => m.id !== request.message_id,
  );
  return followUpFrom(request.query, recent);
}

/** Pure: the follow-up context from the session's last messages, newest first. */
export function followUpFrom(question: string, recent: MessageRow[]): FollowUp | null {
  // The user turns newest first, each with the answer that follows it (newer in the list, so just before).
  const turns = recent.flatMap((m, i) => {
    if (m.role !== 'user') return [];
    const reply = i > 0 && recent[i - 1]!.role === 'assistant' ? recent[i - 1]! : null;
    const about = aboutOf(reply);
    return [{ question: m.content, reply, ...(about ? { about } : {}) }];
  });
  const earlier = earlierTopic(turns);
  if (!earlier) return null;
  const reply = turns[0]!.reply;
  const terms = borrowedTerms(question, earlier.question, earlier.about ? earlier.about.split(' ') : []);
  const cited = citedBy(reply);
  // The thread: the pages every earlier answer read here cited, newest first (search_chunks searches the
  // question's own words within them, migration 20261127030000).
  const documents = [...new Set(cited.map((c) => c.document_id))];
  const thread = [...new Set(turns.slice(1).flatMap((t) => citedBy(t.reply).map((c) => c.document_id)))].filter(
    (d) => !documents.includes(d),
  );
  if (terms.length === 0 && cited.length === 0) return null;
  const about = terms.join(' ');
  return {
    terms,
    text: contextualText(question, terms),
    ...(reply?.content ? { earlierAnswer: reply.content } : {}),
    sql: {
      terms: about,
      documents,
      thread,
      sections: [...new Set(cited.flatMap((c) => (c.section ? [c.section] : [])))],
      points_back: pointsBack(question),
    },
    context: { used: true, ...(about ? { about } : {}) },
  };
}

function citedBy(reply: MessageRow | null): Citation[] {
  return reply && Array.isArray(reply.citations) ? (reply.citations as Citation[]) : [];
}

/** What an earlier answer was about, when it was itself answered in context. */
function aboutOf(reply: MessageRow | null): string | null {
  const context = (reply?.meta as { context?: AnswerContext } | undefined)?.context;
  return context?.used && typeof context.about === 'string' ? context.about : null;
}

/**
 * Whether an answer found for a follow-up searched as a new question (its own words in the text search, the
 * browser's embedding holding the borrowed ones; server/chat/answer.ts) rests on what the follow-up itself asks: it points back (its pronoun stands for the
 * borrowed words), it has no word of its own, or one of the retrieved chunks holds one of its own words. A
 * follow-up none of whose words any retrieved chunk holds ("And lunch?" after the evidence threshold) asks
 * about something the knowledge base does not have; the earlier topic's words alone would answer it with the
 * earlier page.
 */
export function restsOnOwnWords(question: string, chunks: { content: string }[]): boolean {
  const own = new Set(contentWords(question));
  if (own.size === 0 || pointsBack(question)) return true;
  return chunks.some((c) => contentWords(c.content).some((w) => own.has(w)));
}

/**
 * Whether a passage holds one of the question's own words (pointing words and stopwords aside): what a
 * follow-up's retry answered below the keyword gate must quote (server/chat/answer.ts keywordRetryOptions).
 */
export function holdsOwnWord(question: string, chunk: { content: string }): boolean {
  const own = new Set(contentWords(withoutPointingWords(question)));
  return contentWords(chunk.content).some((w) => own.has(w));
}

/**
 * The text a follow-up refused within the thread is searched with as a new question (server/chat/answer.ts):
 * the question without its pointing words ("mine" or "one" stand for the borrowed words, and to full text they
 * are rare words the pages lack), then the words it borrows (the words the browser embeds for it), as many as
 * it has topic words of its own, nearest turn's first — all of them when it has one or none. A follow-up
 * names only part of what it asks: "What happens if it's already taken?" searched as "happens already taken"
 * was refused in keyword mode where its complete rewrite, which names the dev server's port, is answered. But
 * all of the borrowed words at full weight outweighed a follow-up's own: on Railway in keyword mode "Can I
 * install it with Homebrew?" (borrowing eight words of a thread that had gone astray) was refused where its
 * own words answer it. As many borrowed words as own ones keeps the question's words at least half of what is
 * searched, as `search_chunks` weighs borrowed terms at most as much as the question's own. The borrowed words
 * come only when the conversation has an answered turn: those of a refused question ("Can I pay with
 * bitcoin?") are about something the knowledge base does not hold, and would sink a question that has nothing
 * to do with them.
 */
export function newQuestionText(question: string, followUp: Pick<FollowUp, 'terms' | 'sql'>): string {
  const own = withoutPointingWords(question);
  if (!lendsWords(followUp)) return own || question;
  const count = topicWords(question).length;
  const borrowed = count <= 1 ? followUp.terms : followUp.terms.slice(0, count);
  return `${own} ${borrowed.join(' ')}`.trim();
}

/** Whether a refused follow-up's retry as a new question carries borrowed words: an answered turn lends them. */
export function lendsWords(followUp: Pick<FollowUp, 'terms' | 'sql'>): boolean {
  const answered = followUp.sql.documents.length > 0 || followUp.sql.thread.length > 0;
  return answered && followUp.terms.length > 0;
}
