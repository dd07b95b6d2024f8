// Long file: the extraction's scoring and choosing rules read in one order, and each needs the units and bounds above it.
/**
 * Extractive answers: verbatim Markdown from the qualifying chunks —
 * at most three prose sentences plus at most one block (a list, a fenced code block, a table or a note) —
 * each unit followed by the `[n]` marker of its source, and exactly the quoted sources cited.
 *
 * Units (units.ts) are scored by the share of the question's content words they contain, each word weighted
 * by how rare it is among all candidate units (a word every unit has says little about which one answers).
 * A block is scored with its lead-in sentence, and a chunk's first unit with its section heading, so "Which
 * browsers are supported?" finds the paragraph under "## Which browsers are supported?". Only units scoring
 * at least `RELEVANCE_RATIO` of the best are quoted: a one-sentence answer stays one sentence. A unit that
 * holds the type of answer the question wants (answer-type.ts) scores double; under a heading that asks the
 * question, the section's first unit comes first; a sentence that refers back brings the one it refers to, and
 * the best sentence, with room left, the sentences before it in its paragraph that share a word with the question.
 *
 * Order: the chunk holding the best unit first, its units in reading order, then the next chunk's. Citations
 * are numbered 1..N in the order they first appear; qualifying chunks that gave no quoted unit are `related`.
 */
import type { Citation, Related } from '../../protocol/index.ts';
import { sectionKey } from '../retrieval/index.ts';
import type { ChunkMatch } from '../store/types.ts';
import { expectedType, holdsType, holdsValue, valueAsked, type AnswerType } from './answer-type.ts';
import { excerpt } from './excerpt.ts';
import { contentWords } from './text.ts';
import {
  freshValueOf,
  mayRepeat,
  ownWords,
  REPEAT_WEIGHT,
  rivalOf,
  ownWordRanks,
  saidBefore,
} from './follow-up-units.ts';
import { unitsOf, type Unit } from './units.ts';

export const MAX_ANSWER_SENTENCES = 3;
export const MAX_ANSWER_BLOCKS = 1;
/**
 * A unit is quoted only when its score reaches this share of the best unit's. Measured on the docs-QA sets
 * (railway / demo: fact in answer, citation precision; with an additive rank penalty of 0.1): 0.5 → 47.4 /
 * 82.1 %, 68.7 / 75.8 %; 0.7 → 44.9 / 78.6 %, 73.2 / 83.3 %. Lower ratios quote more sentences from
 * other pages: a little more often the fact, much more often filler.
 */
export const RELEVANCE_RATIO = 0.7;
/**
 * Share of a unit's coverage taken off per rank of its chunk in retrieval order (its weight never drops
 * below 0.2). Retrieval ranks whole passages better than word coverage ranks single sentences. Measured on
 * the docs-QA sets (railway / demo; right page first, citation precision), all other rules as now: 0.2 →
 * 67.9 / 89.3 %, 69.2 / 83.3 %; 0.35 → 73.1 / 89.3 %, 76.3 / 86.2 %; 0.5 → 70.5 / 89.3 %, 77.0 / 92.6 %.
 * (Before pointer sentences were discounted, a flat 0.01 off per rank gave 64.1 / 82.1 %, 67.0 / 68.6 %.)
 * Tried and dropped: the best page's own later chunks losing only 0.1 per chunk (the answer is often a
 * section below the intro that matched best): Railway tuning fact in answer +1 question, but SQuAD citation
 * precision 81.5 → 74.4 % (1,000 questions; other paragraphs of the article quoted).
 */
export const CHUNK_RANK_PENALTY = 0.35;
/**
 * Sentences after the best one, in its paragraph, quoted while there is room. Measured (demo / railway fact in
 * answer, before the rank and pointer rules): 0 → 60.7 / 46.2 %, 1 → 67.9 / 46.2 %, 2 → 71.4 / 46.2 %.
 */
