/**
 * `<kb-admin>`, the site-owner console: sign-in, then one view per hash route —
 * `#/overview`, `#/gaps`, `#/conversations`, `#/conversations/<session id>` (one conversation as a thread),
 * `#/documents`, `#/try?q=…`, `#/settings`. Every view and thread has its own address, so the browser's back
 * and forward move between them and a thread can be linked; a sign-in lands on the overview. Its own bundle
 * (dist/admin/kb-admin.js), never part of the widget's chunks; it shares only the protocol module.
 *
 * Sign-in: `#link=<token>` (the one-time link of `npm run console -- link`) is exchanged for a session and
 * removed from the address bar; `#access_token=…` (Supabase Auth's magic-link redirect) is adopted; or
 * email + password (Supabase Auth, relayed by the Worker).
 */
import { LitElement, css, html, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { ADMIN_PATHS, type AdminMe } from '../protocol/index.ts';
import { AdminApi } from './api.ts';
import { consoleStyles } from './styles.ts';
import './views/conversations.ts';
import './views/documents.ts';
import './views/gaps.ts';
import './views/overview.ts';
import './views/settings.ts';
import './views/try.ts';

const VIEWS = [
  ['overview', 'Overview'],
  ['gaps', 'Content gaps'],
  ['conversations', 'Conversations'],
  ['documents', 'Documents'],
  ['try', 'Try a question'],
  ['settings', 'Settings'],
] as const;
type ViewName = (typeof VIEWS)[number][0];

@customElement('kb-admin')
export class KbAdmin extends LitElement {
  static override styles = [
    consoleStyles,
    css`
      header { background: #14345f; color: #fff; padding: 0.6rem 1rem; display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: center; }
      header h1 { font-size: 1.1rem; margin: 0; }
      nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem; margin: 0; padding: 0; }
      nav a { color: #fff; text-decoration: none; padding: 0.3rem 0.6rem; border-radius: 6px; display: inline-block; }
      nav a[aria-current='page'] { background: #fff; color: #14345f; font-weight: 600; }
      .who { margin-left: auto; display: flex; gap: 0.5rem; align-items: center; font-size: 0.9rem; }
      .who button { background: transparent; border-color: #fff; }
      main { max-width: 1200px; margin: 0 auto; padding: 1rem; }
      .signin { max-width: 32rem; margin: 3rem auto; }
      .signin form { display: flex; flex-direction: column; gap: 0.75rem; }
      .signin label { color: inherit; }
    `,
  ];

  private readonly api = new AdminApi();
  @state() private me: AdminMe | null = null;
  @state() private view: ViewName = 'overview';
  @state() private query = new URLSearchParams();
  /** What the route names inside its view: a conversation's session id (`#/conversations/<id>`). */
  @state() private item = '';
  @state() private signInError: string | null = null;
  @state() private busy = true;

  override connectedCallback(): void {
    super.connectedCallback();
    this.api.onSignedOut = (message) => {
      this.me = null;
      this.signInError = message;
    };
    window.addEventListener('hashchange', this.route);
    void this.start();
  }

  override disconnectedCallback(): void {
    window.removeEventListener('hashchange', this.route);
    super.disconnectedCallback();
  }

  private async start(): Promise<void> {
    const hash = new URLSearchParams(location.hash.slice(1));
    try {
      if (hash.has('link')) {
        // Out of the address bar (and history) before anything else: the link is used up either way.
        history.replaceState(null, '', `${location.pathname}#/overview`);
        await this.api.signInWithLink(hash.get('link')!);
      } else if (hash.has('access_token')) {
        history.replaceState(null, '', `${location.pathname}#/overview`);
        this.api.adoptToken(hash.get('access_token')!);
      }
      if (this.api.token) this.me = await this.api.request<AdminMe>('GET', ADMIN_PATHS.me);
    } catch (error) {
      this.api.signOut();
      this.signInError = error instanceof Error ? error.message : String(error);
    } finally {
      this.busy = false;
      this.route();
    }
  }

  private route = (): void => {
    // A sign-in link opened in a tab that already shows the console changes only the hash.
    if (/^#(link|access_token)=/.test(location.hash)) {
      void this.start();
      return;
    }
    const [path = '', search = ''] = location.hash.replace(/^#\/?/, '').split('?');
    const [name, item = ''] = path.split('/');
    const known = VIEWS.find(([view]) => view === name);
    const [view, before] = [known ? known[0] : 'overview', `${this.view}/${this.item}`];
    this.view = view;
    this.item = known ? decoded(item) : '';
    this.query = new URLSearchParams(search);
    // A new view or thread starts at its top (on a phone the previous one's scroll position would hide it).
    if (`${this.view}/${this.item}` !== before) void this.updateComplete.then(() => window.scrollTo(0, 0));
  };

  private async passwordSignIn(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    this.busy = true;
    try {
      await this.api.signInWithPassword(String(form.get('email') ?? ''), String(form.get('password') ?? ''));
      this.me = await this.api.request<AdminMe>('GET', ADMIN_PATHS.me);
      this.signInError = null;
    } catch (error) {
      this.api.signOut();
      this.signInError = error instanceof Error ? error.message : String(error);
    } finally {
      this.busy = false;
    }
  }

  private signOut(): void {
    this.api.signOut();
    this.me = null;
    this.signInError = null;
  }

  override render() {
    return html`<header>
        <h1>kb-chat console</h1>
        ${
          this.me
            ? html`<nav aria-label="Console">
                <ul>
                  ${VIEWS.map(([name, label]) => html`<li><a href="#/${name}" aria-current=${this.view === name ? 'page' : 'false'}>${label}</a></li>`)}
                </ul>
              </nav>
              <div class="who"><button @click=${this.signOut}>Sign out</button></div>`
            : nothing
        }
      </header>
      <main>${this.me ? this.renderView() : this.renderSignIn()}</main>`;
  }

  private renderView() {
    const api = this.api;
    switch (this.view) {
      case 'gaps':
        return html`<kb-admin-gaps .api=${api}></kb-admin-gaps>`;
      case 'conversations':
        return html`<kb-admin-conversations .api=${api} .session=${this.item}></kb-admin-conversations>`;
      case 'documents':
        return html`<kb-admin-documents .api=${api} .me=${this.me}></kb-admin-documents>`;
      case 'try':
        return html`<kb-admin-try .api=${api} .question=${this.query.get('q') ?? ''}></kb-admin-try>`;
      case 'settings':
        return html`<kb-admin-settings .api=${api}></kb-admin-settings>`;
      default:
        return html`<kb-admin-overview .api=${api}></kb-admin-overview>`;
    }
  }

  private renderSignIn() {
    if (this.busy) return html`<p role="status">Signing in…</p>`;
    return html`<section class="signin panel" aria-labelledby="signin-title">
      <h2 id="signin-title">Sign in</h2>
      ${this.signInError ? html`<p role="alert" class="error">${this.signInError}</p>` : nothing}
      <p><strong>Embedded server</strong> (<code>npm start</code>): run <code>npm run console -- link</code> and open the one-time link it prints.</p>
      <p><strong>Cloudflare + Supabase</strong>: sign in with your Supabase Auth account; it needs <code>app_metadata.role = "admin"</code>.</p>
      <form @submit=${this.passwordSignIn}>
        <label>Email <input name="email" type="email" autocomplete="username" required /></label>
        <label>Password <input name="password" type="password" autocomplete="current-password" required /></label>
        <div><button type="submit">Sign in</button></div>
      </form>
    </section>`;
  }
}

/** A route's URL-encoded part as text; a malformed one (a hand-edited address) as nothing. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return '';
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'kb-admin': KbAdmin;
  }
}
