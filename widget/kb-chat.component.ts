// Long file: the element's public API (attributes, properties, methods and their JSDoc, from which docs/widget.md is generated).
import styles from './kb-chat.styles.ts';
import { adoptStyles } from './adopt-styles.ts';
import type { KbChatStrings } from './i18n.ts';
import type { ChatElement, ChatUiHandle, ChatUiModule } from './chat-host.ts';
import { staticHTML } from './trusted-types.ts';
import { ShortcutListener, ariaKeys, displayKeys } from './shortcut.ts';

// Resolved against this module (the built kb-chat.js), so the widget finds its chunks and API wherever it is hosted.
const SCRIPT_URL = import.meta.url;

// The content-hashed names of the chat UI and the embedder, compiled in by esbuild.config.mjs (so they can be
// cached for a year); the unhashed names where the source runs unbundled (the widget tests).
declare const __KB_UI_FILE__: string | undefined;
declare const __KB_EMBEDDER_FILE__: string | undefined;
declare const __KB_GENERATOR_FILE__: string | undefined;
const UI_FILE = typeof __KB_UI_FILE__ === 'string' ? __KB_UI_FILE__ : 'kb-chat-ui.js';
const EMBEDDER_FILE = typeof __KB_EMBEDDER_FILE__ === 'string' ? __KB_EMBEDDER_FILE__ : 'kb-chat-embedder.js';
const GENERATOR_FILE = typeof __KB_GENERATOR_FILE__ === 'string' ? __KB_GENERATOR_FILE__ : 'kb-chat-generator.js';

const ICON =
  '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true"><path d="M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12z"/></svg>';

// Without a DOM (a framework rendering on the server imports the npm package) there is no HTMLElement to
// extend: a bare class stands in, so importing is harmless; the element only ever runs in a browser.
const HTMLElement = (globalThis.HTMLElement ?? class {}) as typeof globalThis.HTMLElement;

