/** Content gaps: the questions kb-chat refused, grouped by their normalised form, most asked first. */
import { html, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { ADMIN_PATHS, type AdminGap, type Page } from '../../protocol/index.ts';
import { formatTime } from '../api.ts';
import './export.ts';
import { pager } from './pager.ts';
import { AdminView } from './view.ts';

@customElement('kb-admin-gaps')
export class GapsView extends AdminView {
  @state() private page: Page<AdminGap> | null = null;
  @state() private filter: 'open' | 'done' | 'all' = 'open';

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load(0);
  }

  private load(offset: number) {
    return this.run(
      () => this.api.get<Page<AdminGap>>(ADMIN_PATHS.gaps, { status: this.filter, limit: 50, offset }),
      (page) => (this.page = page),
    );
  }

  private async mark(gap: AdminGap, done: boolean) {
    await this.run(
      () => this.api.request('PUT', ADMIN_PATHS.gaps, { question_key: gap.question_key, done }),
      () => {},
    );
    await this.load(this.page?.offset ?? 0);
  }

  override render() {
    const items = this.page?.items ?? [];
    return html`<h2>Content gaps</h2>
      <p class="muted">Questions kb-chat refused, grouped when they differ only in case and spacing. Add the missing page under Documents, check it under Try a question, then mark the gap done; a gap asked again afterwards opens again.</p>
      <div class="filters">
        <label>Show
          <select @change=${(e: Event) => ((this.filter = (e.target as HTMLSelectElement).value as 'open'), void this.load(0))}>
            <option value="open" ?selected=${this.filter === 'open'}>Open</option>
            <option value="done" ?selected=${this.filter === 'done'}>Done</option>
            <option value="all" ?selected=${this.filter === 'all'}>All</option>
          </select>
        </label>
      </div>
      <kb-admin-export .api=${this.api} .kinds=${['gaps']}></kb-admin-export>
      ${this.status()}
      ${this.page && items.length === 0 ? html`<p>No ${this.filter === 'all' ? '' : this.filter} gaps.</p>` : nothing}
      ${
        items.length > 0
          ? html`<div class="table-wrap"><table>
            <caption class="visually-hidden">Refused questions</caption>
            <thead><tr><th scope="col">Question</th><th scope="col" class="num">Asked</th><th scope="col">First asked</th><th scope="col">Last asked</th><th scope="col">Reason</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              ${items.map(
                (gap) => html`<tr>
                  <td class="text">${gap.question}</td>
                  <td class="num">${gap.asked}</td>
                  <td>${formatTime(gap.first_asked_at)}</td>
                  <td>${formatTime(gap.last_asked_at)}</td>
                  <td>${gap.reason === 'empty_kb' ? 'Empty knowledge base' : 'No evidence'}</td>
                  <td>
                    <a href="#/try?q=${encodeURIComponent(gap.question)}">Try it</a>
                    ${
                      gap.done_at && gap.last_asked_at <= gap.done_at
                        ? html`<button class="secondary" @click=${() => this.mark(gap, false)}>Reopen</button>`
                        : html`<button @click=${() => this.mark(gap, true)}>Mark done</button>`
                    }
                  </td>
                </tr>`,
              )}
            </tbody>
          </table></div>`
          : nothing
      }
      ${pager(this.page, (offset) => void this.load(offset))}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'kb-admin-gaps': GapsView;
  }
}
