/**
 * A follow-up's answer must say something new: the visitor has just read the earlier answer, and a follow-up
 * ("How long are the daily ones kept?" after a question about manual backups) asks for the next fact, which
 * is usually beside the one already quoted on the same page. The earlier topic's words and the preference
 * for the pages it cited (server/chat/context.ts) bring that page back, so without this its sentences, which
 * share the most words with the contextual query, would be quoted again.
 *
 * A unit the earlier answer already quoted is scored at REPEAT_WEIGHT of its score: still quoted when
 * nothing else on the cited pages answers (then it is the answer), never as padding around the new fact.
 */
import type { Unit } from './units.ts';

/**
 * Share of its score a unit keeps when the earlier answer quoted it. Without it, 16 of the 54 Railway later
 * turns in hybrid mode quoted a sentence of the answer before them, 10 of them without the fact asked; at
 * 0.25 the demo's "How do I change it?" still quoted the earlier paragraph first (its CHAT_EVIDENCE_THRESHOLD
 * sentence outscored, a quarter weight and all, the new one that says how the threshold is set).
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

function squeeze(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