/**
 * A chat bubble that answers questions from the site's knowledge base, with cited sources.
 *
 * This class is the loader: it only paints the bubble. The chat UI (kb-chat-ui.js) is fetched on intent —
 * hover, focus or click on the bubble — and the embedding model when the panel first opens.
 *
 * @summary Floating (or inline) "ask our docs" chat.
 * @tagname kb-chat
 *
 * @attr {string} api-url - Base URL of the kb-chat API. Default: the origin this script was loaded from (npm package: the page's origin).
 * @attr {string} heading - Panel title. Default "Ask our docs".
 * @attr {string} greeting - A first message shown in an empty chat. Without it, the greeting a site owner set in the console (`/api/config`), if any.
 * @attr {string} placeholder - Placeholder of the question field.
 * @attr {string} model-base-url - Where the browser fetches the embedding model (overrides the server's `models_url`).
 * @attr {boolean} open - Whether the panel is open; set it in the HTML to start open.
 * @attr {'auto'|'light'|'dark'} theme - Colour scheme; `auto` (default) follows `prefers-color-scheme`.
 * @attr {'right'|'left'} position - Which bottom corner the bubble sits in (mirrored in RTL).
 * @attr {'floating'|'inline'} mode - `inline` renders the chat in the page flow, always open, without the bubble.
 * @attr {string} support-url - Where "Contact support" under a refusal leads: an `https:` or `mailto:` address (anything else is ignored); `{question}` in it is replaced by the URL-encoded question, and a `mailto:` gets the question and the page's URL as subject and body. Wins over the `support_url` a site owner set in the console. Without either (and without a `kb-escalate` listener on the element), the chip is not shown.
 * @attr {string} starters - Starter questions for the empty panel, as a JSON array of strings (at most 4, each at most 120 characters; shown as text, sent when clicked). Wins over the starters a site owner set in the console; none set, none shown.
 * @attr {string} shortcut - A key combination that opens the panel (focuses the question box with `mode="inline"`) from anywhere on the page, except while the visitor types in another field: `mod+k` is ⌘K on macOS, Ctrl+K elsewhere. Modifiers `mod`, `ctrl`, `meta`, `alt`, `shift`, then one key (`k`, `/`, `F1`). Off by default. Screen readers hear it on the bubble (`aria-keyshortcuts` and a hidden hint) and on the question box.
 * @attr {'none'|'intent'|'idle'} preload - When the embedding model and its wasm start downloading: `intent` (default) on hover, focus or touch of the bubble; `idle` once the page has loaded and the browser is idle; `none` only when the panel opens. Never ahead of the panel when the visitor asked to save data (`navigator.connection.saveData`).
 *
 * @fires {CustomEvent<void>} kb-open - The panel was opened.
 * @fires {CustomEvent<void>} kb-close - The panel was closed.
 * @fires {CustomEvent<KbQuestionDetail>} kb-question - A question was sent.
 * @fires {CustomEvent<KbAnswerDetail>} kb-answer - An answer was completed.
 * @fires {CustomEvent<KbAnswerWrittenDetail>} kb-answer-written - Generative mode: the on-device model wrote a fuller answer from the cited passages (it passed validation and is shown).
 * @fires {CustomEvent<KbRefusalDetail>} kb-refusal - The knowledge base had no evidence; the assistant declined.
 * @fires {CustomEvent<KbErrorDetail>} kb-error - A question failed (network, rate limit, auth …).
 * @fires {CustomEvent<KbEscalateDetail>} kb-escalate - The visitor chose "Contact support" under a refusal. Cancelable: `preventDefault()` to open your own help desk (Intercom, Zendesk, Chatwoot …) instead of the support address; a listener on the element itself also shows the chip when no address is set.
 * @fires {CustomEvent<KbFeedbackDetail>} kb-feedback - The visitor rated an answer or a refusal (👍 / 👎, a comment on 👎) and the server stored it; a change of mind fires again.
 *
 * @csspart bubble - The round button that opens and closes the panel.
 * @csspart panel - The chat panel.
 * @csspart header - The panel's title bar; its buttons are `history-button`, `new-chat-button`, `close-button`.
 * @csspart messages - The scrolling list of messages (`role="log"`).
 * @csspart message - Every message; also `user-message`, `assistant-message`, `refusal` or `greeting`.
 * @csspart citation - An inline `[n]` citation badge; its hover/focus preview is `citation-preview`.
 * @csspart sources - The sources under an answer; each item is `source`, its link `source-link`, its expand button `source-toggle`, the passage `source-passage`; `more-sources` shows the rest.
 * @csspart code-block - A fenced code block in an answer (never wrapped, scrolls sideways); its Copy button is `code-copy-button`.
 * @csspart table-scroll - The keyboard-scrollable container around a table in an answer.
 * @csspart related - The collapsed "Related" list after the sources: sources the answer does not quote, neither numbered nor counted; each item is `related-item`, its link `related-link`.
 * @csspart views - Generative mode: the "Written / Quoted" switch of an answer; each option is `view-option` (`aria-pressed`); the notes are `writing-note` and `written-note`.
 * @csspart context-note - Above a follow-up answered in the context of the question before it: "About: …" and the `ask-as-new` button, which asks it again as a new question.
 * @csspart answer-footer - "Grounded in N sources" (the quoted sources only) and the `copy-button`.
 * @csspart suggestions - What a refusal offers; each is a `suggestion` (an owner's question, sent when clicked) or an action: `suggestion rephrase` (puts the question back into the box) or `suggestion contact-support`.
 * @csspart closest-pages - Under a refusal, the closest pages when a passage came near the evidence needed (labelled as not answering); each link is `closest-page`.
 * @csspart starters - The starter questions of the empty panel; each is a `starter` button.
 * @csspart feedback - 👍 / 👎 under an answer or a refusal: two `feedback-button`s (`feedback-up`, `feedback-down`, `aria-pressed` on the chosen one), `feedback-retry` after a failure, and after 👎 the `feedback-form` with its `feedback-input`.
 * @csspart typing-indicator - Shown while an answer is on its way.
 * @csspart error - An error under a (possibly partial) answer, with its `retry-button`.
 * @csspart status - The status line (model loading, with its `loading-note`; keyword mode; a slow connection). An answer given while the model loads carries a `loading-note` too.
 * @csspart sessions - The history view; each past conversation is a `session` button.
 * @csspart input - The question textarea.
 * @csspart send-button - The send button.
 *
 * @cssprop [--kb-accent=#2563eb] - Bubble, header, user messages and links.
 * @cssprop [--kb-accent-contrast=#ffffff] - Text on the accent colour.
 * @cssprop [--kb-background=#ffffff] - Panel background.
 * @cssprop [--kb-surface=#f3f4f6] - Assistant message background.
 * @cssprop [--kb-foreground=#111827] - Text colour.
 * @cssprop [--kb-muted=#4b5563] - Secondary text.
 * @cssprop [--kb-border=#d1d5db] - Borders.
 * @cssprop [--kb-error=#b91c1c] - Error text.
 * @cssprop [--kb-focus=#1d4ed8] - Focus ring.
 * @cssprop [--kb-radius=12px] - Corner radius.
 * @cssprop [--kb-font=system-ui] - Font family.
 * @cssprop [--kb-font-size=15px] - Base font size (the input is never below 16px on small screens).
 * @cssprop [--kb-panel-width=380px] - Panel width.
 * @cssprop [--kb-panel-height=560px] - Panel height (and the inline mode's height).
 * @cssprop [--kb-z-index=2147483000] - Stacking order of the floating widget.
 * @cssprop [--kb-offset-x=20px] - Distance of the bubble from the side of the viewport.
 * @cssprop [--kb-offset-y=20px] - Distance of the bubble from the bottom of the viewport.
 */
