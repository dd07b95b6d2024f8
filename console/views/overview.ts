/**
 * Overview: questions per day (answered and refused, a small inline SVG chart — no charting library),
 * median answer confidence and 👍/👎 over a chosen period. Every figure is computed in SQL (admin_overview).
 */
import { css, html, svg, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { ADMIN_PATHS, type Overview, type Settings } from '../../protocol/index.ts';
import { formatNumber } from '../api.ts';
import { AdminView } from './view.ts';
import { webhookChange, webhookDeliveries } from './webhook-status.ts';

const WIDTH = 720;
const HEIGHT = 180;

@customElement('kb-admin-overview')
export class OverviewView extends AdminView {
  static override styles = [
    ...AdminView.styles,
    css`
      .cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr)); gap: 0.75rem; margin-bottom: 1rem; }
      .card { background: var(--kb-admin-surface); border: 1px solid var(--kb-admin-border); border-radius: 8px; padding: 0.6rem 0.8rem; }
      .card .value { font-size: 1.5rem; font-weight: 600; }
      svg { width: 100%; height: auto; display: block; }
      .legend { display: flex; gap: 1rem; font-size: 0.9rem; }
      .swatch.answered { background: #1f5fbf; }
      .swatch.refused { background: #c2410c; }
      .swatch { display: inline-block; width: 0.8rem; height: 0.8rem; border-radius: 2px; margin-right: 0.3rem; vertical-align: -1px; }
    `,
  ];

  @state() private days = 30;
  @state() private data: Overview | null = null;
  /** The webhook's target and its latest change, shown here too: a redirected webhook should not go unseen. */
  @state() private webhook: Settings | null = null;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
    void this.api.request<Settings>('GET', ADMIN_PATHS.settings).then(
      (s) => (this.webhook = s),
      () => {},
    );
  }

  private load() {
    const to = new Date();
    const from = new Date(to.getTime() - this.days * 86_400_000);
    return this.run(
      () => this.api.get<Overview>(ADMIN_PATHS.overview, { from: from.toISOString(), to: to.toISOString() }),
      (data) => (this.data = data),
    );
  }

  override render() {
    const d = this.data;
    const rated = d ? d.up + d.down : 0;
    return html`<h2>Overview</h2>
      <div class="filters">
        <label>Period
          <select @change=${(e: Event) => ((this.days = Number((e.target as HTMLSelectElement).value)), void this.load())}>
            ${[7, 30, 90, 365].map((n) => html`<option value=${n} ?selected=${this.days === n}>Last ${n} days</option>`)}
          </select>
        </label>
      </div>
      ${this.status()}
      ${
        d
          ? html`<div class="cards">
              ${this.card('Questions', String(d.questions))}
              ${this.card('Answered', `${d.answered}${d.questions ? ` (${Math.round((100 * d.answered) / d.questions)} %)` : ''}`)}
              ${this.card('Refused', `${d.refused}${d.questions ? ` (${Math.round((100 * d.refused) / d.questions)} %)` : ''}`)}
              ${this.card('Median confidence', d.median_confidence ?? '—', d.median_evidence === null ? '' : `evidence ${formatNumber(d.median_evidence)}`)}
              ${this.card('Helpful / not helpful', `${d.up} / ${d.down}`, rated ? `${Math.round((100 * d.up) / rated)} % helpful` : 'no ratings yet')}
              ${this.webhook ? this.card('Webhook', this.webhook.webhook_url ? new URL(this.webhook.webhook_url).host : 'off', `${webhookChange(this.webhook)} ${webhookDeliveries(this.webhook)}`.trim()) : nothing}
            </div>
            <section class="panel" aria-labelledby="per-day">
              <h3 id="per-day">Questions per day</h3>
              <div class="legend" aria-hidden="true">
                <span><span class="swatch answered"></span>Answered</span>
                <span><span class="swatch refused"></span>Refused</span>
              </div>
              ${this.chart(d)}
            </section>`
          : nothing
      }`;
  }

  private card(label: string, value: string, note = '') {
    return html`<div class="card"><div class="muted">${label}</div><div class="value">${value}</div>${note ? html`<div class="muted">${note}</div>` : nothing}</div>`;
  }

  /** Stacked bars (answered below, refused above), one per day; each bar has its figures as a tooltip. */
  private chart(d: Overview) {
    const days = d.days;
    const max = Math.max(1, ...days.map((day) => day.questions));
    const band = WIDTH / Math.max(1, days.length);
    const bar = Math.max(1, band * 0.7);
    const y = (n: number) => (n / max) * (HEIGHT - 20);
    const label = `Questions per day from ${days[0]?.day ?? ''} to ${days.at(-1)?.day ?? ''}: ${d.questions} in total, ${d.answered} answered, ${d.refused} refused; busiest day ${max} questions.`;
    return html`<svg viewBox="0 0 ${WIDTH} ${HEIGHT + 20}" role="img" aria-label=${label}>
      <line x1="0" y1=${HEIGHT} x2=${WIDTH} y2=${HEIGHT} stroke="#8a94a3" stroke-width="1"></line>
      <text x="2" y="12" font-size="11" fill="#4d5663">${max}</text>
      ${days.map((day, i) => {
        const x = i * band + (band - bar) / 2;
        return svg`<g>
          <title>${day.day}: ${day.answered} answered, ${day.refused} refused, ${day.up} helpful, ${day.down} not helpful</title>
          <rect x=${x} y=${HEIGHT - y(day.answered)} width=${bar} height=${y(day.answered)} fill="#1f5fbf"></rect>
          <rect x=${x} y=${HEIGHT - y(day.answered) - y(day.refused)} width=${bar} height=${y(day.refused)} fill="#c2410c"></rect>
        </g>`;
      })}
      <text x="0" y=${HEIGHT + 15} font-size="11" fill="#4d5663">${days[0]?.day ?? ''}</text>
      <text x=${WIDTH} y=${HEIGHT + 15} font-size="11" fill="#4d5663" text-anchor="end">${days.at(-1)?.day ?? ''}</text>
    </svg>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'kb-admin-overview': OverviewView;
  }
}
