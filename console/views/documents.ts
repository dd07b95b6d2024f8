/**
 * Documents: the knowledge base's documents with search, enable/disable and delete; on the Node server,
 * upload of a file or a URL through the ingestion pipeline, with its progress; per source, its last sync
 * (./sync.ts).
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import {
  ADMIN_PATHS,
  UPLOAD_EXTENSIONS,
  UPLOAD_MAX_BYTES,
  type AdminDocument,
  type AdminMe,
  type Page,
  type UploadEvent,
} from '../../protocol/index.ts';
import { formatTime, safeHref } from '../api.ts';
import { pager } from './pager.ts';
import './sync.ts';
import { AdminView } from './view.ts';

interface Progress {
  label: string;
  done: number;
  total: number;
  stage: string;
  lines: string[];
  finished: boolean;
  failed: boolean;
}

@customElement('kb-admin-documents')
export class DocumentsView extends AdminView {
  static override styles = [
    ...AdminView.styles,
    css`
      .upload { display: flex; flex-wrap: wrap; gap: 1rem 2rem; }
      .upload form { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: flex-end; }
      progress { width: 100%; max-width: 30rem; height: 1rem; }
      .log { margin: 0.25rem 0 0; padding-left: 1.25rem; }
    `,
  ];

  @property({ attribute: false }) me: AdminMe | null = null;
  @state() private page: Page<AdminDocument> | null = null;
  @state() private search = '';
  @state() private progress: Progress | null = null;
  private searchTimer: ReturnType<typeof setTimeout> | undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load(0);
  }

  private load(offset: number) {
    return this.run(
      () => this.api.get<Page<AdminDocument>>(ADMIN_PATHS.documents, { q: this.search, limit: 50, offset }),
      (page) => (this.page = page),
    );
  }

  private onSearch(value: string) {
    this.search = value;
    clearTimeout(this.searchTimer);
    this.searchTimer = setTimeout(() => void this.load(0), 250);
  }

  private async toggle(doc: AdminDocument) {
    await this.run(
      () => this.api.request('PUT', `${ADMIN_PATHS.documents}/${doc.id}`, { enabled: !doc.enabled }),
      () => {},
    );
    await this.load(this.page?.offset ?? 0);
  }

  private async deleteDocument(doc: AdminDocument) {
    if (!confirm(`Delete “${doc.title}” and its ${doc.chunks} chunks? Re-ingest it to bring it back.`)) return;
    await this.run(
      () => this.api.request('DELETE', `${ADMIN_PATHS.documents}/${doc.id}`),
      () => {},
    );
    await this.load(this.page?.offset ?? 0);
  }

  private async upload(what: { file: File } | { url: string }, label: string) {
    const progress: Progress = {
      label,
      done: 0,
      total: 1,
      stage: 'Uploading…',
      lines: [],
      finished: false,
      failed: false,
    };
    const update = (patch: Partial<Progress>) => (this.progress = { ...progress, ...this.progress, ...patch });
    this.progress = progress;
    const onEvent = (event: UploadEvent) => {
      const lines = this.progress?.lines ?? [];
      if (event.type === 'start') update({ total: Math.max(1, event.total), stage: 'Reading…' });
      else if (event.type === 'loading-model') update({ stage: 'Loading the embedding model…' });
      else if (event.type === 'document')
        update({
          done: event.done,
          total: event.total,
          stage: `Ingested ${event.done} of ${event.total}`,
          lines: [
            ...lines,
            `${event.source}: ${event.outcome}${event.outcome === 'failed' ? ` — ${event.error ?? ''}` : `, ${event.chunks} chunks`}`,
          ],
        });
      else if (event.type === 'done')
        update({
          finished: true,
          failed: event.failed.length > 0,
          stage: `Done: ${event.added} added, ${event.updated} updated, ${event.unchanged} unchanged, ${event.failed.length} failed${event.skipped.length > 0 ? `, ${event.skipped.length} skipped` : ''} (${event.chunks} chunks, ${event.seconds.toFixed(1)} s).`,
          lines: [...lines, ...event.skipped.map((skipped) => `skipped ${skipped}`)],
        });
      else if (event.type === 'error') update({ finished: true, failed: true, stage: `Failed: ${event.message}` });
    };
    try {
      await this.api.upload(what, onEvent);
    } catch (error) {
      update({
        finished: true,
        failed: true,
        stage: `Failed: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    await this.load(0);
  }

  private onFile(event: SubmitEvent) {
    event.preventDefault();
    const input = (event.target as HTMLFormElement).querySelector<HTMLInputElement>('input[type=file]')!;
    const file = input.files?.[0];
    if (!file) return;
    if (file.size > UPLOAD_MAX_BYTES) {
      this.progress = {
        label: file.name,
        done: 0,
        total: 1,
        stage: `Failed: ${file.name} is larger than ${UPLOAD_MAX_BYTES / 1024 / 1024} MB.`,
        lines: [],
        finished: true,
        failed: true,
      };
      return;
    }
    void this.upload({ file }, file.name).then(() => (input.value = ''));
  }

  private onUrl(event: SubmitEvent) {
    event.preventDefault();
    const input = (event.target as HTMLFormElement).querySelector<HTMLInputElement>('input[type=url]')!;
    if (input.value) void this.upload({ url: input.value }, input.value);
  }

  override render() {
    const items = this.page?.items ?? [];
    const running = this.progress !== null && !this.progress.finished;
    return html`<h2>Documents</h2>
      <section class="panel" aria-labelledby="add-title">
        <h3 id="add-title">Add documents</h3>
        ${
          this.me?.capabilities.upload
            ? html`<div class="upload">
              <form @submit=${this.onFile}>
                <label>File (${UPLOAD_EXTENSIONS.join(', ')}; at most ${UPLOAD_MAX_BYTES / 1024 / 1024} MB)
                  <input type="file" name="file" accept=${UPLOAD_EXTENSIONS.join(',')} required />
                </label>
                <button type="submit" ?disabled=${running}>Upload</button>
              </form>
              <form @submit=${this.onUrl}>
                <label>Page or sitemap URL <input type="url" name="url" placeholder="https://docs.example.com/sitemap.xml" required /></label>
                <button type="submit" ?disabled=${running}>Add URL</button>
              </form>
            </div>
            ${this.progress ? this.renderProgress(this.progress) : nothing}`
            : html`<p>This server does not ingest uploads (Cloudflare Workers). Add documents with the CLI from your machine or CI:</p>
              <p><code>SUPABASE_URL=… SUPABASE_SERVICE_ROLE_KEY=… npm run ingest -- docs/ https://docs.example.com/sitemap.xml</code></p>`
        }
      </section>
      <kb-admin-sync .api=${this.api} @kb-synced=${() => void this.load(0)}></kb-admin-sync>
      <div class="filters">
        <label>Search title or source <input type="search" .value=${this.search} @input=${(e: Event) => this.onSearch((e.target as HTMLInputElement).value)} /></label>
      </div>
      ${this.status()}
      ${this.page && items.length === 0 ? html`<p>No documents${this.search ? ' match' : ''}.</p>` : nothing}
      ${
        items.length > 0
          ? html`<div class="table-wrap"><table>
            <caption class="visually-hidden">Documents</caption>
            <thead><tr><th scope="col">Title</th><th scope="col">Source</th><th scope="col">Status</th><th scope="col">Enabled</th><th scope="col" class="num">Chunks</th><th scope="col">Updated</th><th scope="col">Embedding model</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>${items.map((doc) => this.renderRow(doc))}</tbody>
          </table></div>`
          : nothing
      }
      ${pager(this.page, (offset) => void this.load(offset))}`;
  }

  private renderRow(doc: AdminDocument) {
    const href = safeHref(doc.url);
    return html`<tr>
      <td class="text">${href ? html`<a href=${href} rel="noopener noreferrer" target="_blank">${doc.title}</a>` : doc.title}</td>
      <td><code>${doc.source}</code>${doc.source_type ? html` <span class="muted">${doc.source_type}</span>` : nothing}</td>
      <td>${doc.status}</td>
      <td>${doc.enabled ? html`<span class="badge ok">enabled</span>` : html`<span class="badge bad">disabled</span>`}</td>
      <td class="num">${doc.chunks}</td>
      <td>${formatTime(doc.updated_at)}</td>
      <td><code>${doc.embedding_model ?? '—'}</code></td>
      <td>
        <button class="secondary" aria-label="${doc.enabled ? 'Disable' : 'Enable'} ${doc.title}" @click=${() => this.toggle(doc)}>${doc.enabled ? 'Disable' : 'Enable'}</button>
        <button class="danger" aria-label="Delete ${doc.title}" @click=${() => this.deleteDocument(doc)}>Delete</button>
      </td>
    </tr>`;
  }

  private renderProgress(p: Progress) {
    return html`<div class="progress" aria-live="polite">
      <p><strong>${p.label}</strong></p>
      <progress max=${p.total} value=${p.done} aria-label="Ingestion progress of ${p.label}"></progress>
      <p role="status" class=${p.failed ? 'error' : ''}>${p.stage}</p>
      ${p.lines.length ? html`<ul class="log">${p.lines.map((line) => html`<li>${line}</li>`)}</ul>` : nothing}
    </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'kb-admin-documents': DocumentsView;
  }
}
