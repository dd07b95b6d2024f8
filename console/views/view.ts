/**
 * What every console view shares: the API client, the shared styles, and one load at a time — a newer
 * load supersedes an older one (its result is ignored by call id, as Lit's Task does), and its error is
 * shown in place.
 */
import { LitElement, html, nothing } from 'lit';
import { property, state } from 'lit/decorators.js';
import type { AdminApi } from '../api.ts';
import { consoleStyles } from '../styles.ts';

export abstract class AdminView extends LitElement {
  static override styles = [consoleStyles];

  @property({ attribute: false }) api!: AdminApi;
  @state() protected loading = false;
  @state() protected error: string | null = null;
  private call = 0;

  /** Runs `work`; its result is applied only if no newer load started meanwhile. */
  protected async run<T>(work: () => Promise<T>, apply: (result: T) => void): Promise<void> {
    const id = ++this.call;
    this.loading = true;
    this.error = null;
    try {
      const result = await work();
      if (id === this.call) apply(result);
    } catch (error) {
      if (id === this.call) this.error = error instanceof Error ? error.message : String(error);
    } finally {
      if (id === this.call) this.loading = false;
    }
  }

  protected status() {
    return html`<p role="status" class="muted">${this.loading ? 'Loading…' : nothing}</p>
      ${this.error ? html`<p role="alert" class="error">${this.error}</p>` : nothing}`;
  }
}
