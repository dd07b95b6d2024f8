/**
 * Follow-up questions: whether a question depends on the conversation, and the text it is searched with
 * then. Shared by the widget (which embeds the contextual text before sending) and the server (which
 * searches with the same words in full text), so both sides read a follow-up the same way.
 *
 * A question depends on the conversation when it leans on something said before:
 * - it opens with a connective: "and …", "also …", "what about …", "how about …", "same for …";
 * - it points back (it, its, they, them, one, …) and has at most four content words of its own ("How do I
 *   change it?", "What is its default?"), or with that / this / there, at most three;
 * - it is very short: at most one content word ("What is the limit?", "How long?"), or two in at most three
 *   words ("Pro plan?");
 * - it counts something it does not name: "how many" straight before a verb ("How many can I add on
 *   Hobby?"), with at most three content words ("how much" is left out: "How much did it cost?" is whole);
 * - it says it goes on from what was said: it opens with "so" ("So how do I check types for a production
 *   build?") or ends with "then" or "instead" ("How do I build for staging instead?": instead of what?);
 * - it asks for "the" thing of at most two words and names no owner ("What is the default limit?", "What's
 *   the shortest interval?": the default of what?), where a complete question says whose ("What is the
 *   default limit of …?").
 * `npm run eval -- --qa` reports how often this fires on complete questions (docs/conversation.md).
 */
import * as v from 'valibot';

/** Shown with an answer that used the conversation: whether it did, and what it was taken to be about. */
export const AnswerContextSchema = v.object({
  used: v.boolean(),
  /** The earlier topic in a few words ("evidence threshold"); shown as "About: …". */
  about: v.optional(v.string()),
});
export type AnswerContext = v.InferOutput<typeof AnswerContextSchema>;

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;
const CONNECTIVE = /^\s*(?:and|also|plus|what about|how about|same for|same with|what of|then)\b/i;
/** "How many" with no noun after it: the thing counted was named before. */
const UNNAMED_COUNT =
  /^\s*how many\s+(?:can|could|do|does|did|are|is|was|were|will|should|would|may|might|must|have|has)\b/i;
/** Discourse words that carry on from the turn before: "So …", "… then?", "… instead?". */
const CARRIES_ON = /^\s*so\b|\b(?:then|instead)\s*[?.!]*\s*$/i;
/**
 * "What is the default X?" and nothing more: a value or extreme that belongs to something ("the default of
 * what?") with nothing named to own it. Only these words: "What is the evidence threshold?" is whole.
 */
const OWNERLESS = new RegExp(
  `^\\s*what(?:['’]s|\\s+is|\\s+are|\\s+was|\\s+were)\\s+the\\s+(?:${[
    'default',
    'minimum',
    'maximum',
    'lowest',
    'highest',
    'smallest',
    'largest',
    'biggest',
    'shortest',
    'longest',
    'fastest',
    'cheapest',
    'earliest',
    'latest',
    'first',
    'last',
    'next',
    'current',
    'recommended',
    'usual',
  ].join('|')})(?:\\s+[\\p{L}\\p{N}-]+)?\\s*[?.!]*\\s*$`,
  'iu',
);
/** Words that point back at something said before; "that", "this" and "there" are often only relative or
 * demonstrative in a complete question, so they count only in a question with fewer words of its own. */
const POINTING = new Set(['it', 'its', "it's", 'itself', 'they', 'them', 'their', 'one', 'ones', 'mine']);
const DEICTIC = new Set([...POINTING, 'that', 'this', 'these', 'those', 'there']);
/** Function words and question words: what is left once they are removed is what a question is about. */
const FUNCTION_WORDS = new Set(
  `a about above after again against all also am an and any are as at be because been before being below between both
but by can could did do does doing done during each either else few for from further get gets got had has have having
he her here hers him his how i i'm if in into is it it's its itself just let me might more most much must my need no
nor not now of off on once one ones only or other our ours out over own same she should so some such than that the
their theirs them then there these they this those through to too under until up use used using very via was way we
were what when where whether which while who whom why will with would yes you your yours tell please ok okay thanks
thank possible instead way ways also plus many another every per without rest go mine`.split(/\s+/),
);