export const CONTINUATION = 2;
/** A sentence that only points elsewhere ("Please refer to …") answers only when nothing better does. */
const POINTER_WEIGHT = 0.5;
/**
 * Share added to the score of a unit that holds the type of answer the question expects (answer-type.ts):
 * the duration for "how long", the command for "which command", the list for "which variables". Measured on
 * the Railway tuning set (fact in answer / right page first / citation precision / fact when the page is
 * cited) with the heading and back-reference rules: 1 → 56.7 / 75.0 / 77.9 / 72.2 % (round-1 extraction:
 * 51.9 / 74.0 / 76.1 / 67.9 %). With a rule since dropped (see CHUNK_RANK_PENALTY), 0 → 52.9 / 74.0 / 78.2 /
 * 69.2 %, 0.5 → 57.7 / 74.0 / 77.2 / 73.4 %, 1 → 57.7 / 75.0 / 79.5 / 73.4 %. demo/kb and SQuAD unchanged.
 */
export const TYPE_BOOST = 1;
/** Related (unquoted) sources offered at most. */
export const MAX_RELATED = 3;

export interface ExtractiveAnswer {
  /** Markdown: the chosen units, each followed by its ` [n]` marker. */
  text: string;
  citations: Citation[];
  related: Related[];
}

interface Candidate {
  unit: Unit;
  /** Index of the chunk in retrieval order. */
  chunk: number;
  /** Words scored: the unit's own, plus its lead-in's (a block) or its section heading's (first unit). */
  words: Set<string>;
  /** Retrieval rank and pointer discounts, multiplying the coverage. */
  weight: number;
  bonus: number;
  score: number;
  /** The unit opens a section (or follows an FAQ title) whose heading asks what the question asks. */
  answersTitle: boolean;
  documentId: string;
}

/** A follow-up's borrowed words (server/chat/context.ts) weigh this much of a word of the question's own. */
const BORROWED_WEIGHT = 0.25;

/** What a follow-up brings from the turn before it (server/chat/context.ts); none for a question alone. */
export interface FollowUpInput {
  /** The earlier question's topic words, scored at BORROWED_WEIGHT. */
  borrowed?: string[];
  /** The earlier answer's text: its units already told the visitor that (follow-up-units.ts). */
  earlierAnswer?: string;
  /** Share of its score a repeated unit keeps; REPEAT_WEIGHT unless the leave-one-site-out sweep tries another. */
  repeatWeight?: number;
  /** The documents the conversation's answers cited: there a chunk holding none of the follow-up's own words weighs after those that do (follow-up-units.ts `ownWordRanks`). */
  pages?: string[];
}

/**
 * `chunks` best first, all above the evidence threshold (one per document section, see retrieval).
 * `followUp`: a follow-up's context; without it the answer is exactly the single question's.
 * `siblings`: the other candidates of those sections (retrieval's `siblings`), for the value or block the
 * best unit's chunk lacks.
 */
