/** 👍 / 👎 of a stored answer or refusal (render/feedback.ts), wired to the FeedbackController and to focus. */
import { html, nothing, type TemplateResult } from 'lit/html.js';
import type { ReactiveControllerHost } from 'lit';
import type { AnswerTurn, RefusalTurn } from '../controllers/chat-controller.ts';
import type { FeedbackController } from '../controllers/feedback-controller.ts';
import type { KbChatStrings } from '../i18n.ts';
import { renderFeedback } from '../render/feedback.ts';

/** Nothing until the turn is stored; the comment field takes focus when it opens, 👎 gets it back after. */
export function feedbackFor(
  { answerId: id, feedback: initial }: AnswerTurn | RefusalTurn,
  feedback: FeedbackController,
  host: ReactiveControllerHost,
  root: ShadowRoot,
  strings: KbChatStrings,
): TemplateResult | typeof nothing {
  if (!id) return nothing;
  const focus = (selector: string) =>
    void host.updateComplete.then(() =>
      root.querySelector<HTMLElement>(`[data-answer="${CSS.escape(id)}"] ${selector}`)?.focus(),
    );
  const closed = () => focus('[part~="feedback-down"]');
  return html`<div data-answer=${id}>${renderFeedback({
    strings,
    state: feedback.state(id, initial),
    rate: (rating) => {
      feedback.rate(id, rating);
      if (rating === -1) focus('input');
    },
    comment: (text) => (feedback.comment(id, text), closed()),
    close: () => (feedback.closeComment(id), closed()),
    retry: () => feedback.retry(id),
  })}</div>`;
}
