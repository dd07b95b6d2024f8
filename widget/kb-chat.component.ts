import { LitElement, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { property, query } from 'lit/decorators.js';
import { ApiClient } from './api/api-client.ts';
import { ChatController } from './controllers/chat-controller.ts';
import { EmbedderController } from './controllers/embedder-controller.ts';
import { renderTurn } from './render/message.ts';
import styles from './kb-chat.styles.ts';

// Resolved against this module, i.e. the built kb-chat.js, so the widget finds its worker and API wherever
// it is hosted.
const SCRIPT_URL = import.meta.url;

export const STATUS_TEXT = {
  loading: 'Initializing AI…',
  timeout: 'Connection timed out',
  unsupported: 'Browser not supported — please use a recent version of Chrome, Edge, Firefox or Safari.',
  error: 'The AI model could not be loaded.',
} as const;

/**
 * A chat bubble that answers questions from the site's knowledge base, with cited sources.
 *
 * @summary Floating "ask our docs" chat.
 *
 * @fires kb-open - The panel was opened.
 * @fires kb-close - The panel was closed.
 *
 * @csspart bubble - The round button that opens and closes the panel.
 * @csspart panel - The chat panel.
 * @csspart header - The panel's title bar.
 * @csspart close-button - The close button in the header.
 * @csspart messages - The scrolling list of messages.
 * @csspart message - Every message; also `user-message`, `assistant-message` or `refusal`.
 * @csspart sources - The sources under an answer; each item is `source`, each link `source-link`.
 * @csspart suggestions - The suggestions of a refusal; each is `suggestion`.
 * @csspart typing-indicator - Shown while an answer is on its way.
 * @csspart error - An error shown under a (possibly partial) answer.
 * @csspart status - The status line (model loading, time-outs).
 * @csspart input - The question textarea.
 * @csspart send-button - The send button.
 *
 * @cssprop [--kb-accent=#2563eb] - Bubble, header, user messages and links.
 * @cssprop [--kb-accent-contrast=#ffffff] - Text on the accent colour.
 * @cssprop [--kb-background=#ffffff] - Panel background.
 * @cssprop [--kb-foreground=#111827] - Text colour.
 * @cssprop [--kb-muted=#6b7280] - Secondary text.
 * @cssprop [--kb-border=#e5e7eb] - Borders.
 * @cssprop [--kb-error=#b91c1c] - Error text.
 * @cssprop [--kb-radius=12px] - Corner radius.
 * @cssprop [--kb-font=system-ui] - Font family.
 * @cssprop [--kb-panel-width=380px] - Panel width.
 * @cssprop [--kb-panel-height=560px] - Panel height.
 * @cssprop [--kb-z-index=2147483000] - Stacking order of the widget.
 */
export default class KbChat extends LitElement {
  static override styles = styles;

  /** Base URL of the kb-chat API. Defaults to the origin this script was loaded from. */
  @property({ attribute: 'api-url' }) apiUrl = new URL('.', SCRIPT_URL).origin;

  /** Panel title. (Not `title`, which would give the whole element a tooltip.) */
  @property() heading = 'Ask our docs';

  /** Whether the panel is open. */
  @property({ type: Boolean, reflect: true }) open = false;

  /** URL of the embedder worker script. Defaults to `kb-chat-embedder.js` next to this script. */
  @property({ attribute: false }) embedderUrl: string | URL = new URL('./kb-chat-embedder.js', SCRIPT_URL);

  /** Milliseconds the AI model may take to load before the widget gives up and offers a retry. */
  @property({ attribute: false }) embedderTimeout = 15_000;

  @query('textarea') private textarea?: HTMLTextAreaElement;
  @query('.messages') private messages?: HTMLElement;

  private client?: ApiClient;
  private readonly chat = new ChatController(this, () => this.api());
  /** @internal exposed for tests and diagnostics. */
  readonly embedder = new EmbedderController(this, {
    api: () => this.api(),
    workerUrl: () => this.embedderUrl,
    timeoutMs: () => this.embedderTimeout,
  });

  private api(): ApiClient {
    if (this.client?.baseUrl !== this.apiUrl) this.client = new ApiClient(this.apiUrl);
    return this.client;
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('open') && (this.open || changed.get('open') !== undefined)) {
      // The model is fetched only once someone actually opens the chat, never at page load.
      if (this.open) this.embedder.start();
      this.dispatchEvent(new CustomEvent(this.open ? 'kb-open' : 'kb-close', { bubbles: true, composed: true }));
    }
    if (this.messages) this.messages.scrollTop = this.messages.scrollHeight;
  }

  private toggle(): void {
    this.open = !this.open;
    if (this.open) void this.updateComplete.then(() => this.textarea?.focus());
  }

  private send(event?: Event): void {
    event?.preventDefault();
    const textarea = this.textarea;
    if (!textarea || !this.canSend) return;
    const text = textarea.value;
    if (!text.trim()) return;
    textarea.value = '';
    void this.chat.ask(text, (question) => this.embedder.embed(question));
  }

  private onKeydown(event: KeyboardEvent): void {
    // Enter sends, Shift+Enter starts a new line; IME composition must not send half a word.
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) this.send(event);
  }

  private get canSend(): boolean {
    return this.embedder.status === 'ready' && !this.chat.busy;
  }

  private renderStatus(): TemplateResult | typeof nothing {
    const status = this.embedder.status;
    switch (status) {
      case 'idle':
      case 'ready':
        return nothing;
      case 'loading':
      case 'unsupported':
        return html`${STATUS_TEXT[status]}`;
      case 'timeout':
      case 'error':
        return html`<span class="status--problem">${STATUS_TEXT[status]}</span
          ><button type="button" part="retry-button" @click=${() => this.embedder.retry()}>Retry</button>`;
    }
  }

  private renderPanel(): TemplateResult {
    return html`
      <section class="panel" part="panel" role="dialog" aria-label=${this.heading}>
        <header class="header" part="header">
          <h2>${this.heading}</h2>
          <button class="close" part="close-button" type="button" aria-label="Close chat" @click=${this.toggle}>
            ×
          </button>
        </header>
        <div class="messages" part="messages" role="log" aria-live="polite">${this.chat.turns.map(renderTurn)}</div>
        <div class="status" part="status" role="status" aria-live="polite">${this.renderStatus()}</div>
        <form class="composer" @submit=${this.send}>
          <textarea
            part="input"
            rows="1"
            maxlength="2000"
            placeholder="Ask a question…"
            aria-label="Your question"
            @keydown=${this.onKeydown}
          ></textarea>
          <button class="send" part="send-button" type="submit" ?disabled=${!this.canSend}>Send</button>
        </form>
      </section>
    `;
  }

  protected override render(): TemplateResult {
    return html`
      ${this.open ? this.renderPanel() : nothing}
      <button
        class="bubble"
        part="bubble"
        type="button"
        aria-label=${this.open ? 'Close chat' : 'Open chat'}
        aria-expanded=${this.open ? 'true' : 'false'}
        @click=${this.toggle}
      >
        <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true">
          <path d="M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12z" />
        </svg>
      </button>
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'kb-chat': KbChat;
  }
  interface GlobalEventHandlersEventMap {
    'kb-open': CustomEvent<void>;
    'kb-close': CustomEvent<void>;
  }
}
