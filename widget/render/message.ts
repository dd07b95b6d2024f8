/** One turn of the conversation. Only the assistant's Markdown becomes HTML, and only after sanitizing. */
import { html, nothing, type TemplateResult } from 'lit/html.js';
import type { AnswerTurn, RefusalTurn, Turn } from '../controllers/chat-controller.ts';
import { userMessageFor } from '../controllers/chat-errors.ts';
import { format, type KbChatStrings } from '../i18n.ts';
import { safeHref } from '../../markdown/escape.ts';
import { renderRelated, renderSources, type SourcesView } from './sources.ts';

export interface MessageView {
  strings: KbChatStrings;
  /** The rendered Markdown with citation badges (cached per turn by the caller). */
  answerBody: (turn: AnswerTurn) => Node;
  sources: (turn: AnswerTurn) => SourcesView;
  copied: (turn: AnswerTurn) => boolean;
  copy: (turn: AnswerTurn) => void;
  retry: (turn: AnswerTurn) => void;
  /** Generative mode: show the written or the quoted answer. */
  showView: (turn: AnswerTurn, view: 'written' | 'quoted') => void;
  /** An owner's suggested question under a refusal (or a starter): sent. */
  suggest: (text: string) => void;
  /** "Rephrase your question": the refused question back into the box, selected; nothing is sent. */
  rephrase: (turn: RefusalTurn) => void;
  /** "Contact support": `kb-escalate`, then the support address unless a listener cancelled it. */
  escalate: (turn: RefusalTurn) => void;
  /** Whether "Contact support" can lead anywhere (an address, or a `kb-escalate` listener on the element). */
  canEscalate: boolean;
  /** "Ask as a new question": the question of this follow-up again, without the conversation. */
  askAsNew: (turn: AnswerTurn) => void;
  /** 👍 / 👎 (render/feedback.ts) once the answer or refusal is stored; nothing before. */
  feedback: (turn: AnswerTurn | RefusalTurn) => TemplateResult | typeof nothing;
}

function typing(s: KbChatStrings): TemplateResult {
  return html`<span class="typing" part="typing-indicator" role="img" aria-label=${s.typing}
    ><span></span><span></span><span></span
  ></span>`;
}

function renderAnswer(turn: AnswerTurn, view: MessageView): TemplateResult {
  const s = view.strings;
  const inProgress = turn.status === 'pending' || turn.status === 'waiting' || turn.status === 'streaming';
  const failed = turn.status === 'error' || turn.status === 'cancelled';
  // Only the quoted sources count; related ones are offered, not counted.
  const n = turn.citations.length;
  const written = turn.written && turn.written.status !== 'failed' ? turn.written : undefined;
  const showWritten = written !== undefined && turn.view !== 'quoted';
  return html`
    <div class="message message--assistant" part="message assistant-message" data-status=${turn.status} data-view=${showWritten ? 'written' : 'quoted'}>
      ${turn.context?.used ? renderContext(turn, view) : nothing}
      ${written && turn.status === 'done' ? renderViews(turn, showWritten, view) : nothing}
      ${turn.markdown ? view.answerBody(turn) : nothing}
      ${showWritten && written.status === 'writing' ? html`<p class="message__note" part="note writing-note">${typing(s)} ${s.writing}</p>` : nothing}
      ${showWritten && written.status === 'done' ? html`<p class="message__note" part="note written-note">${s.writtenNote}</p>` : nothing}
      ${
        turn.modelLoading && turn.status !== 'error'
          ? html`<p class="message__note" part="note loading-note">${s.answeredWhileLoading}</p>`
          : nothing
      }
      ${
        turn.status === 'waiting'
          ? html`<p class="message__note" part="note waiting" role="status">${format(s.waitingRetry, { seconds: turn.retryInSeconds ?? 1 })}</p>`
          : nothing
      }
      ${inProgress ? typing(s) : nothing}
      ${turn.confidence === 'low' && !inProgress ? html`<p class="message__note" part="note">${s.lowConfidence}</p>` : nothing}
      ${
        failed
          ? html`<div class="message__error" part="error" role="alert">
            <span>${turn.status === 'cancelled' ? s.stopped : userMessageFor(turn.error, turn.markdown !== '', s)}</span>
            ${
              turn.request
                ? html`<button type="button" class="pill-button" part="retry-button" @click=${() => view.retry(turn)}>${s.retry}</button>`
                : nothing
            }
          </div>`
          : nothing
      }
      ${renderSources(turn.citations, view.sources(turn))}
      ${renderRelated(turn.related, s)}
      ${
        turn.status === 'done'
          ? html`<div class="answer-footer" part="answer-footer">
            <span>${n === 0 ? nothing : n === 1 ? s.groundedInOne : format(s.groundedIn, { count: n })}</span>
            <button type="button" class="link-button" part="copy-button" @click=${() => view.copy(turn)}>
              ${view.copied(turn) ? s.copied : s.copy}
            </button>
          </div>
          ${view.feedback(turn)}`
          : nothing
      }
    </div>
  `;
}

