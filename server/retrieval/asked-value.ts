/**
 * The value a question asks for, as a condition of the evidence gate: "When was Railway founded?" covers 1.00
 * of "projects can be found on your dashboard" ("found" is the stem of both words), and "How many employees
 * does Railway have?" 0.645 of "Railway employees will never ask for your password"; what those passages lack
 * is what the question asks for, a point in time or a count. A question of such a kind (or one asking which
 * version) is answered only when a candidate has a sentence that holds a value of that kind next to the
 * question's most specific words.
 *
 * The most specific word is read from the candidates themselves (the question's content word that the fewest
 * of them contain), so no statistics of the knowledge base are needed and a site's name, which most
 * candidates hold, is never the anchor. Plain English keyword rules, as answer-type.ts reads questions.
 */
import type { RetrievalMode } from '../../protocol/index.ts';
import { lastSentence } from '../chat/answer-type.ts';
import { contentWords } from '../chat/text.ts';

export type AskedValue = 'time' | 'count' | 'version';

/**
 * A point in time is asked by a past-tense "when" ("When was …", "When did …") or by "what/which year"; a
 * present-tense "When does Railway bill me?" asks for an event ("at the end of each cycle"), not a date.
 * A count by "how many".
 */
/**
 * The modes whose candidates include the full-text search's, where a chunk stating the value with the
 * question's words is found when the knowledge base has one. Vector mode's pool is the nearest chunks by
 * cosine alone: on Railway's tuning set two in-KB count questions had no chunk of their answering page
 * among the candidates that passed, and the rule would have refused them.
 */
export const VALUE_MODES: readonly RetrievalMode[] = ['hybrid', 'lexical'];

export function askedValue(question: string): AskedValue | null {
  const q = lastSentence(question);
  if (/^(when|since when|until when) (was|were|did|had)\b|\b(what|which) year\b/.test(q)) return 'time';
  if (/\bhow many\b/.test(q)) return 'count';
  if (VERSION_OF.test(q)) return 'version';
  return null;
}

/**
 * Besides the rarest, a question word is specific when at most this share of the candidates hold it: a word
 * most of them hold (a site's name: "railway" is in 53 % of Railway's chunks) anchors nothing. Half, the
 * plain reading of "most"; a quarter and a third were measured too (docs/retrieval-and-answers.md, "Round 8b").
 */
export const ANCHOR_SHARE = 0.5;

/** "Which Node.js version …": what the version is of, the words between "which/what" and "version". */
const VERSION_OF = /\b(?:which|what) ((?:[\w.+-]+ ){1,2})versions?\b/;

/** The verb after what is counted ("how many employees does …"); "how many does it allow?" names nothing. */
const AUX = '(?:do|does|did|can|could|are|is|was|were|will|would|should|may|might|have|has)';
/** "How many log lines per second can …": what is counted, the words between "how many" and the verb. */
const COUNTED = new RegExp(`\\bhow many (?!${AUX}\\b)([\\w'’-]+(?: [\\w'’-]+)*?)(?= ${AUX}\\b|[?.!,]|$)`);

/** Words of the question that only say what kind of value is asked. */
const CUE_WORDS = new Set(contentWords('many year'));

const MONTH = 'january|february|march|april|may|june|july|august|september|october|november|december';
/** A year (1000–2099), a decade ("1990s"), a century, a year of an era ("753 BC"), a month with its day or year, an ISO date. */
const TIME = new RegExp(
  `\\b(1\\d{3}|20\\d{2})s?\\b|\\bcentur(y|ies)\\b|\\b\\d+ (BC|AD|BCE|CE)\\b|\\b(${MONTH}) (\\d{1,2}|\\d{4})\\b|\\b\\d{4}-\\d{2}-\\d{2}\\b`,
  'i',
);
const NUMBER_WORDS =
  'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundreds?|thousands?|millions?|billions?|dozens?|single|both|pair';
/** A version: "20.19", "v5", "version 16", "16+". */
const VERSION = /\b\d+(\.\d+)+|\bv\d+\b|\bversion \d|\b\d+\+/i;
/** A count: any digit or a number word. */
const COUNT = new RegExp(`\\d|\\b(${NUMBER_WORDS})\\b`, 'i');

/**
 * The question's most specific words. For a count or a version, the words of what is counted or versioned
 * ("how many log lines per second" → log, line, per, second; "which Node.js version" → node, js); otherwise
 * the content words of the question's last sentence (cue words aside) that the fewest candidates contain,
 * and those at most ANCHOR_SHARE of them contain. Empty when no candidate contains any of them.
 */
export function anchorsOf(question: string, contents: string[], share = ANCHOR_SHARE): string[] {
  const q = lastSentence(question);
  const named = COUNTED.exec(q) ?? VERSION_OF.exec(q);
  if (named) {
    const words = contentWords(named[1]!);
    if (words.length > 0) return words;
  }
  const words = [...new Set(contentWords(q))].filter((w) => !CUE_WORDS.has(w));
  const bags = contents.map((c) => new Set(contentWords(c)));
  const df = words.map((w) => bags.filter((b) => b.has(w)).length);
  const least = Math.min(...df.filter((d) => d > 0));
  return words.filter((_, i) => df[i] === least || (df[i]! > 0 && df[i]! <= share * contents.length));
}

/**
 * Sentences of a passage; a list item is one of its own, a table is one (its header names what a cell's
 * number counts: "| Plan | Replicas |" over "| Pro | 50 |").
 */
function sentencesOf(content: string): string[] {
  const out: string[] = [];
  let table: string[] = [];
  for (const line of content.split('\n')) {
    if (/^\s*\|/.test(line)) {
      table.push(line);
      continue;
    }
    if (table.length > 0) out.push(table.join('\n'));
    table = [];
    out.push(...line.split(/(?<=[.!?])\s+/));
  }
  if (table.length > 0) out.push(table.join('\n'));
  return out.filter((s) => s.trim() !== '');
}

/** Does a sentence of the passage hold one of the anchors (any sentence when null) and a value of the kind asked? */
export function statesValue(content: string, kind: AskedValue, anchors: string[] | null): boolean {
  const pattern = kind === 'time' ? TIME : kind === 'count' ? COUNT : VERSION;
  return sentencesOf(content).some((s) => {
    if (!pattern.test(s)) return false;
    if (anchors === null) return true;
    const words = new Set(contentWords(s));
    return anchors.some((a) => words.has(a));
  });
}

/**
 * Whether the candidates can answer what the question asks for: always, unless it asks for a point in time,
 * a count or a version; then only when a candidate (any of the pool, not only one that passes the gate: the
 * sentence with the value is often a chunk beside the one that matched best, "By default, the plugin displays
 * up to 10 posts") states such a value beside the question's most specific words.
 */
export function statesAskedValue(question: string | undefined, contents: string[]): boolean {
  const kind = question ? askedValue(question) : null;
  if (!kind || !question) return true;
  const anchors = anchorsOf(question, contents);
  // No candidate holds a word of the question (a follow-up's candidates come from its thread): any value will do.
  return contents.some((c) => statesValue(c, kind, anchors.length > 0 ? anchors : null));
}
