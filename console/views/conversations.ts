/**
 * Conversations: each question with the answer (or refusal) it got, its citations, confidence, mode and
 * rating; "Read the conversation" opens its session as a thread (thread.ts) at `#/conversations/<session id>`.
 * Answers are Markdown, shown rendered and sanitised by the widget's renderer (markdown/render.ts).
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { ADMIN_PATHS, type AdminConversation, type AdminThread, type Page } from '../../protocol/index.ts';
import { formatTime } from '../api.ts';
import { citationList } from './citations.ts';
import { markdown } from './markdown.ts';
import './export.ts';
import { pager } from './pager.ts';
import { renderThread } from './thread.ts';
import { AdminView } from './view.ts';

@customElement('kb-admin-conversations')
export class ConversationsView extends AdminView {
  static override styles = [
    ...AdminView.styles,
    css`
      article { background: var(--kb-admin-surface); border: 1px solid var(--kb-admin-border); border-radius: 8px; padding: 0.75rem 1rem; margin-bottom: 0.75rem; }
      article h3 { margin: 0 0 0.25rem; font-size: 1rem; }
      .meta { display: flex; flex-wrap: wrap; gap: 0.25rem 0.75rem; }
      .answer { margin: 0.5rem 0; }
      .comment { border-left: 4px solid var(--kb-admin-danger); padding-left: 0.75rem; margin: 0.5rem 0; }
      .written { border-left: 4px solid var(--kb-admin-accent); padding-left: 0.75rem; margin: 0.5rem 0; }
      .written p { margin: 0 0 0.25rem; }
      .citations { margin: 0.25rem 0 0; padding-left: 1.5rem; }
      .turns { list-style: none; padding: 0; margin: 0; }
      .question { margin: 0 0 0.25rem; }
    `,
  ];

  @state() private page: Page<AdminConversation> | null = null;
  @state() private filters = { rating: 'any', outcome: 'any', from: '', to: '' };
  /** The session the address names (`#/conversations/<id>`), read as a thread; '' for the list. */
  @property() session = '';
  /** The thread shown for `session`; the list (its filters and page) stays behind it. */
  @state() private thread: AdminThread | null = null;

  private load(offset: number) {
    const { rating, outcome, from, to } = this.filters;
    // Dates are days in the admin's own time zone; `to` includes its whole day.
    const day = (value: string, plus = 0) =>
      value ? new Date(new Date(`${value}T00:00:00`).getTime() + plus).toISOString() : undefined;
    return this.run(
      () =>
        this.api.get<Page<AdminConversation>>(ADMIN_PATHS.conversations, {
          rating,
          outcome,
          from: day(from),
          to: day(to, 86_400_000),
          limit: 25,
          offset,
        }),
      (page) => (this.page = page),
    );
  }

  private set(name: keyof ConversationsView['filters'], value: string) {
    this.filters = { ...this.filters, [name]: value };
    void this.load(0);
  }

  override willUpdate(changed: Map<PropertyKey, unknown>): void {
    if (!changed.has('session')) return;
    this.thread = null;
    // Opened at a thread's address, the list loads when the visitor goes back to it.
    if (this.session) void this.openThread(this.session);
    else if (!this.page) void this.load(0);
  }

  private openThread(sessionId: string) {
    return this.run(
      () => this.api.get<AdminThread>(`${ADMIN_PATHS.conversations}/${encodeURIComponent(sessionId)}`),
      (thread) => (this.thread = thread),
    );
  }

  override render() {
    if (this.session) {
      return html`<h2>Conversation</h2>
        ${this.status()}
        ${this.thread ? renderThread(this.thread) : html`<p><a href="#/conversations">← All conversations</a></p>`}`;
    }
    const items = this.page?.items ?? [];
    const select = (name: 'rating' | 'outcome', label: string, options: [string, string][]) =>
      html`<label>${label}
        <select @change=${(e: Event) => this.set(name, (e.target as HTMLSelectElement).value)}>
          ${options.map(([value, text]) => html`<option value=${value} ?selected=${this.filters[name] === value}>${text}</option>`)}
        </select>
      </label>`;
    return html`<h2>Conversations</h2>
      <p class="muted">Newest first. Visitors are shown as opaque ids: the same id is the same visitor, nothing more.</p>
      <div class="filters">
        ${select('rating', 'Rating', [
          ['any', 'Any'],
          ['down', 'Not helpful (👎)'],
          ['up', 'Helpful (👍)'],
          ['none', 'Not rated'],
        ])}
        ${select('outcome', 'Outcome', [
          ['any', 'Any'],
          ['answered', 'Answered'],
          ['refused', 'Refused'],
        ])}
        <label>From <input type="date" .value=${this.filters.from} @change=${(e: Event) => this.set('from', (e.target as HTMLInputElement).value)} /></label>
        <label>To <input type="date" .value=${this.filters.to} @change=${(e: Event) => this.set('to', (e.target as HTMLInputElement).value)} /></label>
      </div>
      <kb-admin-export .api=${this.api} .kinds=${['conversations', 'feedback']}></kb-admin-export>
      ${this.status()}
      ${this.page && items.length === 0 ? html`<p>No conversations match.</p>` : nothing}
      ${items.map((c) => this.renderItem(c))}
      ${pager(this.page, (offset) => void this.load(offset))}`;
  }

  private renderItem(c: AdminConversation) {
    const rating =
      c.rating === 1
        ? html`<span class="badge ok">helpful</span>`
        : c.rating === -1
          ? html`<span class="badge bad">not helpful</span>`
          : html`<span class="muted">not rated</span>`;
    return html`<article>
      <h3 class="text">${c.question}</h3>
      <div class="meta muted">
        <span>${formatTime(c.asked_at)}</span>
        <span>visitor <code>${c.visitor}</code></span>
        ${c.channel === 'mcp' ? html`<span class="badge">via MCP</span>` : nothing}
        ${
          c.kind === 'refusal'
            ? html`<span class="badge bad">refused${c.reason === 'empty_kb' ? ' (empty knowledge base)' : ''}</span>`
            : html`<span>confidence ${c.confidence ?? '—'}</span><span>mode ${c.mode ?? '—'}</span>`
        }
        ${rating}
      </div>
      <div class="answer">${markdown(c.answer)}</div>
      ${
        c.generated
          ? html`<div class="written"><p class="muted">Written by <code>${c.generated.model}</code> in the visitor's browser from these sources:</p>
            <div class="answer">${markdown(c.generated.text)}</div></div>`
          : nothing
      }
      ${c.comment ? html`<p class="comment text"><strong>Comment:</strong> ${c.comment}</p>` : nothing}
      ${citationList(c.citations)}
      <p><a class="button secondary" href="#/conversations/${encodeURIComponent(c.session_id)}">Read the conversation</a></p>
    </article>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'kb-admin-conversations': ConversationsView;
  }
}