export function extractAnswer(
  question: string,
  chunks: ChunkMatch[],
  followUp: FollowUpInput = {},
  siblings: ChunkMatch[] = [],
): ExtractiveAnswer {
  const borrowed = followUp.borrowed ?? [];
  const repeated = saidBefore(followUp.earlierAnswer);
  const own = new Set(contentWords(question));
  const type = expectedType(question);
  const topic = contentWords(borrowed.join(' '));
  const asked = new Set([...own, ...topic]);
  const perChunk = chunks.map((chunk) => unitsOf(chunk.content, asked));
  // A repeat is quoted again only when it holds what is asked now, and a new value of the dimension asked is
  // nowhere else (follow-up-units.ts `mayRepeat`, `freshValueOf`).
  const fresh = freshValueOf(perChunk.flat(), repeated, own, type, question);
  const rivalled = rivalOf(perChunk.flat(), repeated, new Set(ownWords(question)));
  const said = (unit: Unit, chunk: number) =>
    repeated(unit) && !mayRepeat(unit, chunk, own, type, question, fresh, rivalled);
  // Which rank each chunk weighs at: retrieval's, but on the thread's pages a follow-up's own words come first.
  const ranks = ownWordRanks(
    perChunk,
    chunks.map((c) => headingOf(c).words),
    chunks.map((c) => c.document_id),
    new Set(followUp.pages ?? []),
    question,
  );
  const candidates: Candidate[] = perChunk.flatMap((units, c) => {
    const heading = headingOf(chunks[c]!);
    return units.map((unit): Candidate => {
      const words = new Set(unit.words);
      if (unit.leadIn !== undefined) for (const w of units[unit.leadIn]!.words) words.add(w);
      // The section's opening unit (and the block it introduces) answers what its heading asks; the unit
      // after an FAQ title answers that title.
      const title = titleOf(units, unit, heading);
      for (const w of title.words) words.add(w);
      // What the earlier answer quoted is about the earlier topic, whatever its words ("the model is about
      // 23 MB" answered a question about the widget's start-up): it holds the borrowed words.
      if (repeated(unit)) for (const w of topic) words.add(w);
      return {
        unit,
        chunk: c,
        words,
        // Retrieval's order of the chunks counts: the 2nd chunk's units weigh 0.65, the 3rd's 0.3, the rest 0.2.
        weight:
          Math.max(0.2, 1 - ranks[c]! * CHUNK_RANK_PENALTY) *
          (unit.pointer ? POINTER_WEIGHT : 1) *
          (said(unit, c) ? (followUp.repeatWeight ?? REPEAT_WEIGHT) : 1),
        bonus: 0.05 * chunks[c]!.similarity - unit.index * 1e-3,
        score: 0,
        // A follow-up's heading must also share a word it asks now: the earlier topic's heading answered the
        // earlier question.
        answersTitle:
          headingMatches(title, asked) &&
          (borrowed.length === 0 || title.words.some((w) => own.has(w))) &&
          !said(unit, c),
        documentId: chunks[c]!.document_id,
      };
    });
  });
  score(candidates, asked, type, own);

  // The other chunks of the best unit's section, read only for the value asked and the block pointed at
  // (`choose`), never scored against the rest: appended after `chunks`, so a quoted unit is cited as the
  // section's chunk and never offered as a related source.
  const all = [...chunks];
  const read = new Map<number, Candidate[]>();
  const sectionUnits = (c: number): Candidate[] => {
    const known = read.get(c);
    if (known) return known;
    const units = siblings
      .filter((s) => sectionKey(s) === sectionKey(chunks[c]!))
      .flatMap((sibling) => {
        all.push(sibling);
        const at = all.length - 1;
        return unitsOf(sibling.content, asked).map(
          (unit): Candidate => ({
            unit,
            chunk: at,
            words: new Set(unit.words),
            weight: 0,
            bonus: 0,
            score: 0,
            answersTitle: false,
            documentId: sibling.document_id,
          }),
        );
      });
    read.set(c, units);
    return units;
  };
  return compose(choose(candidates, question, own, type, said, sectionUnits), all, chunks);
}

/**
 * The heading a unit answers, as content words: the section heading for the chunk's opening unit (and the
 * block it introduces), the FAQ title for the unit right after one; none for the rest.
 */
function titleOf(units: Unit[], unit: Unit, heading: Heading): Heading {
  const before = units[unit.index - 1];
  const asTitle = (t: Unit): Heading => ({ words: [...t.words], asks: /\?\**$/.test(t.markdown) });
  if (before?.title) return asTitle(before);
  const first = units[0]!;
  if (unit.index === 0 || (unit.leadIn === 0 && first.kind === 'sentence' && !first.title)) return heading;
  return { words: [], asks: false };
}

/**
 * Does a heading ask what the question asks? Most of the heading's words are the question's: a
 * question-shaped FAQ heading sharing at least two of them, or a plain heading sharing at least three.
 * Measured (fact in answer, Railway tuning / demo, with the dropped same-page rule of CHUNK_RANK_PENALTY's
 * note): off → 57.7 / 78.6 %; on → 57.7 / 82.1 %; SQuAD unchanged. With one shared
 * word enough ("CLI"), 51.9 %; promoting a heading on a page ranked below the best unit's moved 2 answers'
 * first citation to another page.
 */
export const HEADING_MATCH = 0.6;
function headingMatches(heading: Heading, asked: Set<string>): boolean {
  const words = new Set(heading.words);
  if (words.size === 0) return false;
  const shared = [...words].filter((w) => asked.has(w)).length;
  // A question-shaped heading needs two of the question's words; a plain one ("Rate limits") three.
  return shared >= (heading.asks ? 2 : 3) && shared / words.size >= HEADING_MATCH;
}

interface Heading {
  words: string[];
  /** Ends with "?": an FAQ heading that is a visitor's question. */
  asks: boolean;
}

function headingOf(chunk: ChunkMatch): Heading {
  const path = chunk.meta.heading_path;
  const last = Array.isArray(path) && path.length > 0 ? path[path.length - 1] : chunk.meta.section?.split(' › ').pop();
  return typeof last === 'string'
    ? { words: contentWords(last), asks: /\?\s*$/.test(last) }
    : { words: [], asks: false };
}

