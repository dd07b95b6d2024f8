/**
 * One conversation as the visitor had it (`GET /api/admin/conversations/:session_id`): each question in
 * order with its answer or refusal, citations, the closest pages a refusal listed, the rating and comment,
 * and the answer the visitor's model wrote. Answers are Markdown, rendered and sanitised by the widget's
 * renderer (markdown/render.ts); everything else is text (Lit bindings).
 */
import { html, nothing } from 'lit';
import type { AdminThread, AdminThreadTurn } from '../../protocol/index.ts';
import { formatTime, safeHref } from '../api.ts';
import { citationLabel, citationList } from './citations.ts';
import { markdown } from './markdown.ts';

export function renderThread(thread: AdminThread) {
  return html`<section class="thread" aria-labelledby="thread-title">
    <p><a href="#/conversations">← All conversations</a></p>
    <h3 id="thread-title" class="text">${thread.title}</h3>
    <p class="muted">Visitor <code>${thread.visitor}</code> · ${thread.turns.length} ${thread.turns.length === 1 ? 'question' : 'questions'}, oldest first</p>
    <ol class="turns">
      ${thread.turns.map((turn) => html`<li>${renderTurn(turn)}</li>`)}
    </ol>
  </section>`;
}

function renderTurn(t: AdminThreadTurn) {
  const rating =
    t.rating === 1
      ? html`<span class="badge ok">helpful</span>`
      : t.rating === -1
        ? html`<span class="badge bad">not helpful</span>`
        : nothing;
  return html`<article>
    <p class="question text"><strong>Visitor:</strong> ${t.question}</p>
    <div class="meta muted">
      <span>${formatTime(t.asked_at)}</span>
      ${
        t.kind === 'refusal'
          ? html`<span class="badge bad">refused${t.reason === 'empty_kb' ? ' (empty knowledge base)' : ''}</span>`
          : t.kind === 'answer'
            ? html`<span>confidence ${t.confidence ?? '—'}</span><span>mode ${t.mode ?? '—'}</span>`
            : html`<span class="badge bad">no answer stored</span>`
      }
      ${rating}
    </div>
    ${t.context?.used ? html`<p class="muted about">${t.context.about ? `About: ${t.context.about}` : 'Answered in the context of the question before'}</p>` : nothing}
    ${t.answer === null ? nothing : html`<div class="answer"><strong>Assistant:</strong> ${markdown(t.answer)}</div>`}
    ${
      t.closest.length
        ? html`<p class="muted">Closest pages offered (they may not answer this):</p>
          <ul class="citations">
            ${t.closest.map((page) => {
              const href = safeHref(page.url);
              const label = citationLabel(page.title, page.section);
              return html`<li>${href ? html`<a href=${href} rel="noopener noreferrer" target="_blank">${label}</a>` : label}</li>`;
            })}
          </ul>`
        : nothing
    }
    ${
      t.generated
        ? html`<div class="written"><p class="muted">Written by <code>${t.generated.model}</code> in the visitor's browser:</p>
          <div class="answer">${markdown(t.generated.text)}</div></div>`
        : nothing
    }
    ${t.comment ? html`<p class="comment text"><strong>Comment:</strong> ${t.comment}</p>` : nothing}
    ${citationList(t.citations)}
  </article>`;
}
