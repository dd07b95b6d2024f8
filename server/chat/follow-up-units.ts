/**
 * A follow-up's answer must say something new: the visitor has just read the earlier answer, and a follow-up
 * ("How long are the daily ones kept?" after a question about manual backups) asks for the next fact, which
 * is usually beside the one already quoted on the same page. The earlier topic's words and the preference
 * for the pages it cited (server/chat/context.ts) bring that page back, so without this its sentences, which
 * share the most words with the contextual query, would be quoted again.
 *
 * A unit the earlier answer already quoted is scored at `repeatWeight` of its score: still quoted when
 * nothing else on the cited pages answers (then it is the answer), never as padding around the new fact.
 * Unless it holds what is asked now (`mayRepeat`): then it is quoted as any other unit.
 */
import { HOW_QUANTITY_WORDS, holdsType, quantityIn, QUANTITY_KINDS, type AnswerType } from './answer-type.ts';
import { withoutPointingWords } from '../../protocol/index.ts';
import { contentWords } from './text.ts';
import type { Unit } from './units.ts';

/**
 * Share of its score a unit keeps when the earlier answer quoted it. Without it, 16 of the 54 Railway later
 * turns in hybrid mode quoted a sentence of the answer before them, 10 of them without the fact asked; at
 * 0.25 the demo's "How do I change it?" still quoted the earlier paragraph first (its CHAT_EVIDENCE_THRESHOLD
 * sentence outscored, a quarter weight and all, the new one that says how the threshold is set). Chosen
 * leave-one-site-out among 0.05, 0.25 and 1 (`npx tsx scripts/eval/thread-sweep.ts` on the Vite, MkDocs and
 * Railway in-sample conversation sets, hybrid): every fold keeps 0.05; 1 costs Railway one later turn's fact.
 * The sweep passes the values it tries through `FollowUpInput.repeatWeight` (server/chat/extract.ts).
 */
export const REPEAT_WEIGHT = 0.05;

/** Units shorter than this are not compared: a short line ("Yes.") may be in any answer. */
const MIN_COMPARED = 16;

/** Whether a unit was quoted in `earlierAnswer` (its Markdown appears there verbatim, spacing aside). */
export function saidBefore(earlierAnswer: string | undefined): (unit: Pick<Unit, 'markdown'>) => boolean {
  if (!earlierAnswer) return () => false;
  const said = squeeze(earlierAnswer);
  return (unit) => {
    const text = squeeze(unit.markdown);
    return text.length >= MIN_COMPARED && said.includes(text);
  };
}

/**
 * May a unit the earlier answer quoted be quoted again? Only when it holds what the follow-up asks: the kind
 * of value the question wants (answer-type.ts: "How big is it?" wants a size, and "the model is about 23 MB"
 * was said in the answer about the widget's start-up), or, in the passage retrieval ranked first, one of the
 * follow-up's own words ("How long are they limited?" after the limit). A repeat with neither is what the
 * visitor has just read ("How do I change it?" after "Raise the threshold … lower it": no steps in it).
 *
 * `freshValue` (`freshValueOf`): a unit the earlier answer did not quote holds a value of the dimension the
 * follow-up names. Then no repeat may be quoted again: the value asked now is another one than the value just
 * given ("And on Pro, how long can I roll back?" after how long volume data is kept: the image retention
 * table's hours, not the volume table's days again, which holds "Pro" and a duration).
 */
export function mayRepeat(
  unit: Pick<Unit, 'kind' | 'markdown' | 'words'>,
  chunk: number,
  own: Set<string>,
  type: AnswerType | null,
  question = '',
  freshValue = false,
  rivalled: (unit: Pick<Unit, 'words'>) => boolean = () => false,
): boolean {
  if (freshValue) return false;
  if (type !== null && holdsType(unit, type, own) && holdsDimension(unit.markdown, question)) return true;
  return chunk === 0 && [...own].some((w) => unit.words.has(w)) && !rivalled(unit);
}

/**
 * Whether another unit says more of what is asked now than a repeat: a unit the earlier answer did not quote
 * (`units`, `said`) holds every one of the follow-up's own words (`own`: `ownWords`, pointing words aside) the
 * repeat holds, and more (`rivalled` of
 * `mayRepeat`). "What happens when they click that button?" after the sentence saying a share button is
 * rendered: that sentence holds "button", but "When a user clicks the share button, the URL is automatically
 * copied to the clipboard" holds "click" and "button", and is what is asked now. A superset, not a count: a
 * unit holding only "happens" does not outweigh the repeat that holds "click" ("What happens when I click
 * one?" after how citations are shown: "Clicking a citation opens the source page" is the answer).
 */
export function rivalOf(
  units: Pick<Unit, 'markdown' | 'words'>[],
  said: (unit: Pick<Unit, 'markdown'>) => boolean,
  own: Set<string>,
): (unit: Pick<Unit, 'words'>) => boolean {
  const held = (unit: Pick<Unit, 'words'>) => [...own].filter((w) => unit.words.has(w));
  const others = units.filter((u) => !said(u)).map(held);
  return (unit) => {
    const mine = held(unit);
    return others.some((o) => o.length > mine.length && mine.every((w) => o.includes(w)));
  };
}

