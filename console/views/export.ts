/**
 * `<kb-admin-export>`: download conversations, ratings or content gaps as CSV or JSON for a date range
 * (`GET /api/admin/export/<kind>`). The server streams the file; the console needs its bearer token on the
 * request, which a plain link cannot carry, so it fetches the file and hands it to the browser as a download.
 */
import { html } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { exportPath, type ExportFormat, type ExportKind } from '../../protocol/export.ts';
import { AdminView } from './view.ts';

const LABELS: Record<ExportKind, string> = {
  conversations: 'Conversations',
  gaps: 'Content gaps',
  feedback: 'Ratings',
};

@customElement('kb-admin-export')
export class ExportPanel extends AdminView {
  /** What this panel exports, one pair of buttons (CSV, JSON) each. */
  @property({ attribute: false }) kinds: ExportKind[] = [];
  @state() private from = '';
  @state() private to = '';

  private async download(kind: ExportKind, format: ExportFormat) {
    // Days in the admin's own time zone; `to` includes its whole day.
    const day = (value: string, plus = 0) =>
      value ? new Date(new Date(`${value}T00:00:00`).getTime() + plus).toISOString() : undefined;
    await this.run(
      () => this.api.download(exportPath(kind), { format, from: day(this.from), to: day(this.to, 86_400_000) }),
      () => {},
    );
  }

  override render() {
    return html`<section class="panel" aria-labelledby="export-title">
      <h3 id="export-title">Export</h3>
      <p class="muted">For your own tools: every row in the date range (leave a date empty for no limit). Spreadsheet formulas in visitors' text are neutralised with a leading <code>'</code>.</p>
      <div class="filters">
        <label>From <input type="date" .value=${this.from} @change=${(e: Event) => (this.from = (e.target as HTMLInputElement).value)} /></label>
        <label>To <input type="date" .value=${this.to} @change=${(e: Event) => (this.to = (e.target as HTMLInputElement).value)} /></label>
        ${this.kinds.map(
          (kind) => html`<span role="group" aria-label=${`Export ${LABELS[kind].toLowerCase()}`}>
            <button class="secondary" ?disabled=${this.loading} @click=${() => this.download(kind, 'csv')}>${LABELS[kind]} (CSV)</button>
            <button class="secondary" ?disabled=${this.loading} @click=${() => this.download(kind, 'json')}>${LABELS[kind]} (JSON)</button>
          </span>`,
        )}
      </div>
      ${this.status()}
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'kb-admin-export': ExportPanel;
  }
}