export default class KbChat extends HTMLElement implements ChatElement {
  static readonly observedAttributes = [
    'open',
    'heading',
    'greeting',
    'placeholder',
    'api-url',
    'model-base-url',
    'mode',
    'theme',
    'position',
    'preload',
    'support-url',
    'starters',
    'shortcut',
  ];

  /** The host page's access token (e.g. its Supabase session's `access_token`); replaces the anonymous sign-in. */
  token: string | null = null;
  /** Called before each request for a fresh token; wins over `token`. */
  getToken: (() => string | null | undefined | Promise<string | null | undefined>) | null = null;
  /** Overrides for any user-visible string (i18n); see `DEFAULT_STRINGS` in i18n.ts. */
  strings: Partial<KbChatStrings> = {};
  /** URL of the chat UI module. Default: `kb-chat-ui.<hash>.js` next to this script. */
  uiUrl: string | URL = new URL(`./${UI_FILE}`, SCRIPT_URL);
  /**
   * @internal Set by the npm package's entry: a site's bundler moves this module, so "next to this script" says
   * nothing about where the chunks are. Then the chat UI is a literal `import()` the bundler follows, and the
   * workers come from the kb-chat server at `api-url` (which serves them, unhashed, with CORS).
   */
  static bundled?: { importUi: () => Promise<ChatUiModule> };
  /** URL of the embedder worker script. Default: `kb-chat-embedder.<hash>.js` next to this script (npm package: on the `api-url` server). */
  embedderUrl: string | URL = this.chunk(EMBEDDER_FILE);
  /** URL of the generator worker script (generative mode only). Default: `kb-chat-generator.<hash>.js` next to this script (npm package: on the `api-url` server). */
  generatorUrl: string | URL = this.chunk(GENERATOR_FILE);
  /** Milliseconds a written answer (generative mode) may take, model loading included, before the quoted one stays. */
  generatorTimeout = 60_000;
  /** Milliseconds after which a model still loading counts as slow (the status line says so; it keeps loading). */
  embedderTimeout = 15_000;

  /** @internal the loaded chat UI. */
  ui?: ChatUiHandle;
  private loading?: Promise<ChatUiHandle>;
  private bubble?: HTMLButtonElement;
  private hint?: HTMLElement;
  private readonly shortcutListener = new ShortcutListener(() => this.onShortcut());

  get apiUrl(): string {
    // Bundled, this module's URL is the site's chunk (or, under webpack, a file: URL): the page's origin then.
    return this.getAttribute('api-url') || new URL('.', KbChat.bundled ? location.href : SCRIPT_URL).origin;
  }
  set apiUrl(value: string) {
    this.setAttribute('api-url', value);
  }
  get heading(): string | null {
    return this.getAttribute('heading');
  }
  set heading(value: string | null) {
    this.reflect('heading', value);
  }
  get greeting(): string | null {
    return this.getAttribute('greeting');
  }
  set greeting(value: string | null) {
    this.reflect('greeting', value);
  }
  get placeholder(): string | null {
    return this.getAttribute('placeholder');
  }
  set placeholder(value: string | null) {
    this.reflect('placeholder', value);
  }
  get modelBaseUrl(): string | null {
    return this.getAttribute('model-base-url');
  }
  set modelBaseUrl(value: string | null) {
    this.reflect('model-base-url', value);
  }
  get open(): boolean {
    return this.hasAttribute('open');
  }
  set open(value: boolean) {
    this.toggleAttribute('open', Boolean(value));
  }
  get inline(): boolean {
    return this.getAttribute('mode') === 'inline';
  }
  /** `preload`: `none`, `intent` (default; also for a value it does not know) or `idle`. */
  get preload(): Preload {
    const value = this.getAttribute('preload');
    return value === 'none' || value === 'idle' ? value : 'intent';
  }
  set preload(value: Preload) {
    this.setAttribute('preload', value);
  }
  /** The `shortcut` attribute (`mod+k`, …); null when off. */
  get shortcut(): string | null {
    return this.getAttribute('shortcut');
  }
  set shortcut(value: string | null) {
    this.reflect('shortcut', value);
  }
  /** @internal The shortcut in `aria-keyshortcuts` form (`Control+K`), for the question box; null when off. */
  get keyShortcuts(): string | null {
    const { shortcut } = this.shortcutListener;
    return shortcut && ariaKeys(shortcut);
  }