function score(candidates: Candidate[], asked: Set<string>, type: AnswerType | null, own: Set<string>): void {
  const weight = new Map<string, number>();
  for (const word of asked) {
    const df = candidates.filter((c) => c.words.has(word)).length;
    weight.set(
      word,
      Math.log(1 + (candidates.length + 1) / (df + 0.5)) * (own.has(word) || own.size === 0 ? 1 : BORROWED_WEIGHT),
    );
  }
  const total = [...weight.values()].reduce((a, b) => a + b, 0) || 1;
  for (const c of candidates) {
    let covered = 0;
    for (const [word, w] of weight) if (c.words.has(word)) covered += w;
    c.score = (covered / total) * c.weight + (covered > 0 ? c.bonus : 0);
    if (type !== null && covered > 0 && holdsType(c.unit, type, asked)) c.score *= 1 + TYPE_BOOST;
  }
}

/**
 * What kind of block a question points at: a command or snippet, steps, a list, a table row. Plain
 * keyword cues (English): visitors ask "how do I…", "which command…", "how long…", "what are the…".
 */
export function pointedBlocks(question: string): Set<Unit['kind']> {
  const q = question.toLowerCase();
  const kinds = new Set<Unit['kind']>();
  if (
    /`|\b(commands?|cli|terminal|shell|install|run|syntax|expression|snippet|code|curl|headers?|script|flags?|env|variables?|config|configure|set)\b/.test(
      q,
    )
  )
    kinds.add('code');
  if (/\bhow (do|can|should|would) (i|we|you)\b|\bhow to\b|\bsteps?\b|\bset ?up\b|\benable\b|\bturn on\b/.test(q))
    kinds.add('list').add('code');
  if (/\b(which|what are|list|options|types|kinds|supported|examples?)\b/.test(q)) kinds.add('list');
  if (
    /\bhow (long|much|many|fast|often)\b|\b(limits?|maximum|max|minimum|price|pricing|costs?|per (plan|month|hour)|plans?|retention|retained|kept|quotas?|sizes?|tiers?)\b/.test(
      q,
    )
  )
    kinds.add('table');
  return kinds;
}

/** A sentence that refers back ("This ensures…", "It…") needs the sentence before it. */
const REFERS_BACK = /^(this|that|these|those|it|they|such|otherwise|instead|then)\b/i;
/** "that hostname", "these variables", "such a value": a demonstrative and the noun it points with. */
const POINTS_WITH = /\b(this|that|these|those|such)\s+(?:an?\s+)?([\p{L}][\p{L}\p{N}_-]*)/giu;

/**
 * Does `sentence` depend on the sentence `before` it? It opens with a pronoun ("This ensures…", "It…"), says
 * "the above", or points with a demonstrative at a noun the sentence before names ("If your application does
 * not permit requests from that hostname" after "Railway uses the hostname `healthcheck.railway.app`").
 * The demonstrative rule changed no fact-in-answer number (Railway tuning, demo, SQuAD); it changes what an
 * answer reads like: "that browser" now arrives with "Clearance from the browser check is scoped to your
 * whole domain."
 */
export function refersBack(sentence: string, before: Set<string>): boolean {
  if (REFERS_BACK.test(sentence) || /\b(the|as) above\b/i.test(sentence)) return true;
  for (const m of sentence.matchAll(POINTS_WITH)) {
    const noun = contentWords(m[2]!)[0];
    if (noun !== undefined && before.has(noun)) return true;
  }
  return false;
}

/** The quoted units: best first within the bounds, a lead-in and its block always together. `own`: the question's content words. */
function choose(
  candidates: Candidate[],
  question: string,
  own: Set<string>,
  type: AnswerType | null,
  said: (unit: Unit, chunk: number) => boolean = () => false,
  sectionUnits: (chunk: number) => Candidate[] = () => [],
): Candidate[] {
  // A title is the heading of what follows it, not an answer.
  const ranked = candidates.filter((c) => c.score > 0 && !c.unit.title).sort((a, b) => b.score - a.score);
  // Under a heading that asks the question, the section's first unit is the answer: quoted first, with the
  // best unit's score (so the relevance cut-off still applies to the rest).
  // Only on the best unit's page or a page retrieval ranked higher: a heading elsewhere does not outweigh it.
  const titled = ranked.find(
    (c) => c.answersTitle && (c.chunk <= ranked[0]!.chunk || c.documentId === ranked[0]!.documentId),
  );
  if (titled && titled !== ranked[0]) {
    ranked.splice(ranked.indexOf(titled), 1);
    titled.score = ranked[0]!.score;
    ranked.unshift(titled);
  }
  // Nothing shares a word with the question (a match on meaning alone): the best chunk's opening.
  const opening = candidates.find((c) => !c.unit.title);
  if (ranked.length === 0 && opening) ranked.push(opening);
  const top = ranked[0];
  if (!top) return [];
  const byUnit = new Map(candidates.map((c) => [`${c.chunk}:${c.unit.index}`, c]));
  /** The first unit of another chunk of the best unit's section that passes `test`, quoted right after that chunk. */
  const fromSection = (test: (c: Candidate) => boolean): Candidate | undefined => {
    const found = sectionUnits(top.chunk).find((c) => !c.unit.title && test(c));
    if (found) found.score = top.score * 0.999;
    return found;
  };
  const chosen = new Map<string, Candidate>();
  const pointed = pointedBlocks(question);
  // A question that points at a block keeps a sentence free for that block's lead-in.
  const sentenceLimit = pointed.size > 0 ? MAX_ANSWER_SENTENCES - 1 : MAX_ANSWER_SENTENCES;
  let sentences = 0;
  let blocks = 0;

  /** Quotes a unit with its lead-in or block when they fit within `limit` sentences and one block. */
  const take = (candidate: Candidate, limit: number): void => {
    const key = `${candidate.chunk}:${candidate.unit.index}`;
    if (chosen.has(key)) return;
    const { unit } = candidate;
    const partnerIndex = unit.kind === 'sentence' ? unit.introduces : unit.leadIn;
    const partner = partnerIndex === undefined ? undefined : byUnit.get(`${candidate.chunk}:${partnerIndex}`);
    const group = partner && !chosen.has(`${partner.chunk}:${partner.unit.index}`) ? [candidate, partner] : [candidate];
    const addSentences = group.filter((c) => c.unit.kind === 'sentence').length;
    if (sentences + addSentences > limit) return;
    if (blocks + group.length - addSentences > MAX_ANSWER_BLOCKS) {
      // A lead-in whose block no longer fits is still quoted when it reads as a sentence on its own.
      if (unit.kind !== 'sentence' || /:\s*$/.test(unit.markdown)) return;
      group.splice(1);
    }
    for (const c of group) chosen.set(`${c.chunk}:${c.unit.index}`, c);
    sentences += group.filter((c) => c.unit.kind === 'sentence').length;
    blocks += group.filter((c) => c.unit.kind !== 'sentence').length;
  };

  for (const candidate of ranked) {
    if (candidate !== top && candidate.score < RELEVANCE_RATIO * top.score) break;
    // A pointer ("See …") adds nothing next to a sentence that answers.
    if (candidate !== top && candidate.unit.pointer) continue;
    take(candidate, candidate === top ? MAX_ANSWER_SENTENCES : sentenceLimit);
    if (sentences >= sentenceLimit && blocks >= MAX_ANSWER_BLOCKS) break;
  }
  // A note (an aside: a warning, a tip) quoted as the answer's block gives way to a block of its chunk that holds
  // the answer type: "How do I remove the notice?" wants the configuration, not the plea to keep it.
  const note = [...chosen.entries()].find(([, c]) => c.unit.kind === 'note');
  if (note && type !== null && !holdsType(note[1].unit, type, own)) {
    const block = ranked.find(
      (c) => c.chunk === note[1].chunk && c.unit.kind !== 'sentence' && holdsType(c.unit, type, own),
    );
    if (block) {
      chosen.delete(note[0]);
      blocks -= 1;
      take(block, MAX_ANSWER_SENTENCES);
    }
  }
  // The block the question points at, from the chunk that answers best (or another chunk of its section: the
  // commands under "To solve this:" can open the next chunk), when the answer has none yet.
  if (blocks === 0 && pointed.size > 0) {
    const block =
      ranked.find((c) => c.chunk === top.chunk && pointed.has(c.unit.kind)) ??
      fromSection((c) => pointed.has(c.unit.kind) && !said(c.unit, c.chunk));
    if (block) take(block, MAX_ANSWER_SENTENCES);
  }
  // "How do I…" wants the steps: when the answer has no block yet, the answering page's steps (numbered, or
  // the commands), from another of its sections when the best unit's section has none.
  if (blocks === 0 && type === 'procedure') {
    const steps = ranked.find((c) => c.documentId === top.documentId && holdsType(c.unit, 'procedure'));
    if (steps) take(steps, MAX_ANSWER_SENTENCES);
  }
  // The sentence that holds the value: a question asking for a default, a number or a date whose quote so far
  // holds none gets the unit of the best unit's section that does (the option's "**Default:** `4096`" line
  // under a description sentence that matched the question's words better).
  const value = valueAsked(question, type);
  if (value !== null && ![...chosen.values()].some((c) => c.chunk === top.chunk && holdsValue(c.unit, value))) {
    const holds = (c: Candidate) => !c.unit.title && holdsValue(c.unit, value) && !said(c.unit, c.chunk);
    // Retrieval cites one chunk per section; the value may be in another chunk of the same section (an
    // option's "By default, …" sentence in the chunk after the note that matched the question's words).
    const holder = candidates.find((c) => c.chunk === top.chunk && holds(c)) ?? fromSection(holds);
    if (holder && holder.unit.kind !== 'sentence' && blocks >= MAX_ANSWER_BLOCKS) {
      // The value outranks the block quoted so far (a note, an example): that block gives way.
      for (const [key, c] of chosen) {
        if (c.unit.kind === 'sentence') continue;
        chosen.delete(key);
        blocks -= 1;
        // Its lead-in ("… use:") would introduce nothing.
        const lead = c.unit.leadIn === undefined ? undefined : `${c.chunk}:${c.unit.leadIn}`;
        if (lead && chosen.has(lead) && /:\s*$/.test(chosen.get(lead)!.unit.markdown)) {
          chosen.delete(lead);
          sentences -= 1;
        }
      }
    }
    if (holder) take(holder, MAX_ANSWER_SENTENCES);
  }
  // The best sentence's paragraph goes on: the next sentence usually finishes the thought (the fix after the
  // symptom, the value after the setting), which beats a sentence from another page.
  if (top.unit.kind === 'sentence') {
    for (let i = 1; i <= CONTINUATION && sentences < sentenceLimit; i++) {
      const next = byUnit.get(`${top.chunk}:${top.unit.index + i}`);
      if (next?.unit.kind !== 'sentence' || next.unit.paragraph !== top.unit.paragraph || said(next.unit, next.chunk))
        break;
      take(next, sentenceLimit);
    }
  }
  // The paragraph before the best sentence: with room left, the sentences before it in its paragraph, nearest
  // first, while they share a word with the question, so a rule the best sentence qualifies ("Credits and
  // promotions only apply to new signups." before "If you already have an account, … the credits will not apply
  // to you.") or a default stated before the way to change it reads whole. A sentence sharing no word (the
  // paragraph's scene-setting) stops it. Measured in docs/retrieval-and-answers.md, "Round 9b".
  if (top.unit.kind === 'sentence') {
    for (let i = 1; sentences < sentenceLimit; i++) {
      const before = byUnit.get(`${top.chunk}:${top.unit.index - i}`);
      if (
        before?.unit.kind !== 'sentence' ||
        before.unit.paragraph !== top.unit.paragraph ||
        before.unit.title ||
        before.score <= 0 ||
        said(before.unit, before.chunk)
      )
        break;
      take(before, sentenceLimit);
    }
  }
  // Context: a quoted sentence that refers back brings the sentence it refers to — or the block right before it,
  // with that block's lead-in, when the answer has no block yet ("This discovery document contains …" under the
  // endpoint's URL: the URL is what the visitor asked for). Measured in docs/retrieval-and-answers.md, "Round 12".
  for (const c of [...chosen.values()]) {
    if (c.unit.kind !== 'sentence' || sentences >= MAX_ANSWER_SENTENCES) continue;
    const before = byUnit.get(`${c.chunk}:${c.unit.index - 1}`);
    if (
      before !== undefined &&
      before.unit.kind !== 'sentence' &&
      blocks < MAX_ANSWER_BLOCKS &&
      !said(before.unit, before.chunk) &&
      refersBack(c.unit.markdown, before.unit.words)
    ) {
      take(before, MAX_ANSWER_SENTENCES);
      continue;
    }
    if (
      before?.unit.kind !== 'sentence' ||
      before.unit.title ||
      before.unit.introduces !== undefined ||
      said(before.unit, before.chunk)
    )
      continue;
    if (refersBack(c.unit.markdown, before.unit.words)) take(before, MAX_ANSWER_SENTENCES);
  }
  // Chunks in the order of their best quoted unit; units in reading order within a chunk.
  const list = [...chosen.values()];
  const chunkRank = new Map<number, number>();
  for (const c of [...list].sort((a, b) => b.score - a.score))
    if (!chunkRank.has(c.chunk)) chunkRank.set(c.chunk, chunkRank.size);
  return list.sort((a, b) => chunkRank.get(a.chunk)! - chunkRank.get(b.chunk)! || a.unit.index - b.unit.index);
}

/** `all`: the chunks units were quoted from (retrieval's, then any sibling read); `chunks`: retrieval's, for related sources. */
function compose(chosen: Candidate[], all: ChunkMatch[], chunks: ChunkMatch[]): ExtractiveAnswer {
  // One citation per document section, numbered in order of first appearance.
  const numberOf = new Map<string, number>();
  const citations: Citation[] = [];
  const cite = (c: number): number => {
    const chunk = all[c]!;
    const key = sectionKey(chunk);
    let n = numberOf.get(key);
    if (n === undefined) {
      n = citations.length + 1;
      numberOf.set(key, n);
      citations.push(toCitation(chunk, n, firstQuoted(chosen, c)));
    }
    return n;
  };

  const parts: string[] = [];
  let prose: string[] = [];
  const flush = () => {
    if (prose.length > 0) parts.push(prose.join(' '));
    prose = [];
  };
  for (const { unit, chunk } of chosen) {
    const n = cite(chunk);
    if (unit.kind === 'sentence') {
      prose.push(`${unit.markdown} [${n}]`);
      continue;
    }
    flush();
    const introduced =
      unit.leadIn !== undefined && chosen.some((c) => c.chunk === chunk && c.unit.index === unit.leadIn);
    if (introduced) parts.push(unit.markdown);
    else if (unit.kind === 'list' || unit.kind === 'note') parts.push(withTrailingMarker(unit.markdown, n));
    else parts.push(unit.markdown, `[${n}]`);
  }
  flush();

  const quoted = new Set(numberOf.keys());
  const related: Related[] = [];
  for (const chunk of chunks) {
    const key = sectionKey(chunk);
    if (quoted.has(key) || related.length >= MAX_RELATED) continue;
    quoted.add(key);
    related.push(toRelated(chunk));
  }
  return { text: parts.join('\n\n'), citations, related };
}

/** A list's or note's marker goes at the end of its last line, unless that line closes a code fence. */
function withTrailingMarker(markdown: string, n: number): string {
  return /(```|~~~)\s*$/.test(markdown) ? `${markdown}\n\n[${n}]` : `${markdown} [${n}]`;
}

