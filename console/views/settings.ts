/**
 * Settings: the answer mode, the evidence gate's thresholds, the widget's greeting, the suggestions a
 * refusal offers, the support address behind "Contact support", the empty panel's starter questions and the
 * webhook — stored in the database (`/api/admin/settings`), read by every server and Worker on each
 * question. Each field shows the value in effect, where it comes from (set here, or the server's default)
 * and the server's default; an empty field hands the setting back to the server.
 *
 * Saving sends only the fields that changed (the API takes a patch), so two admins editing different
 * settings do not undo each other. Values are checked here with the API's bounds before anything is sent,
 * and a 400 from the API (which names the field) lands on that field too.
 */
import { css, html, nothing, type TemplateResult } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { live } from 'lit/directives/live.js';
import {
  ADMIN_PATHS,
  GREETING_MAX_CHARS,
  REFUSAL_SUGGESTION_MAX_CHARS,
  REFUSAL_SUGGESTIONS_MAX,
  WEBHOOK_SECRET_MAX_CHARS,
  WEBHOOK_SECRET_MIN_CHARS,
  WEBHOOK_URL_MAX_CHARS,
  isSupportUrl,
  STARTER_MAX_CHARS,
  STARTERS_MAX,
  type Settings,
  type SettingsUpdate,
} from '../../protocol/index.ts';
import { WEBHOOK_EVENTS } from '../../protocol/webhooks.ts';
import { formatTime } from '../api.ts';
import { consoleStyles } from '../styles.ts';
import { webhookChange, webhookDeliveries } from './webhook-status.ts';
import { AdminView } from './view.ts';
import './assistants.ts';

type Field =
  | 'answer_mode'
  | Threshold
  | 'greeting'
  | 'refusal_suggestions'
  | 'support_url'
  | 'starters'
  | 'webhook_url'
  | 'webhook_secret';
type Threshold = 'evidence_threshold' | 'lexical_threshold' | 'hybrid_threshold';

const THRESHOLDS: { name: Threshold; label: string; variable: string; what: string }[] = [
  {
    name: 'hybrid_threshold',
    label: 'Hybrid mode',
    variable: 'CHAT_HYBRID_THRESHOLD',
    what: 'mean of cosine and coverage; questions the browser embedded',
  },
  {
    name: 'lexical_threshold',
    label: 'Keyword mode',
    variable: 'CHAT_LEXICAL_THRESHOLD',
    what: 'coverage of the question’s rare words; questions without an embedding',
  },
  { name: 'evidence_threshold', label: 'Vector mode', variable: 'CHAT_EVIDENCE_THRESHOLD', what: 'cosine similarity' },
];