/**
 * Whether a follow-up that names a dimension ("how long", "how big", "how much") finds a value of it, of the
 * answer type it wants, in a unit the earlier answer did not quote (`said`): then what it asks is a new value,
 * and a repeat is not quoted again (`mayRepeat`). Other questions (a procedure, "which…") are left as they are:
 * "How can I debug a dependency with local edits then?" is answered by the steps the earlier answer quoted,
 * though other steps are on the page (Vite, in-sample: measured as lost when every answer type counted).
 */
export function freshValueOf(
  units: Pick<Unit, 'kind' | 'markdown' | 'words'>[],
  said: (unit: Pick<Unit, 'markdown'>) => boolean,
  own: Set<string>,
  type: AnswerType | null,
  question: string,
): boolean {
  if (type === null || !DIMENSIONS.some(([asks]) => asks.test(question))) return false;
  return units.some((u) => !said(u) && holdsType(u, type, own) && holdsDimension(u.markdown, question));
}

/**
 * The kind of quantity a question names, and the values of that kind (answer-type.ts `QUANTITY_KINDS`): "how
 * long" wants a duration, "how big" a size. A repeated unit holding another kind ("limited to 50% of the
 * volume's total size" when "How long are the daily ones kept?" follows a question about the backup limit)
 * is not what is asked now.
 */
const DIMENSIONS: [RegExp, RegExp][] = [
  [QUANTITY_KINDS.duration.asks, quantityIn(QUANTITY_KINDS.duration.units)],
  [QUANTITY_KINDS.size.asks, quantityIn(QUANTITY_KINDS.size.units)],
  [QUANTITY_KINDS.amount.asks, quantityIn(QUANTITY_KINDS.amount.units, true)],
];
function holdsDimension(markdown: string, question: string): boolean {
  const named = DIMENSIONS.find(([asks]) => asks.test(question));
  return !named || named[1].test(markdown);
}

function squeeze(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The rank each retrieved chunk weighs at in extraction (`CHUNK_RANK_PENALTY`, server/chat/extract.ts) for a
 * follow-up: on the thread's pages (`pages`: the documents the conversation's answers cited), a chunk that
 * holds none of the follow-up's own words comes after those that hold one, each keeping the slots the
 * thread's chunks had; chunks off the thread keep their rank. There retrieval's order says what the earlier
 * turns asked, not what this one asks: the earlier topic counts as present in every chunk of those pages and
 * the cited section gains a margin (server/chat/context.ts), so the section just quoted tends to come first
 * whether or not it has anything to do with the new question ("How many services can I have during it?"
 * after a question about the trial's credits: the credits FAQ first, the one that says "limited to 5 services
 * per project" second). A chunk holding an own word keeps retrieval's order, so where the section just
 * quoted does hold the next fact (MkDocs' reference pages) nothing moves.
 *
 * Own words (`ownWords`): the question's content words, without the pointing words (protocol/context.ts)
 * and without the words that only say which dimension is asked ("many", "long": "how many" is in the
 * question, not in the page). Matched loosely (`sameWord`): the light stemmer leaves "named" and "name",
 * "capitalized" and "capital" apart, and a chunk that says "must be named Dockerfile with a capital D" does
 * hold what "Does its name have to be capitalized?" asks.
 */
export function ownWordRanks(
  perChunk: Pick<Unit, 'words'>[][],
  headings: string[][],
  documents: string[],
  pages: Set<string>,
  question: string,
): number[] {
  const ranks = perChunk.map((_, c) => c);
  const own = ownWords(question);
  if (pages.size === 0 || own.length === 0) return ranks;
  const on = ranks.filter((c) => pages.has(documents[c]!));
  const has = (w: string) => own.some((o) => sameWord(o, w));
  const holds = (c: number) => perChunk[c]!.some((u) => [...u.words].some(has)) || headings[c]!.some(has);
  const order = [...on.filter(holds), ...on.filter((c) => !holds(c))];
  on.forEach((slot, i) => {
    ranks[order[i]!] = slot;
  });
  return ranks;
}

/** Words that say which dimension a question asks ("how many", "how long"), not what it is about. */
// "far" of "how far back", the one quantity question of two words.
const DIMENSION_WORDS: ReadonlySet<string> = new Set([...HOW_QUANTITY_WORDS, 'far']);

/** A follow-up's own topic words: its content words, pointing and dimension words aside. */
export function ownWords(question: string): string[] {
  return contentWords(withoutPointingWords(question)).filter((w) => !DIMENSION_WORDS.has(w));
}

/** Two stems of one word: equal, or one the other with at most three more letters ("nam" / "name"). */
export function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 3 && long.startsWith(short) && long.length - short.length <= 3;
}
