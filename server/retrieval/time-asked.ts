/**
 * A question asking when something happened ("When was Railway founded?", "When did Vite 3 come out?") asks
 * for a point in time, and only a passage that states one — a date, a year, a version — can answer it. Docs
 * describe how things work, in the present tense, so such a question's other words are often all there (the
 * site's name, "found" in "not found") and the coverage and cosine of a chunk without any date say nothing
 * about it: on the Railway tuning set "When was Railway founded?" covered 1.0 of a compliance page and passed
 * the gate in every mode. A present-tense "when" ("When does Railway bill me?") asks for a condition or an
 * event ("at the end of each billing cycle"), which a passage states in words: this rule leaves it alone.
 *
 * The gate (retrieval/index.ts) lets only a chunk holding such a value carry a question of this kind, in every
 * mode, as it lets only a chunk holding enough of the question's words carry a hybrid or vector one.
 */
import { holdsValue } from '../chat/answer-type.ts';

/** "When was…", "When were…", "When did…" (the question's last sentence, as answer-type.ts reads it). */
const PAST_WHEN = /(?:^|[.?!]\s+)when (?:was|were|did)\b[^.?!]*\??\s*$/i;

/** A year on its own ("founded in 2020", "since 1999"): what a "when was" answer most often states. */
const YEAR = /(?<!\d)(?:19|20)\d{2}(?!\d)/;

export function asksPastTime(question: string | undefined): boolean {
  return question !== undefined && PAST_WHEN.test(question.trim());
}

/** Does the passage state a point in time: a date or version (answer-type.ts) or a year? */
export function statesTime(content: string): boolean {
  return YEAR.test(content) || holdsValue({ kind: 'sentence', markdown: content }, 'date');
}