/** The first prose unit quoted from chunk `c`: the citation's excerpt (and text-fragment link) starts there. */
function firstQuoted(chosen: Candidate[], c: number): string | null {
  return chosen.find((x) => x.chunk === c && x.unit.kind === 'sentence')?.unit.markdown ?? null;
}

function toCitation(chunk: ChunkMatch, n: number, quoted: string | null): Citation {
  // The excerpt starts at the quoted sentence when it can be found in the chunk as written.
  const at = quoted ? chunk.content.indexOf(quoted) : -1;
  return {
    n,
    ...toRelated(chunk),
    similarity: Math.round(chunk.similarity * 1000) / 1000,
    excerpt: excerpt(at > 0 ? chunk.content.slice(at) : chunk.content, 300),
    ...(typeof chunk.meta.char_start === 'number' && typeof chunk.meta.char_end === 'number'
      ? { char_start: chunk.meta.char_start, char_end: chunk.meta.char_end }
      : {}),
  };
}

/** Where a chunk is: what a related source shows, and the first fields of a citation. */
export function toRelated(chunk: ChunkMatch): Related {
  return {
    chunk_id: chunk.chunk_id,
    document_id: chunk.document_id,
    title: chunk.document_title,
    page: typeof chunk.meta.page === 'number' ? chunk.meta.page : null,
    section: chunk.meta.section ?? null,
    url: chunk.meta.url ?? chunk.document_url ?? null,
  };
}
