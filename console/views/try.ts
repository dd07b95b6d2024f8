/**
 * Try a question: the retrieval debugger. The question runs through the chat endpoint's own retrieval, gate
 * and extraction on the server (embedded there when the server can); nothing is stored. Shows every
 * candidate's signals, the gate's decision and threshold, and the answer a visitor would get.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { ADMIN_PATHS, type TryResult } from '../../protocol/index.ts';
import { formatNumber } from '../api.ts';
import { citationLabel, citationList } from './citations.ts';
import { markdown } from './markdown.ts';
import { AdminView } from './view.ts';

@customElement('kb-admin-try')
export class TryView extends AdminView {
  static override styles = [
    ...AdminView.styles,
    css`
      form { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: flex-end; margin-bottom: 1rem; }
      form label:first-child { flex: 1 1 24rem; }
      textarea { width: 100%; box-sizing: border-box; min-height: 3rem; }
      .verdict { font-size: 1.05rem; }
      tr.cited td { background: #eef5ea; }
      .excerpt { font-size: 0.85rem; color: var(--kb-admin-muted); }
      .citations { padding-left: 1.5rem; }
    `,
  ];

  /** Pre-filled from `#/try?q=…` (the gaps view's "Try it"). */
  @property() question = '';
  @state() private mode = '';
  @state() private result: TryResult | null = null;
  @state() private showAll = false;

  override updated(changed: Map<PropertyKey, unknown>): void {
    // A new `#/try?q=…` (the gaps view's "Try it") asks at once.
    if (changed.has('question') && this.question && !this.typing) void this.ask();
    this.typing = false;
  }
  private typing = false;

  private ask(event?: SubmitEvent) {
    event?.preventDefault();
    if (!this.question.trim()) return;
    return this.run(
      () =>
        this.api.request<TryResult>('POST', ADMIN_PATHS.try, {
          message: this.question,
          ...(this.mode ? { mode: this.mode } : {}),
        }),
      (result) => ((this.result = result), (this.showAll = false)),
    );
  }

  /** Enter asks, as in the widget; Shift+Enter is a new line, and Enter that confirms an IME composition is neither. */
  private enterAsks = (event: KeyboardEvent) => {
    if (event.key !== 'Enter' || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    (event.target as HTMLTextAreaElement).form?.requestSubmit();
  };

  override render() {
    return html`<h2>Try a question</h2>
      <p class="muted">Runs the question exactly as the chat does — same retrieval, same evidence gate, same answer — without storing anything.</p>
      <form @submit=${this.ask}>
        <label>Question
          <textarea name="question" .value=${this.question} @input=${(e: Event) => ((this.typing = true), (this.question = (e.target as HTMLTextAreaElement).value))} @keydown=${this.enterAsks} maxlength="2000" required></textarea>
        </label>
        <label>Retrieval mode
          <select @change=${(e: Event) => (this.mode = (e.target as HTMLSelectElement).value)}>
            <option value="">As configured</option>
            <option value="hybrid">Hybrid</option>
            <option value="vector">Vector</option>
            <option value="lexical">Lexical (keywords)</option>
          </select>
        </label>
        <button type="submit" ?disabled=${this.loading}>Ask</button>
      </form>
      ${this.status()}
      ${this.result ? this.renderResult(this.result) : nothing}`;
  }

  private renderResult(r: TryResult) {
    const answered = r.decision === 'answer';
    return html`<section class="panel" aria-labelledby="verdict">
        <h3 id="verdict" class="verdict">
          ${answered ? html`<span class="badge ok">Answers</span>` : html`<span class="badge bad">Refuses</span>`}
          best evidence ${formatNumber(r.evidence)} ${answered ? '≥' : '<'} threshold ${formatNumber(r.threshold)}
        </h3>
        <p class="muted">Mode ${r.mode}${r.embedded ? ' (question embedded)' : ' (keywords only: no embedding)'} · citation floor ${formatNumber(r.citation_floor)}${r.confidence ? html` · confidence ${r.confidence}` : nothing}</p>
        <h3>What the visitor gets</h3>
        ${
          r.answer
            ? html`${markdown(r.answer.text)}${citationList(r.answer.citations)}`
            : html`<p class="text">${r.refusal?.message ?? ''}</p>`
        }
      </section>
      <h3>Candidates (${r.candidates.length})</h3>
      <div class="table-wrap"><table>
        <caption class="visually-hidden">Retrieval candidates in fused order</caption>
        <thead><tr>
          <th scope="col" class="num">#</th><th scope="col">Chunk</th><th scope="col" class="num">Cosine</th><th scope="col" class="num">Coverage</th>
          <th scope="col" class="num">BM25</th><th scope="col" class="num">Vector rank</th><th scope="col" class="num">Lexical rank</th>
          <th scope="col" class="num">Score</th><th scope="col" class="num">Evidence</th><th scope="col">Cited</th>
        </tr></thead>
        <tbody>
          ${(this.showAll ? r.candidates : r.candidates.slice(0, 10)).map(
            (c, i) => html`<tr class=${c.cited ? 'cited' : ''}>
              <td class="num">${i + 1}</td>
              <td><strong>${c.title}</strong>${c.section && c.section !== c.title ? html` <span class="muted">› ${citationLabel(c.title, c.section).slice(c.title.length + 3)}</span>` : nothing}<div class="excerpt text">${c.excerpt}</div></td>
              <td class="num">${formatNumber(c.cosine)}</td>
              <td class="num">${formatNumber(c.coverage)}</td>
              <td class="num">${formatNumber(c.bm25, 2)}</td>
              <td class="num">${c.vector_rank ?? '—'}</td>
              <td class="num">${c.lexical_rank ?? '—'}</td>
              <td class="num">${formatNumber(c.score, 4)}</td>
              <td class="num">${formatNumber(c.evidence)}</td>
              <td>${c.cited ? 'cited' : c.evidence >= r.citation_floor && answered ? 'qualifies' : ''}</td>
            </tr>`,
          )}
        </tbody>
      </table></div>
      ${
        r.candidates.length > 10 && !this.showAll
          ? html`<p><button class="secondary" @click=${() => (this.showAll = true)}>Show all ${r.candidates.length} candidates</button></p>`
          : nothing
      }`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'kb-admin-try': TryView;
  }
}
