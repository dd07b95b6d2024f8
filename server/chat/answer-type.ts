/**
 * The type of answer a question expects, and whether a quotable unit holds one. A visitor who asks "which
 * command…" wants the command, "how long…" wants the duration, "which variables…" wants their names: a
 * unit that holds that kind of thing answers better than one sharing more of the question's words (often
 * the section's intro sentence, which repeats the question's terms without the fact).
 *
 * Plain English keyword rules, each measured on the docs-QA sets (docs/retrieval-and-answers.md, "Answers a visitor can use").
 */
import { contentWords } from './text.ts';
import type { Unit } from './units.ts';

export type AnswerType = 'command' | 'quantity' | 'date' | 'procedure' | 'list' | 'table' | 'yesno' | 'definition';

/** The question's last sentence carries the ask ("I'm on a server over SSH. How do I log in?"). */
export function lastSentence(question: string): string {
  const parts = question
    .trim()
    .split(/(?<=[.?!])\s+(?=[A-Z])/)
    .filter((p) => /[a-z]/i.test(p));
  return (parts.length > 0 ? parts[parts.length - 1]! : question).toLowerCase();
}

/**
 * The words after "how" that ask for a quantity ("how long", "how many"): they say which dimension is asked,
 * not what it is about (follow-up-units.ts `ownWords` leaves them out of a follow-up's own words).
 */
export const HOW_QUANTITY_WORDS = ['long', 'many', 'much', 'big', 'large', 'soon', 'quickly', 'often', 'fast'] as const;
const QUANTITY_ASKED = new RegExp(
  `\\bhow (${HOW_QUANTITY_WORDS.join('|')}|far back)\\b|\\b(what|which) (\\w+ )?(size|port|timeout)\\b|\\bup to what\\b|\\b(lowest|highest|maximum|minimum|max|min|limits?|cost|price)\\b`,
);

/**
 * What the question asks for, or null when no rule says. First matching rule wins: a command or a number
 * is the most specific thing a question can want, a yes-no or a definition the least.
 */
