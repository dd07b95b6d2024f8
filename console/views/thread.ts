/**
 * One conversation as the visitor had it (`GET /api/admin/conversations/:session_id`): each question in
 * order with its answer or refusal, citations, the closest pages a refusal listed, the rating and comment,
 * and the answer the visitor's model wrote. Everything is text (Lit bindings), never HTML.
 */
import { html, nothing } from 'lit';
import type { AdminThread, AdminThreadTurn } from '../../protocol/index.ts';
import { formatTime, safeHref } from '../api.ts';
import { citationList } from './citations.ts';

export function renderThread(thread: AdminThread, back: () => void) {
  return html`<section class="thread" aria-labelledby="thread-title">
    <p><button type="button" class="secondary" @click=${back}>← All conversations</button></p>
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
    ${t.answer === null ? nothing : html`<div class="answer text"><strong>Assistant:</strong> ${t.answer}</div>`}
    ${
      t.closest.length
        ? html`<p class="muted">Closest pages offered (they may not answer this):</p>
          <ul class="citations">
            ${t.closest.map((page) => {
              const href = safeHref(page.url);
              const label = `${page.title}${page.section ? ` › ${page.section}` : ''}`;
              return html`<li>${href ? html`<a href=${href} rel="noopener noreferrer" target="_blank">${label}</a>` : label}</li>`;
            })}
          </ul>`
        : nothing
    }
    ${
      t.generated
        ? html`<div class="written"><p class="muted">Written by <code>${t.generated.model}</code> in the visitor's browser:</p>
          <div class="answer text">${t.generated.text}</div></div>`
        : nothing
    }
    ${t.comment ? html`<p class="comment text"><strong>Comment:</strong> ${t.comment}</p>` : nothing}
    ${citationList(t.citations)}
  </article>`;
}