/** One line above a follow-up's answer: what it was read as being about, and a way to ask it alone. */
function renderContext(turn: AnswerTurn, view: MessageView): TemplateResult {
  const s = view.strings;
  return html`<p class="message__context" part="note context-note">
    <span>${turn.context?.about ? format(s.contextAbout, { about: turn.context.about }) : s.contextUsed}</span>
    <button type="button" class="link-button" part="ask-as-new" @click=${() => view.askAsNew(turn)}>${s.askAsNew}</button>
  </p>`;
}

/** "Written | Quoted": two views of one answer, the choice pressed. */
function renderViews(turn: AnswerTurn, showWritten: boolean, view: MessageView): TemplateResult {
  const s = view.strings;
  const option = (which: 'written' | 'quoted', label: string, pressed: boolean) =>
    html`<button type="button" class="views__option" part="view-option" data-view=${which} aria-pressed=${pressed ? 'true' : 'false'} @click=${() => view.showView(turn, which)}>${label}</button>`;
  return html`<div class="views" part="views" role="group" aria-label=${s.answerViews}>
    ${option('written', s.writtenView, showWritten)}${option('quoted', s.quotedView, !showWritten)}
  </div>`;
}

function renderRefusal(turn: RefusalTurn, view: MessageView): TemplateResult {
  const s = view.strings;
  const chip = (label: string, part: string, click: () => void) =>
    html`<li><button type="button" class="suggestion" part=${part} @click=${click}>${label}</button></li>`;
  const chips = [
    ...turn.suggestions.map((question) => chip(question, 'suggestion', () => view.suggest(question))),
    ...turn.actions.map((action) =>
      action === 'rephrase'
        ? chip(s.rephrase, 'suggestion rephrase', () => view.rephrase(turn))
        : action === 'contact_support' && view.canEscalate
          ? chip(s.contactSupport, 'suggestion contact-support', () => view.escalate(turn))
          : nothing,
    ),
  ].filter((item) => item !== nothing);
  return html`
    <div class="message message--refusal" part="message refusal">
      <p>${turn.message}</p>
      ${
        turn.closest.length
          ? html`<div class="closest" part="closest-pages">
            <p class="closest__title">${s.closestPages}</p>
            <ul class="related__list">
              ${turn.closest.map((page) => {
                const href = safeHref(page.url);
                return html`<li>${href ? html`<a href=${href} target="_blank" rel="noopener noreferrer" part="closest-page">${page.title}</a>` : page.title}
                  ${page.section ? html`<span class="source__meta">${page.section}</span>` : nothing}</li>`;
              })}
            </ul>
          </div>`
          : nothing
      }
      ${chips.length ? html`<ul class="suggestions" part="suggestions">${chips}</ul>` : nothing}
      ${view.feedback(turn)}
    </div>
  `;
}

export function renderTurn(turn: Turn, view: MessageView): TemplateResult {
  switch (turn.kind) {
    case 'user':
      return html`<div class="message message--user" part="message user-message">${turn.text}</div>`;
    case 'answer':
      return renderAnswer(turn, view);
    case 'refusal':
      return renderRefusal(turn, view);
  }
}