export function expectedType(question: string): AnswerType | null {
  const q = lastSentence(question);
  if (
    /`|\b(commands?|cli|terminal|command line|shell|expression|syntax|snippet|curl|install)\b|\bwhat (do|should) i (set|call|run|type|use)\b|\b(which|what) (\w+ )?(variable|env var|header|flag|address|host|hostname|url|endpoint|path|mount path)\b|\bhow (should|do) i call\b/.test(
      q,
    )
  )
    return 'command';
  if (QUANTITY_ASKED.test(q)) return 'quantity';
  if (/^(when|until when|since when)\b|\b(which|what) (\S+ )?(version|date|year)\b/.test(q)) return 'date';
  if (/\bhow (do|can|should|would) (i|we|you)\b|\bhow to\b|\bsteps?\b/.test(q)) return 'procedure';
  if (
    /\b(which|what) (\w+ ){0,2}(are|languages|databases|variables|vars|registries|features|metrics|types|kinds|options|regions|plans|actors|information|providers)\b|\blist\b/.test(
      q,
    )
  )
    return 'list';
  if (/^(can|could|does|do|is|are|will|would|should|may|has|have)\b/.test(q)) return 'yesno';
  if (/^(what is|what's|what are|what does|why)\b/.test(q)) return 'definition';
  return null;
}

const NUMBER_WORD =
  '(one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|sixty|ninety|\\d[\\d,.]*(?:-\\d+)?)';
/**
 * The kinds of quantity: the words of a question that ask for one ("how long" wants a duration) and the units
 * a value of that kind is stated in. One table for single questions (QUANTITY: any of them) and for a
 * follow-up that may repeat an earlier sentence only when it holds the kind asked (follow-up-units.ts).
 */
export const QUANTITY_KINDS = {
  duration: {
    asks: /\bhow (long|soon|quickly|often|fast)\b|\bfar back\b/i,
    units: 'ms|seconds?|secs?|minutes?|mins?|hours?|days?|weeks?|months?|years?',
  },
  size: { asks: /\bhow (big|large|heavy)\b|\bsize\b/i, units: '[kmgt]i?b|gb-months?|bytes?|tokens?|characters?|%' },
  amount: { asks: /\bhow much\b|\b(cost|price)\b/i, units: '[kmgt]i?b|%|credits?' },
  count: {
    asks: null,
    units: 'vcpus?|cpus?|rps|rph|requests?|times|restarts|connections|services|replicas|volumes|members|seats|tlds',
  },
} as const;
/** A number in one kind's units ("60 days", "23 MB"; any money amount is one): `units` of QUANTITY_KINDS. */
export function quantityIn(units: string, money = false): RegExp {
  return new RegExp(`${money ? '\\$\\s?\\d|' : ''}\\b${NUMBER_WORD}\\s?(${units})(?!\\w)`, 'i');
}
const QUANTITY = new RegExp(
  `\\$\\s?\\d|\\b${NUMBER_WORD}\\s?(%|${Object.values(QUANTITY_KINDS)
    .map((k) => k.units)
    .join('|')})\\b|\\d[\\d,.]*\\s?%`,
  'i',
);
const DATE =
  /\b(january|february|march|april|may|june|july|august|september|october|november|december)\s+\d{1,2}\b|\b\d{4}-\d{2}-\d{2}\b|\bversion \d|\bv\d+\.\d+/i;
/** A code span or an UPPER_SNAKE identifier (an environment variable's name). */
const CODE_SPAN = /`([^`\n]+)`|\b([A-Z][A-Z0-9]*_[A-Z0-9_]+)\b/g;

/**
 * Does the unit hold an answer of this type (a number with its unit, a command, a list of names…)? `asked`:
 * the question's content words; a code span made only of them (the error message the visitor quoted) is an
 * echo of the question, not an answer.
 */
export function holdsType(
  unit: Pick<Unit, 'kind' | 'markdown'>,
  type: AnswerType,
  asked: Set<string> = new Set(),
): boolean {
  switch (type) {
    case 'command':
      return (
        unit.kind === 'code' ||
        [...unit.markdown.matchAll(CODE_SPAN)].some((m) => contentWords(m[1] ?? m[2]!).some((w) => !asked.has(w)))
      );
    case 'quantity':
      return QUANTITY.test(unit.markdown);
    case 'date':
      return DATE.test(unit.markdown);
    case 'procedure':
      // Steps, or the commands that do it.
      return unit.kind === 'code' || (unit.kind === 'list' && /^\s*\d+[.)]\s/.test(unit.markdown));
    case 'list':
      return unit.kind === 'list' || unit.kind === 'table';
    case 'table':
      return unit.kind === 'table';
    case 'yesno':
    case 'definition':
      // Any sentence can say yes, no or what a thing is: nothing to prefer by form.
      return false;
  }
}

/**
 * The value a question asks for, beyond its answer type: a question saying "default" wants the default's
 * value ("Which files does the dev server block by default?"), one of quantity or date type the number or
 * date itself. Null when the question asks for no value.
 */
export type ValueAsked = 'default' | 'quantity' | 'date';

export function valueAsked(question: string, type: AnswerType | null): ValueAsked | null {
  if (/\bdefaults?\b/.test(lastSentence(question))) return 'default';
  if (type === 'quantity' || type === 'date') return type;
  return null;
}

/** A unit that states a default with its value: "**Default:** `5173`", "It defaults to `dist`", "Default is 10". */
const DEFAULT_VALUE = /\bdefaults?\b[^.\n]{0,40}?(`[^`\n]+`|\b\d[\d,.]*\b|\b(true|false|none)\b)/i;

/** A default that is a number: "**Default:** `500`" answers "At what chunk size…", a default model name does not. */
const DEFAULT_NUMBER = /\bdefaults?\b(?:\s+(?:is|to|value|of))*[:*\s]*`?\d/i;

/** Does the unit hold the value asked: a default with its value, a number with its unit, a date? */
export function holdsValue(unit: Pick<Unit, 'kind' | 'markdown'>, value: ValueAsked): boolean {
  if (unit.kind === 'code') return false;
  if (value === 'default') return DEFAULT_VALUE.test(unit.markdown);
  if (value === 'quantity') return QUANTITY.test(unit.markdown) || DEFAULT_NUMBER.test(unit.markdown);
  return DATE.test(unit.markdown);
}
