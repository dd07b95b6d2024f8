/** The standard refusals: no evidence for the question, and an empty knowledge base. */
import type { Refusal, RefusalAction, Related } from '../../protocol/index.ts';
import { DEFAULT_SUGGESTIONS } from '../settings/runtime.ts';

/**
 * The suggestion labels that are actions, not questions: sent as questions they were "answered" from
 * whatever page matched "support" or "question". An admin's list may still name them (the console showed
 * the defaults as a list to edit), so they are recognised by label, case and spacing aside.
 */
const ACTION_LABELS: Readonly<Record<string, RefusalAction>> = {
  'contact support': 'contact_support',
  'rephrase your question': 'rephrase',
};

/** Splits a suggestion list into the questions an admin offers and the built-in actions it names. */
export function refusalChoices(list: readonly string[]): { suggestions: string[]; actions: RefusalAction[] } {
  const suggestions: string[] = [];
  const actions: RefusalAction[] = [];
  for (const label of list) {
    const action = ACTION_LABELS[label.trim().replace(/\s+/g, ' ').toLowerCase()];
    if (!action) suggestions.push(label);
    else if (!actions.includes(action)) actions.push(action);
  }
  return { suggestions, actions };
}

/**
 * A "no evidence" refusal. Its message names support only when the owner has set where support is
 * (`supportUrl`, the console's support address) and the suggestions keep "Contact support": by default there
 * is neither, and a message pointing at support the visitor cannot find is worse than none. A page's own
 * `support-url` still shows the "Contact support" chip (the widget decides that; the action is sent either way).
 */
export function noEvidenceRefusal(
  suggestions: readonly string[] = DEFAULT_SUGGESTIONS,
  closest: Related[] = [],
  supportUrl: string | null = null,
): Refusal {
  const choices = refusalChoices(suggestions);
  const support = supportUrl !== null && choices.actions.includes('contact_support');
  const rephrase = choices.actions.includes('rephrase');
  const hint =
    support && rephrase
      ? ' You might try contacting support or rephrasing your question.'
      : support
        ? ' You might try contacting support.'
        : rephrase
          ? ' You might try rephrasing your question.'
          : '';
  return {
    type: 'refusal',
    reason: 'no_evidence',
    message: `I don't have enough information to answer that question.${hint}`,
    ...choices,
    ...(closest.length > 0 ? { closest } : {}),
  };
}

export function emptyKbRefusal(): Refusal {
  return {
    type: 'refusal',
    reason: 'empty_kb',
    message: 'The knowledge base is empty. Please contact an admin.',
    suggestions: [],
    actions: ['contact_support'],
  };
}

/**
 * A refusal as stored in a message's meta, for a replay or the history: meta written before actions
 * existed kept them among the suggestions.
 */
export function storedRefusal(meta: {
  reason?: string;
  suggestions?: string[];
  actions?: string[];
  closest?: Related[];
}): Pick<Refusal, 'suggestions' | 'actions' | 'closest'> {
  const { suggestions, actions } = refusalChoices(Array.isArray(meta.suggestions) ? meta.suggestions : []);
  const stored = (Array.isArray(meta.actions) ? meta.actions : []) as RefusalAction[];
  return {
    suggestions,
    actions: [...new Set([...stored, ...actions])],
    ...(Array.isArray(meta.closest) && meta.closest.length > 0 ? { closest: meta.closest } : {}),
  };
}