@customElement('kb-admin-settings')
export class SettingsView extends AdminView {
  static override styles = [
    consoleStyles,
    css`
      fieldset { border: 1px solid var(--kb-admin-border); border-radius: 6px; margin: 0 0 1rem; padding: 0.5rem 1rem 0.75rem; }
      legend { font-weight: 600; padding: 0 0.25rem; }
      .field { display: grid; gap: 0.2rem; margin: 0.75rem 0; justify-items: start; }
      .field label { display: block; }
      .field textarea { width: min(40rem, 100%); box-sizing: border-box; }
      .field input[type='number'] { width: 7rem; }
      .error:empty { display: none; }
    `,
  ];
  @state() private settings: Settings | null = null;
  @state() private saved = '';
  /** Validation messages by field, shown under the field it concerns. */
  @state() private invalid: Partial<Record<Field, string>> = {};
  /** "Use the server's suggestions": the suggestions box is disabled while it is on. */
  @state() private serverSuggestions = true;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.run(
      () => this.api.request<Settings>('GET', ADMIN_PATHS.settings),
      (s) => this.loaded(s),
    );
  }

  private loaded(s: Settings): void {
    this.settings = s;
    this.serverSuggestions = s.refusal_suggestions_source === 'server';
  }

  private async save(event: SubmitEvent) {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const s = this.settings;
    if (!s) return;
    this.saved = '';
    const { patch, invalid } = readForm(new FormData(form), s, this.serverSuggestions);
    this.invalid = invalid;
    if (Object.keys(invalid).length > 0) {
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
      return;
    }
    if (Object.keys(patch).length === 0) {
      this.saved = 'Nothing changed.';
      return;
    }
    await this.run(
      () => this.api.request<Settings>('PUT', ADMIN_PATHS.settings, patch),
      (saved) => {
        this.loaded(saved);
        // The only time this secret is shown: the receiver needs it, and no later response contains it.
        this.saved = saved.webhook_secret_generated
          ? `Saved. The webhook's new signing secret, shown only now — put it in your receiver: ${saved.webhook_secret_generated}`
          : 'Saved.';
      },
    );
    // The API names the field it refused ("greeting: must be…"): show the message there as well.
    const field = this.error?.match(/^([a-z_]+)(?:\.\d+)?: (.*)$/);
    if (field && isField(field[1]!)) this.invalid = { [field[1]!]: field[2]! };
  }

  override render() {
    const s = this.settings;
    return html`<h2>Settings</h2>
      ${this.status()}
      ${
        s
          ? html`<form class="panel" novalidate @submit=${this.save}>
            ${this.answerMode(s)} ${this.thresholds(s)} ${this.greeting(s)} ${this.suggestions(s)} ${this.conversation(s)} ${this.webhook(s)}
            <p class="muted">Last changed ${formatTime(s.updated_at)}. An empty field, or the server's choice, hands a setting back to the server.</p>
            <button type="submit" ?disabled=${this.loading}>Save</button> <span role="status">${this.saved || nothing}</span>
          </form>
          <kb-admin-assistants .api=${this.api}></kb-admin-assistants>`
          : nothing
      }`;
  }

  private answerMode(s: Settings): TemplateResult {
    const current = s.answer_mode_source === 'admin' ? s.answer_mode : 'server';
    return html`<fieldset>
      <legend>Answer mode</legend>
      <label><span><input type="radio" name="answer_mode" value="server" ?checked=${current === 'server'} /> The server's default (${s.server_answer_mode}, KB_ANSWER_MODE)</span></label><br />
      <label><span><input type="radio" name="answer_mode" value="extractive" ?checked=${current === 'extractive'} /> Extractive: quote the documents</span></label><br />
      <label><span><input type="radio" name="answer_mode" value="generative" ?checked=${current === 'generative'} /> Generative</span></label>
      <p class="muted">In effect: ${s.answer_mode} (${source(s.answer_mode_source)}).</p>
    </fieldset>`;
  }

  private thresholds(s: Settings): TemplateResult {
    return html`<fieldset>
      <legend>Evidence thresholds</legend>
      <p class="muted">The gate answers when the best passage's evidence reaches the threshold of the question's retrieval mode, and refuses otherwise. Higher refuses more. From 0 to 1; empty: the server's default.</p>
      ${THRESHOLDS.map(({ name, label, variable, what }) => {
        const inEffect = s[name];
        const server = s[`server_${name}`];
        const stored = s[`${name}_source`] === 'admin' ? String(inEffect) : '';
        return html`<div class="field">
          <label for=${name}>${label} <span class="muted">(${what})</span></label>
          <input id=${name} name=${name} type="number" inputmode="decimal" min="0" max="1" step="0.01" .value=${stored} placeholder=${String(server)}
            aria-invalid=${this.invalid[name] ? 'true' : 'false'} aria-describedby=${`${name}-about ${name}-error`} />
          <span id=${`${name}-about`} class="muted">In effect: ${inEffect} (${source(s[`${name}_source`])}); server default ${server} (${variable}).</span>
          ${this.message(name)}
        </div>`;
      })}
    </fieldset>`;
  }

  private greeting(s: Settings): TemplateResult {
    return html`<fieldset>
      <legend>Greeting</legend>
      <div class="field">
        <label for="greeting">The widget's first message, when the page sets no <code>greeting</code> attribute (at most ${GREETING_MAX_CHARS} characters; empty: none)</label>
        <textarea id="greeting" name="greeting" rows="2" cols="60" .value=${s.greeting ?? ''}
          aria-invalid=${this.invalid.greeting ? 'true' : 'false'} aria-describedby="greeting-about greeting-error"></textarea>
        <span id="greeting-about" class="muted">In effect: ${s.greeting ? `“${s.greeting}”` : 'none'} (${source(s.greeting_source)}).</span>
        ${this.message('greeting')}
      </div>
    </fieldset>`;
  }

  private suggestions(s: Settings): TemplateResult {
    const own = s.refusal_suggestions_source === 'admin' ? s.refusal_suggestions.join('\n') : '';
    return html`<fieldset>
      <legend>Refusal suggestions</legend>
      <p class="muted">What the widget offers when it cannot answer from the documents. “Contact support” and “Rephrase your question” are actions, never sent as questions: the first opens the support address below (and is hidden without one), the second puts the question back into the box. Any other line is a question the visitor can send.</p>
      <label><span><input type="checkbox" name="server_suggestions" .checked=${this.serverSuggestions}
        @change=${(e: Event) => (this.serverSuggestions = (e.target as HTMLInputElement).checked)} />
        The server's suggestions: ${s.server_refusal_suggestions.join(', ')}</span></label>
      <div class="field">
        <label for="refusal_suggestions">Or these, one per line (at most ${REFUSAL_SUGGESTIONS_MAX}, each at most ${REFUSAL_SUGGESTION_MAX_CHARS} characters; none: offer nothing)</label>
        <textarea id="refusal_suggestions" name="refusal_suggestions" rows="5" cols="60" .value=${own} ?disabled=${this.serverSuggestions}
          aria-invalid=${this.invalid.refusal_suggestions ? 'true' : 'false'} aria-describedby="refusal_suggestions-about refusal_suggestions-error"></textarea>
        <span id="refusal_suggestions-about" class="muted">In effect: ${s.refusal_suggestions.length ? s.refusal_suggestions.join(', ') : 'none'} (${source(s.refusal_suggestions_source)}).</span>
        ${this.message('refusal_suggestions')}
      </div>
    </fieldset>`;
  }

  /** The secret is write-only: the field starts empty whatever is stored; typing one replaces it. */
  private webhook(s: Settings): TemplateResult {
    const url = s.webhook_url_source === 'admin' ? (s.webhook_url ?? '') : '';
    return html`<fieldset ?disabled=${!s.webhook_editable}>
      <legend>Webhook</legend>
      <p class="muted">kb-chat POSTs ${WEBHOOK_EVENTS.map((name, i) => html`${i === 0 ? '' : i === WEBHOOK_EVENTS.length - 1 ? ' and ' : ', '}<code>${name}</code>`)} events here, signed with the secret (the <code>KB-Signature</code> header).
        ${s.webhook_editable ? '' : 'This server reads the webhook only from KB_WEBHOOK_URL and KB_WEBHOOK_SECRET (on Workers: `wrangler secret put`).'}</p>
      <div class="field">
        <label for="webhook_url">URL (https; empty: KB_WEBHOOK_URL)</label>
        <input id="webhook_url" name="webhook_url" type="url" size="50" .value=${url} placeholder=${s.webhook_url_source === 'server' ? (s.webhook_url ?? '') : ''}
          aria-invalid=${this.invalid.webhook_url ? 'true' : 'false'} aria-describedby="webhook_url-about webhook_url-error" />
        <span id="webhook_url-about" class="muted">In effect: ${s.webhook_url ?? 'none (no events are sent)'} (${source(s.webhook_url_source)}). ${webhookChange(s)}
          Changing it asks for a sign-in from the last few minutes. ${webhookDeliveries(s)}</span>
        ${this.message('webhook_url')}
      </div>
      <div class="field">
        <label for="webhook_secret">Signing secret (${WEBHOOK_SECRET_MIN_CHARS} to ${WEBHOOK_SECRET_MAX_CHARS} characters; never shown again once saved; empty with a new URL: one is generated and shown once)</label>
        <input id="webhook_secret" name="webhook_secret" type="password" autocomplete="new-password" size="50" .value=${live('')}
          placeholder=${s.webhook_secret_set ? 'set — type a new one to replace it' : 'not set'}
          aria-invalid=${this.invalid.webhook_secret ? 'true' : 'false'} aria-describedby="webhook_secret-about webhook_secret-error" />
        <span id="webhook_secret-about" class="muted">${s.webhook_secret_set ? `A secret is set (${source(s.webhook_secret_source)}).` : 'No secret: nothing is sent until one is set.'}</span>
        ${this.message('webhook_secret')}
      </div>
    </fieldset>`;
  }

  private conversation(s: Settings): TemplateResult {
    return html`<fieldset>
      <legend>Conversation</legend>
      <div class="field">
        <label for="support_url">Support address for “Contact support”: <code>https:</code> or <code>mailto:</code>; <code>{question}</code> is replaced by the visitor's question (empty: none; the page's <code>support-url</code> attribute wins)</label>
        <input id="support_url" name="support_url" type="url" size="60" .value=${s.support_url ?? ''} placeholder="mailto:help@example.com"
          aria-invalid=${this.invalid.support_url ? 'true' : 'false'} aria-describedby="support_url-error" />
        ${this.message('support_url')}
      </div>
      <div class="field">
        <label for="starters">Starter questions shown in the empty panel, one per line (at most ${STARTERS_MAX}, each at most ${STARTER_MAX_CHARS} characters; none: none shown; the page's <code>starters</code> attribute wins)</label>
        <textarea id="starters" name="starters" rows="4" cols="60" .value=${s.starters.join('\n')}
          aria-invalid=${this.invalid.starters ? 'true' : 'false'} aria-describedby="starters-error"></textarea>
        ${this.message('starters')}
      </div>
    </fieldset>`;
  }

  private message(field: Field): TemplateResult {
    return html`<span id=${`${field}-error`} class="error">${this.invalid[field] ?? nothing}</span>`;
  }
}

