/** Settings: the answer mode, stored in the database (`/api/admin/settings`), read by every server at runtime. */
import { html, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { ADMIN_PATHS, type Settings } from '../../protocol/index.ts';
import { formatTime } from '../api.ts';
import { AdminView } from './view.ts';

@customElement('kb-admin-settings')
export class SettingsView extends AdminView {
  @state() private settings: Settings | null = null;
  @state() private saved = '';

  override connectedCallback(): void {
    super.connectedCallback();
    void this.run(() => this.api.request<Settings>('GET', ADMIN_PATHS.settings), (s) => (this.settings = s));
  }

  private save(event: SubmitEvent) {
    event.preventDefault();
    const choice = String(new FormData(event.target as HTMLFormElement).get('answer_mode') ?? 'server');
    this.saved = '';
    return this.run(
      () => this.api.request<Settings>('PUT', ADMIN_PATHS.settings, { answer_mode: choice === 'server' ? null : choice }),
      (s) => ((this.settings = s), (this.saved = 'Saved.')),
    );
  }

  override render() {
    const s = this.settings;
    const current = s ? (s.answer_mode_source === 'admin' ? s.answer_mode : 'server') : 'server';
    return html`<h2>Settings</h2>
      ${this.status()}
      ${s
        ? html`<form class="panel" @submit=${this.save}>
            <fieldset>
              <legend>Answer mode</legend>
              <label><span><input type="radio" name="answer_mode" value="server" ?checked=${current === 'server'} /> The server's default (${s.server_answer_mode}, KB_ANSWER_MODE)</span></label><br />
              <label><span><input type="radio" name="answer_mode" value="extractive" ?checked=${current === 'extractive'} /> Extractive: quote the documents</span></label><br />
              <label><span><input type="radio" name="answer_mode" value="generative" ?checked=${current === 'generative'} /> Generative</span></label>
            </fieldset>
            <p class="muted">In effect: ${s.answer_mode} (${s.answer_mode_source === 'admin' ? 'set here' : 'server default'}), since ${formatTime(s.updated_at)}.</p>
            <button type="submit">Save</button> <span role="status">${this.saved || nothing}</span>
          </form>`
        : nothing}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'kb-admin-settings': SettingsView;
  }
}