  /** `support-url`: where "Contact support" leads (`https:` or `mailto:`; anything else is ignored). */
  get supportUrl(): string | null {
    return this.getAttribute('support-url');
  }
  set supportUrl(value: string | null) {
    this.reflect('support-url', value);
  }
  /** `starters` parsed: the strings of its JSON array; null when the attribute is absent or not such an array. */
  get starters(): string[] | null {
    try {
      const value: unknown = JSON.parse(this.getAttribute('starters') ?? 'null');
      return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : null;
    } catch {
      return null;
    }
  }
  set starters(value: string[] | null) {
    this.reflect('starters', value ? JSON.stringify(value) : null);
  }

  /** @internal `kb-escalate` listeners on the element itself: with one, "Contact support" shows without an address. */
  escalateListeners = 0;
  /** @internal counts `kb-escalate` listeners (escalateListeners). */
  override addEventListener<K extends keyof HTMLElementEventMap>(
    type: K,
    listener: (this: HTMLElement, ev: HTMLElementEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  /** @internal */
  override addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void;
  /** @internal */
  override addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void {
    if (type === 'kb-escalate' && listener) this.escalateListeners++;
    super.addEventListener(type, listener, options);
  }
  /** @internal */
  override removeEventListener<K extends keyof HTMLElementEventMap>(
    type: K,
    listener: (this: HTMLElement, ev: HTMLElementEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  /** @internal */
  override removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | EventListenerOptions,
  ): void;
  /** @internal */
  override removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | EventListenerOptions,
  ): void {
    if (type === 'kb-escalate' && listener) this.escalateListeners = Math.max(0, this.escalateListeners - 1);
    super.removeEventListener(type, listener, options);
  }

  /** Resolves once pending rendering is done (and the chat UI, if it is loading, is loaded). */
  get updateComplete(): Promise<boolean> {
    return (this.loading ?? Promise.resolve(undefined)).then((ui) => ui?.updateComplete ?? true);
  }

  connectedCallback(): void {
    if (!this.shadowRoot) {
      const root = this.attachShadow({ mode: 'open', delegatesFocus: false });
      root.innerHTML = staticHTML(
        `<div class="ui"></div><button class="bubble" part="bubble" type="button">${ICON}</button><span id="hint" hidden></span>`,
      );
      adoptStyles(root, styles);
      this.bubble = root.querySelector('button')!;
      // Hidden, and still the bubble's description (aria-describedby reads hidden elements too): shown, it was
      // text of its own wherever the page puts <kb-chat>, outside the page's landmarks (axe's "region" rule).
      this.hint = root.querySelector<HTMLElement>('#hint')!;
      this.bubble.addEventListener('click', () => (this.open = !this.open));
      // Intent: fetch the chat UI (its own chunk, budget 40 KB gz) as soon as the visitor is likely to open it;
      // with preload="intent" the model and the wasm start too, so they have a head start on the first question.
      const onIntent = () => void this.load().then((ui) => this.mayPreload('intent') && ui.preload());
      for (const type of ['pointerenter', 'focus', 'touchstart'])
        this.bubble.addEventListener(type, onIntent, { passive: true });
      // Asked when the browser is idle, so an attribute set after the element was created still counts.
      whenIdle(() => this.mayPreload('idle') && void this.load().then((ui) => ui.preload()));
    }
    this.shortcutListener.update(this.shortcut, true);
    this.paintBubble();
    if (this.open || this.inline) void this.load().then((ui) => ui.opened());
    this.ui?.connected();
  }

  disconnectedCallback(): void {
    this.shortcutListener.update(null, false);
    this.ui?.disconnected();
  }

  attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    // Before connectedCallback (upgrade of parsed HTML) there is nothing to update; connecting handles it.
    if (old === value || !this.shadowRoot) return;
    if (name === 'shortcut') this.shortcutListener.update(value, this.isConnected);
    this.paintBubble();
    if (name === 'open' && this.isConnected) {
      this.dispatchEvent(new CustomEvent(this.open ? 'kb-open' : 'kb-close', { bubbles: true, composed: true }));
      if (this.open) void this.load().then((ui) => ui.opened());
      else if (this.shadowRoot?.activeElement) this.bubble?.focus(); // closing returns focus to the bubble
    }
    if (name === 'mode' && this.inline) void this.load().then((ui) => ui.opened());
    // preload="idle" set after the element connected (the idle moment may have passed): wait for the next one.
    if (name === 'preload' && value === 'idle')
      whenIdle(() => this.mayPreload('idle') && void this.load().then((ui) => ui.preload()));
    this.ui?.requestUpdate();
  }

  /** Load the chat UI now (it is loaded on intent anyway). */
  load(): Promise<ChatUiHandle> {
    this.loading ??= (KbChat.bundled?.importUi() ?? import(/* @vite-ignore */ String(this.uiUrl))).then(
      (module: ChatUiModule) => {
        this.ui = module.mountChatUi(this, this.shadowRoot!);
        return this.ui;
      },
    );
    this.loading.catch((error: unknown) => {
      console.error('[kb-chat] the chat UI could not be loaded:', error);
      this.loading = undefined;
    });
    return this.loading;
  }

  /**
   * A worker's URL, read when the panel first needs it (so an `api-url` set after the element was created,
   * as frameworks do, counts): an object whose `toString` resolves it then, unless the page sets its own.
   */
  private chunk(file: string): URL | string {
    if (!KbChat.bundled) return new URL(`./${file}`, SCRIPT_URL);
    return { toString: () => new URL(`/${file}`, this.apiUrl).href } as string;
  }

  /** Whether `moment` may start the model download ahead of the panel opening. */
  private mayPreload(moment: 'intent' | 'idle'): boolean {
    // Data Saver (Chrome, Android): a visitor who pays per megabyte downloads the model only by opening the chat.
    const saveData = (navigator as { connection?: { saveData?: boolean } }).connection?.saveData === true;
    return !saveData && this.preload === moment;
  }

  /** Move focus to the bubble (after Esc). */
  focusBubble(): void {
    this.bubble?.focus();
  }

  /** The shortcut was pressed outside any text field: open the panel, or bring focus to its question box. */
  private onShortcut(): void {
    if (this.inline || this.open) {
      // Inline, or already open: the box may be far down the page or the visitor elsewhere; focus scrolls to it.
      void this.load()
        .then((ui) => ui.updateComplete)
        .then(() => this.shadowRoot?.querySelector('textarea')?.focus());
    } else {
      this.open = true; // the chat UI focuses its question box when the panel opens
    }
  }

  private paintBubble(): void {
    if (!this.bubble) return;
    const label = this.open ? (this.strings.closeChat ?? 'Close chat') : (this.strings.openChat ?? 'Open chat');
    this.bubble.setAttribute('aria-label', label);
    this.bubble.setAttribute('aria-expanded', String(this.open));
    // aria-keyshortcuts is read by few screen readers yet, so a hidden description says it in words too.
    const { shortcut } = this.shortcutListener;
    this.hint!.textContent = shortcut
      ? (this.strings.shortcutHint ?? 'Keyboard shortcut: {keys}').replace('{keys}', displayKeys(shortcut))
      : '';
    for (const [name, value] of [
      ['aria-keyshortcuts', shortcut && ariaKeys(shortcut)],
      ['aria-describedby', shortcut && 'hint'],
    ] as const) {
      if (value) this.bubble.setAttribute(name, value);
      else this.bubble.removeAttribute(name);
    }
  }

  private reflect(name: string, value: string | null): void {
    if (value == null) this.removeAttribute(name);
    else this.setAttribute(name, value);
  }
}

export type Preload = 'none' | 'intent' | 'idle';

export type {
  KbAnswerDetail,
  KbAnswerWrittenDetail,
  KbErrorDetail,
  KbEscalateDetail,
  KbFeedbackDetail,
  KbQuestionDetail,
  KbRefusalDetail,
} from './events.ts';

/** After the page's load event, when the browser is idle (Safari has no requestIdleCallback: 2 s later). */
function whenIdle(callback: () => void): void {
  const idle = () =>
    'requestIdleCallback' in window ? requestIdleCallback(callback, { timeout: 10_000 }) : setTimeout(callback, 2_000);
  if (document.readyState === 'complete') idle();
  else addEventListener('load', idle, { once: true });
}

declare global {
  interface HTMLElementTagNameMap {
    'kb-chat': KbChat;
  }
}
