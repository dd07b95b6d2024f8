/**
 * Freshness, in the Documents view: per source (a sitemap, a page URL, a folder), when it was last synced,
 * what its latest run changed and which pages failed — from kb_sync_runs, whichever way the run was made
 * (`npm run ingest`, a scheduled workflow, the Node server's KB_SYNC_INTERVAL, "Sync now"). On a Node server
 * with KB_SYNC_SOURCES, "Sync now" re-syncs them with progress.
 */
import { css, html, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { ADMIN_PATHS, type SyncOverview, type SyncRun, type UploadEvent } from '../../protocol/index.ts';
import { formatTime } from '../api.ts';
import { AdminView } from './view.ts';

const TRIGGERS: Record<SyncRun['trigger'], string> = {
  cli: 'npm run ingest',
  schedule: 'schedule',
  console: 'Sync now',
};

@customElement('kb-admin-sync')
export class SyncView extends AdminView {
  static override styles = [
    ...AdminView.styles,
    css`
      .errors { margin: 0.25rem 0 0; padding-left: 1.25rem; }
    `,
  ];

  @state() private overview: SyncOverview | null = null;
  @state() private stage: string | null = null;
  @state() private syncing = false;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  private load() {
    return this.run(
      () => this.api.get<SyncOverview>(ADMIN_PATHS.sync, {}),
      (overview) => (this.overview = overview),
    );
  }

  private async syncNow() {
    this.syncing = true;
    this.stage = 'Syncing…';
    const onEvent = (event: UploadEvent) => {
      if (event.type === 'loading-model') this.stage = 'Loading the embedding model…';
      else if (event.type === 'document')
        this.stage = `Checked ${event.done} of ${event.total}: ${event.source} ${event.outcome}`;
      else if (event.type === 'done')
        this.stage = `Done: ${event.added} added, ${event.updated} updated, ${event.unchanged} unchanged, ${event.failed.length} failed (${event.seconds.toFixed(1)} s).`;
      else if (event.type === 'error') this.stage = `Failed: ${event.message}`;
    };
    try {
      await this.api.upload({ sync: true }, onEvent);
    } catch (error) {
      this.stage = `Failed: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      this.syncing = false;
    }
    await this.load();
    this.dispatchEvent(new CustomEvent('kb-synced', { bubbles: true, composed: true }));
  }

  override render() {
    const o = this.overview;
    return html`<section class="panel" aria-labelledby="sync-title">
      <h3 id="sync-title">Sync</h3>
      ${
        o?.schedule?.intervalSeconds
          ? html`<p>This server re-syncs ${o.schedule.sources.length} source${o.schedule.sources.length === 1 ? '' : 's'} every ${duration(o.schedule.intervalSeconds)} (KB_SYNC_INTERVAL).</p>`
          : nothing
      }
      ${
        o?.sync_now
          ? html`<p>
            <button @click=${this.syncNow} ?disabled=${this.syncing || o.running !== null}>Sync now</button>
            ${o.running && !this.syncing ? html`<span class="muted">${o.running} is running.</span>` : nothing}
          </p>`
          : o && !o.schedule
            ? html`<p class="muted">Sync with <code>npm run ingest -- &lt;sources&gt;</code> or the scheduled workflow (docs/deploy.md); its runs show here.</p>`
            : o
              ? html`<p class="muted">To sync from here, set <code>KB_SYNC_SOURCES</code> in this server's environment (comma-separated sitemap or page URLs, folders and files) and restart it: <em>Sync now</em> appears, and <code>KB_SYNC_INTERVAL</code> (e.g. <code>6h</code>) re-syncs them on a schedule. <code>npm run ingest -- &lt;sources&gt;</code> works too; every run shows here.</p>`
              : nothing
      }
      ${this.stage ? html`<p role="status" aria-live="polite">${this.stage}</p>` : nothing}
      ${this.status()}
      ${o && o.sources.length === 0 ? html`<p>No sync has run yet.</p>` : nothing}
      ${
        o && o.sources.length > 0
          ? html`<div class="table-wrap"><table>
            <caption class="visually-hidden">Sync runs per source</caption>
            <thead><tr><th scope="col">Source</th><th scope="col">Last synced</th><th scope="col">Latest run</th><th scope="col">Changed</th><th scope="col">Failed</th></tr></thead>
            <tbody>${o.sources.map((run) => this.renderRun(run))}</tbody>
          </table></div>`
          : nothing
      }
    </section>`;
  }

  private renderRun(run: SyncRun) {
    const c = run.counts;
    return html`<tr>
      <td><code>${run.source}</code></td>
      <td>${run.last_success_at ? formatTime(run.last_success_at) : html`<span class="badge bad">never without failures</span>`}</td>
      <td>${run.finished_at ? formatTime(run.finished_at) : html`<span class="muted">running or interrupted (started ${formatTime(run.started_at)})</span>`}
        <span class="muted">${TRIGGERS[run.trigger]}</span></td>
      <td>${c.added ?? 0} added, ${c.updated ?? 0} updated, ${c.removed ?? 0} removed <span class="muted">(${c.unchanged ?? 0} unchanged)</span></td>
      <td>${
        run.errors.length === 0
          ? html`<span class="badge ok">none</span>`
          : html`<span class="badge bad">${c.failed ?? run.errors.length}</span>
            <ul class="errors">${run.errors.slice(0, 10).map((e) => html`<li><code>${e.source}</code>: ${e.error}</li>`)}</ul>`
      }</td>
    </tr>`;
  }
}

function duration(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

declare global {
  interface HTMLElementTagNameMap {
    'kb-admin-sync': SyncView;
  }
}