const source = (from: 'admin' | 'server') => (from === 'admin' ? 'set here' : 'server default');
const FIELDS: readonly string[] = [
  'answer_mode',
  'evidence_threshold',
  'lexical_threshold',
  'hybrid_threshold',
  'greeting',
  'refusal_suggestions',
  'support_url',
  'starters',
  'webhook_url',
  'webhook_secret',
];
const isField = (name: string): name is Field => FIELDS.includes(name);

/**
 * The form as a patch of what changed since `s` was loaded, checked with the API's bounds. An empty
 * threshold or greeting is null (the server's default).
 */
export function readForm(
  form: FormData,
  s: Settings,
  serverSuggestions: boolean,
): { patch: SettingsUpdate; invalid: Partial<Record<Field, string>> } {
  const patch: Record<string, unknown> = {};
  const invalid: Partial<Record<Field, string>> = {};

  const mode = String(form.get('answer_mode') ?? 'server');
  const storedMode = s.answer_mode_source === 'admin' ? s.answer_mode : null;
  const wantedMode = mode === 'server' ? null : mode;
  if (wantedMode !== storedMode) patch.answer_mode = wantedMode;

  for (const { name } of THRESHOLDS) {
    const raw = String(form.get(name) ?? '').trim();
    const value = raw === '' ? null : Number(raw);
    if (value !== null && !(Number.isFinite(value) && value >= 0 && value <= 1)) {
      invalid[name] = 'Enter a number from 0 to 1, or leave it empty for the server’s default.';
      continue;
    }
    const stored = s[`${name}_source`] === 'admin' ? s[name] : null;
    if (value !== stored) patch[name] = value;
  }

  const greeting = String(form.get('greeting') ?? '').trim();
  if (greeting.length > GREETING_MAX_CHARS)
    invalid.greeting = `At most ${GREETING_MAX_CHARS} characters (now ${greeting.length}).`;
  else if ((greeting || null) !== s.greeting) patch.greeting = greeting || null;

  const lines = serverSuggestions
    ? null
    : String(form.get('refusal_suggestions') ?? '')
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean);
  const tooLong = lines?.find((line) => line.length > REFUSAL_SUGGESTION_MAX_CHARS);
  if (lines && lines.length > REFUSAL_SUGGESTIONS_MAX)
    invalid.refusal_suggestions = `At most ${REFUSAL_SUGGESTIONS_MAX} suggestions (now ${lines.length}).`;
  else if (tooLong)
    invalid.refusal_suggestions = `Each suggestion at most ${REFUSAL_SUGGESTION_MAX_CHARS} characters: “${tooLong.slice(0, 40)}…” has ${tooLong.length}.`;
  else {
    const stored = s.refusal_suggestions_source === 'admin' ? s.refusal_suggestions : null;
    if (JSON.stringify(lines) !== JSON.stringify(stored)) patch.refusal_suggestions = lines;
  }

  const support = String(form.get('support_url') ?? '').trim();
  if (support && !isSupportUrl(support))
    invalid.support_url = 'Enter an https: or mailto: address without spaces, or leave it empty.';
  else if ((support || null) !== s.support_url) patch.support_url = support || null;

  const starters = String(form.get('starters') ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const longStarter = starters.find((line) => line.length > STARTER_MAX_CHARS);
  if (starters.length > STARTERS_MAX)
    invalid.starters = `At most ${STARTERS_MAX} starter questions (now ${starters.length}).`;
  else if (longStarter)
    invalid.starters = `Each starter question at most ${STARTER_MAX_CHARS} characters: “${longStarter.slice(0, 40)}…” has ${longStarter.length}.`;
  // None is stored as null: no starters here, so the page's own (if any) apply.
  else if (JSON.stringify(starters) !== JSON.stringify(s.starters)) patch.starters = starters.length ? starters : null;
  if (s.webhook_editable) {
    const url = String(form.get('webhook_url') ?? '').trim();
    const storedUrl = s.webhook_url_source === 'admin' ? s.webhook_url : null;
    if (url && !/^https?:\/\/\S+$/i.test(url)) invalid.webhook_url = 'Enter an https URL, or leave it empty.';
    else if (url.length > WEBHOOK_URL_MAX_CHARS) invalid.webhook_url = `At most ${WEBHOOK_URL_MAX_CHARS} characters.`;
    else if ((url || null) !== storedUrl) patch.webhook_url = url || null;
    const secret = String(form.get('webhook_secret') ?? '');
    if (secret && (secret.length < WEBHOOK_SECRET_MIN_CHARS || secret.length > WEBHOOK_SECRET_MAX_CHARS)) {
      invalid.webhook_secret = `${WEBHOOK_SECRET_MIN_CHARS} to ${WEBHOOK_SECRET_MAX_CHARS} characters (now ${secret.length}).`;
    } else if (secret && !url) invalid.webhook_secret = 'A secret signs for a URL set here: enter the URL too.';
    // The URL and its secret travel together (a new secret re-sends the URL it signs for).
    else if (secret) Object.assign(patch, { webhook_url: url, webhook_secret: secret });
  }
  return { patch: patch as SettingsUpdate, invalid };
}

declare global {
  interface HTMLElementTagNameMap {
    'kb-admin-settings': SettingsView;
  }
}
