/** One turn of the conversation. Only the assistant's Markdown is HTML, and only after sanitizing. */
import { html, nothing, type TemplateResult } from 'lit';
import { unsafeHTML } from 'lit/directives/unsafe-html.js';
import type { AnswerTurn, RefusalTurn, Turn } from '../controllers/chat-controller.ts';
import { renderMarkdown } from './markdown.ts';
import { renderSources } from './sources.ts';

const typing = html`<span class="typing" part="typing-indicator" role="img" aria-label="The assistant is typing"
  ><span></span><span></span><span></span
></span>`;

function renderAnswer(turn: AnswerTurn): TemplateResult {
  const inProgress = turn.status === 'pending' || turn.status === 'streaming';
  return html`
    <div class="message message--assistant" part="message assistant-message" data-status=${turn.status}>
      ${turn.markdown ? html`<div class="markdown">${unsafeHTML(renderMarkdown(turn.markdown))}</div>` : nothing}
      ${inProgress ? typing : nothing}
      ${turn.error ? html`<div class="message__error" part="error" role="alert">${turn.error}</div>` : nothing}
      ${renderSources(turn.citations)}
    </div>
  `;
}

function renderRefusal(turn: RefusalTurn): TemplateResult {
  return html`
    <div class="message message--refusal" part="message refusal">
      <p>${turn.message}</p>
      ${turn.suggestions.length
        ? html`<ul class="suggestions" part="suggestions">
            ${turn.suggestions.map((suggestion) => html`<li class="suggestion" part="suggestion">${suggestion}</li>`)}
          </ul>`
        : nothing}
    </div>
  `;
}

export function renderTurn(turn: Turn): TemplateResult {
  switch (turn.kind) {
    case 'user':
      return html`<div class="message message--user" part="message user-message">${turn.text}</div>`;
    case 'answer':
      return renderAnswer(turn);
    case 'refusal':
      return renderRefusal(turn);
  }
}
