/**
 * The switch for what coding assistants read: the MCP server (/mcp) and /llms.txt (docs/mcp.md). Its own
 * element under the settings form, saved on change through `PUT /api/admin/assistants`, so the settings
 * form and its patch stay as they are.
 */
import { html, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { ADMIN_PATHS } from '../../protocol/index.ts';
import { AdminView } from './view.ts';

const PATH = ADMIN_PATHS.assistants;

@customElement('kb-admin-assistants')
export class AdminAssistants extends AdminView {
  @state() private enabled: boolean | null = null;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.run(
      () => this.api.request<{ enabled: boolean }>('GET', PATH),
      (r) => (this.enabled = r.enabled),
    );
  }

  private toggle(event: Event): void {
    const enabled = (event.target as HTMLInputElement).checked;
    void this.run(
      () => this.api.request<{ enabled: boolean }>('PUT', PATH, { enabled }),
      (r) => (this.enabled = r.enabled),
    );
  }

  override render() {
    return html`<section class="panel">
      <label><input type="checkbox" .checked=${this.enabled === true} ?disabled=${this.enabled === null || this.loading}
        @change=${this.toggle} /> Serve AI assistants: the MCP server at /mcp and /llms.txt</label>
      <p class="muted">Off: both answer 404. They show only what the widget answers from.</p>
      ${this.error ? html`<p role="alert" class="error">${this.error}</p>` : nothing}
    </section>`;
  }
}
