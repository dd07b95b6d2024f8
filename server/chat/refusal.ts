/** The standard refusals (seed 000 US2 and "Edge Cases: Empty KB"). */
import type { Refusal } from '../../protocol/index.ts';

/** What a "no evidence" refusal offers unless an admin set `refusal_suggestions` (`/api/admin/settings`). */
export const DEFAULT_SUGGESTIONS: readonly string[] = ['Contact support', 'Rephrase your question'];

export function noEvidenceRefusal(suggestions: readonly string[] = DEFAULT_SUGGESTIONS): Refusal {
  return {
    type: 'refusal',
    reason: 'no_evidence',
    message:
      "I don't have enough information to answer that question. You might try contacting support or rephrasing your question.",
    suggestions: [...suggestions],
  };
}

export function emptyKbRefusal(): Refusal {
  return {
    type: 'refusal',
    reason: 'empty_kb',
    message: 'The knowledge base is empty. Please contact an admin.',
    suggestions: ['Contact support'],
  };
}