/** Lower-cased words of a question that are not function words, in order, without repeats. */
export function topicWords(text: string): string[] {
  const words = (text.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/['’]s$/, '').replace(/’/g, "'"));
  return [...new Set(words.filter((w) => w.length > 1 && !FUNCTION_WORDS.has(w)))];
}

/**
 * `question` without its pointing words (it, them, mine, one…): they stand for what was said before, so a search
 * for the question's own words leaves them out ("Why was mine denied?": to full text "mine" is a rare word no
 * page about refunds holds).
 */
export function withoutPointingWords(question: string): string {
  return question
    .replace(WORD, (w) => (POINTING.has(w.toLowerCase().replace(/’/g, "'")) ? '' : w))
    .replace(/\s+/g, ' ')
    .trim();
}

/** Whether `question` points back with a pronoun (it, its, they, them, one…): it names the earlier thing itself. */
export function pointsBack(question: string): boolean {
  return (question.toLowerCase().match(WORD) ?? []).some((w) => POINTING.has(w.replace(/’/g, "'")));
}

/** Whether `question` needs the conversation to be understood (see the file's comment for the rules). */
export function dependsOnContext(question: string): boolean {
  if (CONNECTIVE.test(question) || CARRIES_ON.test(question) || OWNERLESS.test(question)) return true;
  const words = (question.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/’/g, "'"));
  const own = topicWords(question).length;
  if (words.some((w) => POINTING.has(w)) && own <= 4) return true;
  if (words.some((w) => DEICTIC.has(w)) && own <= 3) return true;
  if (UNNAMED_COUNT.test(question) && own <= 3) return true;
  return own <= 1 || (own <= 2 && words.length <= 3);
}

/** Earlier topic words carried at most: a follow-up leans on one topic, not on a whole conversation. */
export const CONTEXT_TERMS_MAX = 8;

/**
 * The text a follow-up is embedded with in the browser: the question first, then the earlier topic words,
 * so the question's own words still lead. The server searches full text with the same words.
 */
export function contextualText(question: string, terms: string[]): string {
  return terms.length === 0 ? question : `${question} (${terms.slice(0, CONTEXT_TERMS_MAX).join(' ')})`;
}

/**
 * The topic words a follow-up borrows from the turn before it: that question's own topic words, then the
 * ones it borrowed itself (a third turn still knows what the first one was about), minus the words the new
 * question already has.
 */
export function borrowedTerms(question: string, earlierQuestion: string, earlierTerms: string[] = []): string[] {
  const own = new Set(topicWords(question));
  const terms = [...new Set([...topicWords(earlierQuestion), ...earlierTerms])].filter((w) => !own.has(w));
  return terms.slice(0, CONTEXT_TERMS_MAX);
}

/**
 * What the browser embeds for `question`, given the turn before it (its question and, when that was a
 * follow-up too, what it was about): the contextual text for a follow-up, the question itself otherwise.
 * The server borrows the same words from the stored turns.
 */
export function followUpText(question: string, earlier: { question: string; about?: string } | null): string {
  if (!earlier || !dependsOnContext(question)) return question;
  return contextualText(
    question,
    borrowedTerms(question, earlier.question, earlier.about ? earlier.about.split(' ') : []),
  );
}

/**
 * The turn a follow-up leans on, from the conversation's earlier turns newest first (each question with what
 * its answer was about, if it was answered in context). A follow-up whose answer carries no topic (it was
 * refused) still passes on what it borrowed, so "What is its default?" after a refused "How do I change
 * it?" is still about the evidence threshold.
 */
export function earlierTopic(
  turns: { question: string; about?: string }[],
): { question: string; about?: string } | null {
  const [latest, ...older] = turns;
  if (!latest) return null;
  if (latest.about || !dependsOnContext(latest.question)) return latest;
  const before = earlierTopic(older);
  if (!before) return latest;
  const about = borrowedTerms(latest.question, before.question, before.about ? before.about.split(' ') : []).join(' ');
  return { question: latest.question, ...(about ? { about } : {}) };
}
