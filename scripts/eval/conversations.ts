/**
 * The conversation evaluation (`npm run eval -- --qa <conversations.json>`): follow-up questions asked in
 * one session through the real API, as the widget asks them (the browser embeds the contextual text of a
 * follow-up, protocol/context.ts). For each later turn: fact in answer and right page first; the same for
 * its `standalone` rewrite asked in a fresh session (the ceiling); and for every topic switch (a complete
 * question on another page after a conversation), the switch against the same question asked alone.
 * `--no-context` asks every turn with `context: false` (what kb-chat did before follow-ups).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as v from 'valibot';
import { dependsOnContext, followUpText, type RetrievalMode } from '../../protocol/index.ts';
import type { Embedder } from '../../server/ingest/embedder.ts';
import type { RetrievalOptions } from '../../server/retrieval/index.ts';
import { createAsker, type Reply } from './ask.ts';
import { containsFact, percentile, ratio } from './metrics.ts';
import { buildKb } from './squad.ts';

const TurnSchema = v.object({
  q: v.string(),
  expect: v.pipe(v.array(v.string()), v.minLength(1)),
  /** The answering page, relative to the corpus folder. */
  source: v.string(),
  /** The question rewritten to stand alone: what a perfect reading of the follow-up would ask. */
  standalone: v.optional(v.string()),
});
const ConversationSchema = v.object({ turns: v.pipe(v.array(TurnSchema), v.minLength(2)) });
const OffTopicSchema = v.object({
  turns: v.pipe(v.array(TurnSchema), v.minLength(1)),
  follow_up: v.object({ q: v.string(), standalone: v.string() }),
});

export const ConversationFileSchema = v.object({
  name: v.string(),
  corpus: v.string(),
  conversations: v.array(ConversationSchema),
  /** Conversations whose last turn is a complete question about something else. */
  topic_switch: v.optional(v.array(ConversationSchema), []),
  /**
   * Conversations ending on a follow-up about something the site does not cover ("And how do I change its
   * colour?" after adding the widget, on a knowledge base that never names a colour): answered turns, then
   * the follow-up and its complete rewrite. The target is a refusal, in the thread as when asked complete.
   */
  off_topic: v.optional(v.array(OffTopicSchema), []),
});
export type ConversationFile = v.InferOutput<typeof ConversationFileSchema>;
export type Turn = v.InferOutput<typeof TurnSchema>;

export function isConversationFile(json: unknown): boolean {
  return !!json && typeof json === 'object' && 'conversations' in json;
}

