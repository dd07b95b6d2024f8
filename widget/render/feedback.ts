/**
 * 👍 / 👎 under an answer or a refusal, and the optional comment form after 👎. Icon buttons with
 * their names as `aria-label` (and tooltip), `aria-pressed` on the chosen one; Enter sends the comment,
 * Escape or Skip closes the form.
 */
import { html, nothing, svg, type TemplateResult } from 'lit/html.js';
import type { FeedbackRating } from '../../protocol/feedback.ts';
import type { FeedbackState } from '../controllers/feedback-controller.ts';
import type { KbChatStrings } from '../i18n.ts';

export interface FeedbackView {
  strings: KbChatStrings;
  state: FeedbackState;
  rate: (rating: FeedbackRating) => void;
  comment: (text: string) => void;
  close: () => void;
  retry: () => void;
}

// A thumb (Lucide's thumbs-up); 👎 is the same path flipped by CSS.
const THUMB = svg`<svg viewBox="0 0 24 24" width="16" height="16" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false"><path d="M7 10v12"/><path d="M15 5.88 14 10h5.83a2 2 0 0 1 1.92 2.56l-2.33 8A2 2 0 0 1 17.5 22H4a2 2 0 0 1-2-2v-8a2 2 0 0 1 2-2h2.76a2 2 0 0 0 1.79-1.11L12 2a3.13 3.13 0 0 1 3 3.88Z"/></svg>`;

function thumb(view: FeedbackView, rating: FeedbackRating, label: string, part: string): TemplateResult {
  return html`<button
    type="button"
    class="icon-button feedback__button"
    part="feedback-button ${part}"
    aria-label=${label}
    data-tooltip=${label}
    aria-pressed=${String(view.state.rating === rating)}
    @click=${() => view.rate(rating)}
  >${THUMB}</button>`;
}

function onSubmit(view: FeedbackView, event: Event): void {
  event.preventDefault();
  view.comment((event.currentTarget as HTMLFormElement).querySelector('input')!.value);
}

function onKeydown(view: FeedbackView, event: KeyboardEvent): void {
  // Escape closes the form, not the panel.
  if (event.key !== 'Escape') return;
  event.preventDefault();
  event.stopPropagation();
  view.close();
}

export function renderFeedback(view: FeedbackView): TemplateResult {
  const { strings: s, state } = view;
  return html`<div class="feedback" part="feedback">
      <div class="feedback__bar" role="group" aria-label=${s.feedbackPrompt}>
        ${thumb(view, 1, s.helpful, 'feedback-up')} ${thumb(view, -1, s.notHelpful, 'feedback-down')}
        <span class="feedback__status" role="status">${
          state.status === 'sent' && !state.commenting
            ? s.feedbackThanks
            : state.status === 'error'
              ? html`<span class="status--problem">${s.feedbackError}</span>
                <button type="button" class="link-button" part="feedback-retry" @click=${view.retry}>${s.retry}</button>`
              : nothing
        }</span>
      </div>
      ${
        state.commenting
          ? html`<form class="feedback__form" part="feedback-form" @submit=${(e: Event) => onSubmit(view, e)}>
            <input
              type="text"
              part="feedback-input"
              maxlength="1000"
              aria-label=${s.feedbackCommentLabel}
              placeholder=${s.feedbackCommentLabel}
              @keydown=${(e: KeyboardEvent) => onKeydown(view, e)}
            />
            <button type="submit" class="pill-button">${s.send}</button>
            <button type="button" class="link-button" @click=${view.close}>${s.feedbackSkip}</button>
          </form>`
          : nothing
      }
    </div>`;
}