export async function readConversationFile(file: string): Promise<ConversationFile> {
  const parsed = v.safeParse(ConversationFileSchema, JSON.parse(await readFile(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file}: ${v.summarize(parsed.issues)}`);
  return parsed.output;
}

export interface Score {
  n: number;
  fact_in_answer: number;
  right_page_first: number;
}

export interface ConversationReport {
  follow_ups: Score;
  standalone: Score;
  topic_switch: Score;
  topic_switch_alone: Score;
  /** Later turns refused in the conversation. */
  refused: number;
  /** Of those, the ones whose standalone rewrite is answered when asked alone (the target is 0). */
  refused_in_thread: number;
  /** Of those, the ones whose standalone answer holds the fact. */
  refused_in_thread_fact: number;
  /** Off-topic follow-ups (`off_topic`): how many, refused in the thread, refused when asked complete. */
  off_topic: number;
  off_topic_refused: number;
  off_topic_refused_alone: number;
  /** Of the off-topic follow-ups answered in the thread, the ones quoting the earlier answer's first sentence. */
  off_topic_repeated: number;
  /** Share of later turns read as follow-ups, and of first turns and standalone rewrites (complete questions). */
  detector_follow_ups: number;
  detector_complete: number;
  p50_ms: number;
}

export interface TurnResult {
  turn: Turn;
  reply: Reply;
  cited: string[];
  fact: boolean;
}

/** An off-topic follow-up's reply (there is no fact to find: the right reply is a refusal). */
export interface OffTopicResult {
  q: string;
  reply: Reply;
}

export interface ConversationEvalOptions {
  file: ConversationFile;
  embedder: Embedder;
  mode: RetrievalMode;
  evidenceThreshold: number;
  retrieval?: Partial<RetrievalOptions>;
  /** Ask every turn as a new question (`context: false`, the question alone embedded). */
  noContext?: boolean;
}

export async function evaluateConversations(options: ConversationEvalOptions): Promise<{
  report: ConversationReport;
  followUps: { conversation: TurnResult[]; standalone: TurnResult[] }[];
  switches: { conversation: TurnResult[]; alone: TurnResult }[];
  offTopic: { conversation: TurnResult[]; followUp: OffTopicResult; alone: OffTopicResult }[];
  chunks: number;
}> {
  const { file, embedder, mode } = options;
  const kb = await buildKb(path.resolve(file.corpus), embedder);
  try {
    const sourceOf = new Map((await kb.store.listDocuments()).map((d) => [d.id, d.source]));
    const asker = createAsker(kb.store, {
      evidenceThreshold: options.evidenceThreshold,
      retrieval: { ...options.retrieval, mode },
    });
    const embed = async (text: string) => (mode === 'lexical' ? undefined : (await embedder.embed([text]))[0]);
    const result = (turn: Turn, reply: Reply): TurnResult => {
      const cited = reply.kind === 'answer' ? reply.citations.map((c) => sourceOf.get(c.document_id) ?? '?') : [];
      return { turn, reply, cited, fact: reply.kind === 'answer' && containsFact(reply.text, turn.expect) };
    };

    // The questions in one session, as the widget asks them: each later one embedded with the earlier's words.
    async function converse(questions: string[]): Promise<Reply[]> {
      const visitor = await asker.visitor();
      // The widget keeps one session per conversation; a client id makes even a refused first turn start it.
      const session_id = crypto.randomUUID();
      const replies: Reply[] = [];
      let earlier: { question: string; about?: string } | null = null;
      for (const q of questions) {
        const text = options.noContext ? q : followUpText(q, earlier);
        const reply = await visitor.ask(q, await embed(text), {
          session_id,
          ...(options.noContext ? { context: false } : {}),
        });
        replies.push(reply);
        earlier = {
          question: q,
          ...(reply.kind === 'answer' && reply.context?.about ? { about: reply.context.about } : {}),
        };
      }
      return replies;
    }
    const conversationOf = async (turns: Turn[]) =>
      (await converse(turns.map((t) => t.q))).map((reply, i) => result(turns[i]!, reply));
    async function alone(turn: Turn, q: string): Promise<TurnResult> {
      const visitor = await asker.visitor();
      return result(turn, await visitor.ask(q, await embed(q)));
    }

    const followUps = [];
    for (const c of file.conversations) {
      const conversation = await conversationOf(c.turns);
      const standalone = [];
      for (const turn of c.turns.slice(1)) if (turn.standalone) standalone.push(await alone(turn, turn.standalone));
      followUps.push({ conversation, standalone });
    }
    const switches = [];
    for (const c of file.topic_switch) {
      const conversation = await conversationOf(c.turns);
      switches.push({ conversation, alone: await alone(c.turns.at(-1)!, c.turns.at(-1)!.q) });
    }
    const offTopic = [];
    for (const c of file.off_topic) {
      const replies = await converse([...c.turns.map((t) => t.q), c.follow_up.q]);
      const visitor = await asker.visitor();
      const q = c.follow_up.standalone;
      offTopic.push({
        conversation: c.turns.map((t, i) => result(t, replies[i]!)),
        followUp: { q: c.follow_up.q, reply: replies.at(-1)! },
        alone: { q, reply: await visitor.ask(q, await embed(q)) },
      });
    }

    // Every later turn counts as a follow-up; the ceiling is each later turn's standalone rewrite asked alone.
    const later = followUps.flatMap((f) => f.conversation.slice(1));
    const ceilings = followUps.flatMap((f) => f.standalone);
    const score = (rs: TurnResult[]): Score => ({
      n: rs.length,
      fact_in_answer: ratio(rs.filter((r) => r.fact).length, rs.length),
      right_page_first: ratio(rs.filter((r) => r.cited[0] === r.turn.source).length, rs.length),
    });
    const complete = [
      ...file.conversations.map((c) => c.turns[0]!.q),
      ...file.conversations.flatMap((c) => c.turns.flatMap((t) => (t.standalone ? [t.standalone] : []))),
    ];
    const all = [
      ...followUps.flatMap((f) => [...f.conversation, ...f.standalone]),
      ...switches.flatMap((s) => [...s.conversation, s.alone]),
      ...offTopic.flatMap((o) => [...o.conversation, o.followUp, o.alone]),
    ];
    const refusedOff = (r: OffTopicResult) => r.reply.kind === 'refusal';
    // A later turn refused in the conversation whose complete rewrite is answered alone: the thread cost it.
    const asAlone = new Map(ceilings.map((r) => [r.turn, r]));
    const refused = later.filter((r) => r.reply.kind === 'refusal');
    const inThread = refused.filter((r) => asAlone.get(r.turn)?.reply.kind === 'answer');
    const report: ConversationReport = {
      follow_ups: score(later),
      standalone: score(ceilings),
      topic_switch: score(switches.map((s) => s.conversation.at(-1)!)),
      topic_switch_alone: score(switches.map((s) => s.alone)),
      refused: refused.length,
      refused_in_thread: inThread.length,
      refused_in_thread_fact: inThread.filter((r) => asAlone.get(r.turn)?.fact).length,
      off_topic: offTopic.length,
      off_topic_refused: offTopic.filter((o) => refusedOff(o.followUp)).length,
      off_topic_refused_alone: offTopic.filter((o) => refusedOff(o.alone)).length,
      off_topic_repeated: offTopic.filter((o) => repeats(o.followUp.reply, o.conversation.at(-1)!.reply)).length,
      detector_follow_ups: ratio(
        file.conversations.flatMap((c) => c.turns.slice(1)).filter((t) => dependsOnContext(t.q)).length,
        later.length,
      ),
      detector_complete: ratio(complete.filter(dependsOnContext).length, complete.length),
      p50_ms: percentile(
        all.map((r) => r.reply.ms),
        50,
      ),
    };
    return { report, followUps, switches, offTopic, chunks: kb.chunks };
  } finally {
    await kb.close();
  }
}

/** Whether `reply` is an answer that opens with the earlier answer's first sentence (the thread quoted again). */
export function repeats(reply: Reply, earlier: Reply): boolean {
  if (reply.kind !== 'answer' || earlier.kind !== 'answer') return false;
  // Up to the first ".", ":", "!" or "?" before a space, not units.ts `sentencesOf`: an answer's first
  // sentence often ends in a colon before its code block ("paste two lines into your page's HTML: [1]"), which
  // a sentence segmenter does not end a sentence at.
  const first = (text: string) => text.split(/(?<=[.:!?])\s/)[0]!.trim();
  return first(reply.text) === first(earlier.text);
}
