/**
 * The chat UI (dist/kb-chat-ui.js), loaded by the `<kb-chat>` loader on intent and rendered with lit-html
 * into the loader's shadow root. It is the ReactiveControllerHost of the controllers that do the I/O
 * (chat stream, embedder, history); the templates stay declarative.
 */
import { html, nothing, render, type TemplateResult } from 'lit/html.js';
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type KbChat from '../kb-chat.component.ts';
import { isSupportUrl } from '../../protocol/support.ts';
import { adoptStyles } from '../adopt-styles.ts';
import { ApiClient } from '../api/api-client.ts';
import type { ClientConfig } from '../../protocol/api.ts';
import type { Citation } from '../../protocol/chat.ts';
import { ChatController, type AnswerTurn, type RefusalTurn } from '../controllers/chat-controller.ts';
import { FeedbackController } from '../controllers/feedback-controller.ts';
import { errorCode, userMessageFor } from '../controllers/chat-errors.ts';
import { EmbedderController } from '../controllers/embedder-controller.ts';
import type { GeneratorController } from '../controllers/generator-controller.ts';
import { HistoryController } from '../controllers/history-controller.ts';
import { ConnectivityController } from '../controllers/connectivity-controller.ts';
import { DEFAULT_STRINGS, format, type KbChatStrings } from '../i18n.ts';
import { COPY_CODE } from '../render/blocks.ts';
import { answerElement, plainAnswer } from '../render/citations.ts';
import { renderMarkdownFragment } from '../render/markdown.ts';
import { renderFeedback } from '../render/feedback.ts';
import { renderTurn, type MessageView } from '../render/message.ts';
import { renderStarters } from '../render/starters.ts';
import { escalate, questionOf, rephrase } from './escalate.ts';
import type { SourcesView } from '../render/sources.ts';
import styles from './chat-ui.styles.ts';
import { ICONS, iconButton } from './icon-button.ts';
import type { GenerativeMode } from './generative.ts';

const FOCUSABLE = 'button:not([disabled]), textarea:not([disabled]), a[href], [tabindex]:not([tabindex="-1"])';

declare const __KB_GENERATIVE_FILE__: string | undefined;
declare const __KB_CAPTCHA_FILE__: string | undefined;
/**
 * Chunks only some visitors need, next to this one: their content-hashed names when built (esbuild.config.mjs),
 * the source files when the tests serve the sources. Not literal `import()`s, which esbuild would bundle into
 * this chunk, for every visitor. Generative mode (ui/generative.ts) when the server's mode says so; the
 * CAPTCHA (api/captcha.ts) when the server asks for one before a sign-in.
 */
const GENERATIVE_URL = new URL(typeof __KB_GENERATIVE_FILE__ === 'string' ? `./${__KB_GENERATIVE_FILE__}` : './generative.ts', import.meta.url);
const CAPTCHA_URL = new URL(typeof __KB_CAPTCHA_FILE__ === 'string' ? `./${__KB_CAPTCHA_FILE__}` : '../api/captcha.ts', import.meta.url);

export function mountChatUi(host: KbChat, root: ShadowRoot): ChatUi {
  return new ChatUi(host, root);
}

export class ChatUi implements ReactiveControllerHost {
  readonly chat: ChatController;
  readonly embedder: EmbedderController;
  readonly history: HistoryController;
  readonly connectivity: ConnectivityController;
  readonly feedback: FeedbackController;
  view: 'chat' | 'sessions' = 'chat';
  updateComplete: Promise<boolean> = Promise.resolve(true);

  private readonly controllers = new Set<ReactiveController>();
  private readonly container: HTMLElement;
  private client?: ApiClient;
  private pending = false;
  private restored = false;
  /** The site owner's greeting from /api/config (set in the console); the page's own greeting wins. */
  private serverGreeting: string | null = null;
  /** The site owner's support address and starter questions from /api/config; the page's attributes win. */
  private serverSupportUrl?: string;
  private serverStarters: string[] = [];
  private announcement = '';
  private copiedId?: string;
  /** Per-answer caches: the rendered Markdown (rebuilt only when text or sources change) and UI toggles. */
  private readonly bodies = new Map<string, { key: string; node: HTMLElement }>();
  private readonly showAll = new Set<string>();
  private readonly expanded = new Set<string>();
  /** Generative mode, once the server's config asked for it and its chunk has loaded. */
  private generative?: Promise<GenerativeMode | undefined>;
  private generativeMode?: GenerativeMode;
  private readonly passages = new Map<string, { status: 'loading' | 'ready' | 'error'; content?: string; node?: Node }>();

  constructor(
    readonly host: KbChat,
    private readonly root: ShadowRoot,
  ) {
    adoptStyles(root, styles);
    this.container = root.querySelector('.ui')!;
    this.chat = new ChatController(this, () => this.api(), {
      question: (detail) => this.emit('kb-question', detail),
      answer: (turn, sessionId) => {
        const text = plainAnswer(turn.markdown);
        this.announce(format(this.strings.answerAnnouncement, { text }));
        this.emit('kb-answer', { messageId: turn.request?.message_id ?? turn.id, answerId: turn.answerId, sessionId, text, citations: turn.citations });
        void this.generative?.then((mode) => mode?.write(turn));
      },
      refusal: (turn) => {
        this.announce(turn.message);
        const { message, suggestions, actions, closest, answerId } = turn;
        this.emit('kb-refusal', { message, suggestions, actions, closest, answerId });
      },
      error: (turn) =>
        this.emit('kb-error', { code: errorCode(turn.error), message: userMessageFor(turn.error, turn.markdown !== '', this.strings) }),
      session: (id) => this.history.remember(id),
    });
    this.embedder = new EmbedderController(this, {
      api: () => this.api(),
      workerUrl: () => host.embedderUrl,
      timeoutMs: () => host.embedderTimeout,
      modelsUrl: () => host.modelBaseUrl,
    });
    this.history = new HistoryController(this, () => this.api());
    this.connectivity = new ConnectivityController(this);
    this.feedback = new FeedbackController(this, () => this.api(), (detail) => this.emit('kb-feedback', detail));
    this.container.addEventListener('keydown', (event) => this.onPanelKeydown(event));
    this.container.addEventListener('click', (event) => this.onCitationClick(event));
    this.container.addEventListener('click', (event) => void this.onCopyCode(event));
    this.connected();
  }

  /** Generative mode's writing model (undefined in extractive mode and until its chunk has loaded). */
  get generator(): GeneratorController | undefined {
    return this.generativeMode?.generator;
  }

  get strings(): KbChatStrings {
    return { ...DEFAULT_STRINGS, ...this.host.strings };
  }

  // ReactiveControllerHost
  addController(controller: ReactiveController): void {
    this.controllers.add(controller);
  }
  removeController(controller: ReactiveController): void {
    this.controllers.delete(controller);
  }
  requestUpdate(): void {
    if (this.pending) return;
    this.pending = true;
    this.updateComplete = Promise.resolve().then(() => {
      this.pending = false;
      this.update();
      return true;
    });
  }

  connected(): void {
    for (const controller of this.controllers) controller.hostConnected?.();
    this.requestUpdate();
  }
  disconnected(): void {
    for (const controller of this.controllers) controller.hostDisconnected?.();
  }

  /** Start downloading the model and the wasm ahead of the panel (the `preload` attribute decides when). */
  preload(): void {
    this.embedder.start();
  }

  /** The panel was opened (or the widget is inline): load the model, restore the session, focus the input. */
  opened(): void {
    this.embedder.start();
    // Generative mode only: the writing model is large, so it loads when the panel opens, never on intent.
    this.api()
      .config()
      .then((config) => {
        this.serverGreeting = config.greeting ?? null;
        this.serverSupportUrl = config.support_url;
        this.serverStarters = config.starters ?? [];
        this.requestUpdate();
        this.startGenerative(config);
      })
      .catch(() => {}); // no config: the embedder reports the problem; answers stay quoted
    if (!this.restored) {
      this.restored = true;
      const current = this.history.current;
      if (current && this.chat.turns.length === 0) void this.openSession(current, { unlessAsked: true });
    }
    this.requestUpdate();
    if (!this.host.inline) void this.updateComplete.then(() => this.textarea?.focus());
  }

  /**
   * Generative mode only: its chunk is imported the first time the config says so (extractive visitors never
   * fetch it), then the writing model starts loading. If the chunk fails to load, answers stay quoted.
   */
  private startGenerative(config: ClientConfig): void {
    if (config.answer_mode !== 'generative' || !config.generation_model) return;
    const host = this.host;
    this.generative ??= import(/* @vite-ignore */ GENERATIVE_URL.href).then(
      ({ GenerativeMode }: typeof import('./generative.ts')) =>
        (this.generativeMode = new GenerativeMode({
          ui: this,
          api: () => this.api(),
          patch: (id, patch) => this.chat.patch(id, patch),
          emit: (type, detail) => this.emit(type, detail),
          workerUrl: () => host.generatorUrl,
          timeoutMs: () => host.generatorTimeout,
          modelsUrl: () => host.modelBaseUrl,
        })),
      (error: unknown) => void console.warn('[kb-chat] generative mode failed to load; answers stay quoted:', error),
    );
    void this.generative.then((mode) => mode?.start(config));
  }

  private api(): ApiClient {
    const url = this.host.apiUrl;
    if (this.client?.baseUrl !== url) this.client = new ApiClient(url, () => this.host, (captcha) =>
      import(/* @vite-ignore */ CAPTCHA_URL.href).then(({ solveCaptcha }: typeof import('../api/captcha.ts')) => solveCaptcha(this.host, captcha)),
    );
    return this.client;
  }

  private emit(type: string, detail: unknown): void {
    this.host.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  private announce(text: string): void {
    // Cleared first so the same text twice is still announced twice.
    this.announcement = '';
    this.update();
    this.announcement = text;
    this.requestUpdate();
  }

  private get textarea(): HTMLTextAreaElement | null {
    return this.root.querySelector('textarea');
  }

  send(text?: string, { context = true } = {}): void {
    const textarea = this.textarea;
    const question = text ?? textarea?.value ?? '';
    if (!question.trim()) return;
    if (this.connectivity.holdBack()) return; // offline: the question stays in the box
    if (textarea) textarea.value = '';
    this.view = 'chat';
    // Never blocked by the model: until it is ready the question goes out without an embedding and the
    // server answers in keyword mode at once. Waiting for a model that is "almost ready" was measured and
    // not worth it (README, "First visit"): on a warm visit it is ready before a visitor has typed a word.
    const { status } = this.embedder;
    void this.chat.ask(question, status === 'ready' ? (q) => this.embedder.embed(q) : undefined, { modelLoading: status === 'loading', context });
  }

  private onSubmit(event: Event): void {
    event.preventDefault();
    this.send();
  }

  /**
   * The visitor started typing: get the access token now, so Send does not wait for a sign-in. Not on open:
   * a sign-in creates a user (and spends the project's sign-up quota) for visitors who never ask.
   */
  /** The client whose token the first keystroke already asked for. */
  private tokenWarmed?: ApiClient;

  private onInput(): void {
    const api = this.api();
    if (this.tokenWarmed === api) return; // once per client, not per keystroke
    this.tokenWarmed = api;
    // A failure is not reported here: Send asks again and shows it where the visitor looks.
    api.token().catch(() => (this.tokenWarmed = undefined));
  }

  private onInputKeydown(event: KeyboardEvent): void {
    // Enter sends, Shift+Enter starts a new line; IME composition must not send half a word.
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this.send();
    }
  }

  private onPanelKeydown(event: KeyboardEvent): void {
    if (this.host.inline) return;
    if (event.key === 'Escape') {
      event.preventDefault();
      this.host.open = false;
      this.host.focusBubble();
      return;
    }
    if (event.key !== 'Tab') return;
    // Focus stays inside the open panel (a modal dialog on small screens, a non-modal one otherwise).
    const panel = this.root.querySelector('.panel');
    const items = [...(panel?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? [])].filter((el) => el.offsetParent !== null || el === this.root.activeElement);
    if (!items.length) return;
    const first = items[0]!;
    const last = items[items.length - 1]!;
    const active = this.root.activeElement;
    if (event.shiftKey && (active === first || !panel?.contains(active))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (active === last || !panel?.contains(active))) {
      event.preventDefault();
      first.focus();
    }
  }

  /** A click on a `[n]` badge reveals and focuses that source in the sources block. */
  private onCitationClick(event: Event): void {
    const badge = (event.target as Element).closest?.('.cite__badge') as HTMLElement | null;
    if (!badge) return;
    const message = badge.closest<HTMLElement>('.turn');
    const turn = this.chat.turns.find((t) => t.id === message?.dataset.turn);
    if (!turn) return;
    const n = badge.dataset.n!;
    this.showAll.add(turn.id);
    this.requestUpdate();
    void this.updateComplete.then(() => {
      const source = message?.querySelector<HTMLElement>(`.source[data-n="${n}"]`);
      const target = source?.querySelector<HTMLElement>('a, button');
      source?.classList.add('source--highlight');
      setTimeout(() => source?.classList.remove('source--highlight'), 1500);
      target?.focus();
      source?.scrollIntoView?.({ block: 'nearest' });
    });
  }

  /** `unlessAsked`: the automatic restore on opening; a question asked meanwhile wins over it. */
  private async openSession(id: string, { unlessAsked = false } = {}): Promise<void> {
    const detail = await this.history.open(id);
    if (!detail) return;
    // Restoring replaces the conversation (and cancels an unfinished answer): never do that to a question
    // the visitor sent while the history was on its way.
    if (unlessAsked && this.chat.turns.length > 0) return;
    this.generativeMode?.abort();
    this.chat.restore(detail);
    this.view = 'chat';
    this.requestUpdate();
  }

  private newChat(): void {
    this.generativeMode?.abort();
    this.chat.newChat();
    this.view = 'chat';
    this.requestUpdate();
    void this.updateComplete.then(() => this.textarea?.focus());
  }

  private toggleHistory(): void {
    this.view = this.view === 'sessions' ? 'chat' : 'sessions';
    if (this.view === 'sessions') void this.history.refresh();
    this.requestUpdate();
  }

  /** Put text on the clipboard; false when the browser refused both ways. */
  private async copyText(text: string): Promise<boolean> {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // Clipboard API blocked (permissions, insecure context): the old way.
      const area = document.createElement('textarea');
      area.value = text;
      this.root.append(area);
      area.select();
      const copied = document.execCommand('copy');
      area.remove();
      return copied;
    }
  }

  /** A code block's Copy button (render/blocks.ts): the code exactly as written, then "Copied" (announced). */
  private async onCopyCode(event: Event): Promise<void> {
    const button = (event.target as Element).closest?.(`.${COPY_CODE}`);
    const code = button?.parentElement?.querySelector('pre')?.textContent;
    if (!button || code == null) return;
    const s = this.strings;
    if (!(await this.copyText(code))) return;
    // The button belongs to the cached answer body, so its label survives re-renders until it is reset.
    button.textContent = s.codeCopied;
    this.announce(s.codeCopied);
    setTimeout(() => (button.textContent = s.copyCode), 2000);
  }

  private async copy(turn: AnswerTurn): Promise<void> {
    await this.copyText(plainAnswer(this.shownMarkdown(turn)));
    this.copiedId = turn.id;
    this.requestUpdate();
    setTimeout(() => {
      if (this.copiedId === turn.id) this.copiedId = undefined;
      this.requestUpdate();
    }, 2000);
  }

  /** The answer on screen: the written one in generative mode (unless the visitor chose Quoted), else the quoted one. */
  private shownMarkdown(turn: AnswerTurn): string {
    const written = turn.written;
    return written && written.status !== 'failed' && turn.view !== 'quoted' && written.markdown ? written.markdown : turn.markdown;
  }

  private answerBody(turn: AnswerTurn): Node {
    const markdown = this.shownMarkdown(turn);
    const key = `${markdown}\u0000${turn.citations.length}`;
    const cached = this.bodies.get(turn.id);
    if (cached?.key === key) return cached.node;
    const node = answerElement(markdown, turn.citations, `kb-cite-${turn.id}`, this.strings);
    this.bodies.set(turn.id, { key, node });
    return node;
  }

  private sourcesView(turn: AnswerTurn): SourcesView {
    const key = (c: Citation) => `${turn.id}:${c.n}`;
    return {
      strings: this.strings,
      showAll: this.showAll.has(turn.id),
      expanded: (c) => this.expanded.has(key(c)),
      passage: (c) => this.passage(key(c), c),
      togglePassage: (c) => {
        if (this.expanded.delete(key(c))) return this.requestUpdate();
        this.expanded.add(key(c));
        void this.loadPassage(c);
        this.requestUpdate();
      },
      toggleAll: () => {
        if (!this.showAll.delete(turn.id)) this.showAll.add(turn.id);
        this.requestUpdate();
      },
    };
  }

  /** The full chunk text (GET /api/chunks/:id), rendered through the same sanitizing pipeline as answers. */
  private passage(key: string, citation: Citation): unknown {
    const entry = this.passages.get(citation.chunk_id);
    if (entry?.status === 'error' && !citation.excerpt) return this.strings.passageError;
    const content = entry?.content ?? citation.excerpt;
    if (!content) return html`<span class="typing" aria-hidden="true"><span></span><span></span><span></span></span>`;
    const cacheKey = `${key}\u0000${content}`;
    let node = this.passageNodes.get(cacheKey);
    if (!node) {
      node = document.createElement('div');
      node.append(renderMarkdownFragment(content));
      this.passageNodes.set(cacheKey, node);
    }
    return node;
  }
  private readonly passageNodes = new Map<string, HTMLElement>();

  private async loadPassage(citation: Citation): Promise<void> {
    if (this.passages.has(citation.chunk_id)) return;
    this.passages.set(citation.chunk_id, { status: 'loading' });
    try {
      const chunk = await this.api().chunk(citation.chunk_id);
      this.passages.set(citation.chunk_id, { status: 'ready', content: chunk.content });
    } catch (error) {
      console.warn('[kb-chat] passage failed:', error);
      this.passages.set(citation.chunk_id, { status: 'error' });
    }
    this.requestUpdate();
  }

  private messageView(): MessageView {
    return {
      strings: this.strings,
      answerBody: (turn) => this.answerBody(turn),
      sources: (turn) => this.sourcesView(turn),
      copied: (turn) => this.copiedId === turn.id,
      copy: (turn) => void this.copy(turn),
      retry: (turn) => void this.chat.retry(turn.id),
      showView: (turn, which) => this.chat.patch(turn.id, { view: which }),
      suggest: (text) => this.send(text),
      rephrase: (turn) => rephrase(this.textarea, questionOf(this.chat.turns, turn)),
      escalate: (turn) => escalate(this.host, this.chat.turns, turn, this.supportAddress(), this.chat.sessionId),
      canEscalate: this.supportAddress() !== undefined || this.host.escalateListeners > 0,
      askAsNew: (turn) => {
        const at = this.chat.turns.indexOf(turn);
        const question = at > 0 ? this.chat.turns[at - 1] : undefined;
        if (question?.kind === 'user') this.send(question.text, { context: false });
      },
      feedback: (turn) => this.feedbackFor(turn),
    };
  }

  /** The support address in effect: the page's `support-url`, else the owner's; only https: or mailto:. */
  private supportAddress(): string | undefined {
    return [this.host.supportUrl, this.serverSupportUrl].find(isSupportUrl);
  }

  /** 👍 / 👎 of a stored answer or refusal; the comment field takes focus when it opens, 👎 gets it back after. */
  private feedbackFor({ answerId: id, feedback: initial }: AnswerTurn | RefusalTurn): TemplateResult | typeof nothing {
    if (!id) return nothing;
    const focus = (selector: string) =>
      void this.updateComplete.then(() => this.root.querySelector<HTMLElement>(`[data-answer="${CSS.escape(id)}"] ${selector}`)?.focus());
    const closed = () => focus('[part~="feedback-down"]');
    const feedback = this.feedback;
    return html`<div data-answer=${id}>${renderFeedback({
      strings: this.strings,
      state: feedback.state(id, initial),
      rate: (rating) => {
        feedback.rate(id, rating);
        if (rating === -1) focus('input');
      },
      comment: (text) => (feedback.comment(id, text), closed()),
      close: () => (feedback.closeComment(id), closed()),
      retry: () => feedback.retry(id),
    })}</div>`;
  }

  private renderStatus(s: KbChatStrings): TemplateResult | typeof nothing {
    const { status, progress } = this.embedder;
    const retry = html`<button type="button" class="pill-button" part="retry-button" @click=${() => this.embedder.retry()}>${s.retry}</button>`;
    switch (status) {
      case 'idle':
      case 'ready': {
        // Generative mode: the writing model's first download (answers are quoted until it is ready).
        const percent = this.generativeMode?.loadingPercent;
        return percent === undefined ? nothing : html`<span>${format(s.writerLoading, { percent })}</span>`;
      }
      case 'loading':
        return html`<span>${this.embedder.slow ? s.slowLoading : progress === undefined ? s.loading : format(s.loadingProgress, { percent: progress })}</span>${progress === undefined
            ? nothing
            : html`<progress max="100" value=${progress} aria-label=${s.loading}></progress>`}
          <span class="status__note" part="loading-note">${s.askWhileLoading}</span>`;
      case 'unsupported':
      case 'error': {
        const problem = status === 'unsupported' ? s.unsupported : s.modelError;
        return html`<span class="status--problem">${problem}</span>${status === 'unsupported' ? nothing : retry}
          <span class="status__note" part="keyword-note">${s.keywordMode}</span>`;
      }
    }
  }

  private renderSessions(s: KbChatStrings): TemplateResult {
    const { status, sessions } = this.history;
    const when = (iso: string) => {
      const date = new Date(iso);
      return Number.isNaN(date.getTime()) ? '' : date.toLocaleString(document.documentElement.lang || undefined, { dateStyle: 'medium', timeStyle: 'short' });
    };
    return html`<div class="sessions" part="sessions">
      <h3 class="sessions__title">${s.sessionsHeading}</h3>
      ${status === 'loading' ? html`<p class="muted">${s.loading.replace(/AI/, '')}</p>` : nothing}
      ${status === 'error' ? html`<p class="status--problem" role="alert">${s.historyError}</p>` : nothing}
      ${status === 'ready' && sessions.length === 0 ? html`<p class="muted">${s.noSessions}</p>` : nothing}
      <ul class="sessions__list">
        ${sessions.map(
          (session) => html`<li>
            <button
              type="button"
              class="session"
              part="session"
              aria-current=${session.id === this.chat.sessionId ? 'true' : 'false'}
              @click=${() => void this.openSession(session.id)}
            >
              <span class="session__title">${session.title}</span>
              <time class="session__time" datetime=${session.updated_at}>${when(session.updated_at)}</time>
            </button>
          </li>`,
        )}
      </ul>
    </div>`;
  }

  private renderPanel(): TemplateResult {
    const s = this.strings;
    const host = this.host;
    const heading = host.heading ?? s.heading;
    // The page's `greeting` attribute or `strings.greeting` first, then the one an admin set, then none.
    const greeting = host.greeting ?? host.strings.greeting ?? this.serverGreeting ?? s.greeting;
    const view = this.messageView();
    const floating = !host.inline;
    return html`
      <section
        class="panel"
        part="panel"
        role=${floating ? 'dialog' : 'region'}
        aria-label=${heading}
        aria-modal=${floating ? 'false' : nothing}
      >
        <div class="header" part="header">
          <h2>${heading}</h2>
          <div class="header__actions">
            ${iconButton({
              label: this.view === 'sessions' ? s.backToChat : s.history,
              part: 'history-button',
              icon: this.view === 'sessions' ? ICONS.back : ICONS.history,
              pressed: this.view === 'sessions',
              onClick: () => this.toggleHistory(),
            })}
            ${iconButton({ label: s.newChat, part: 'new-chat-button', icon: ICONS.newChat, onClick: () => this.newChat() })}
            ${floating
              ? iconButton({
                  label: s.closeChat,
                  part: 'close-button',
                  icon: ICONS.close,
                  className: 'close',
                  onClick: () => {
                    host.open = false;
                    host.focusBubble();
                  },
                })
              : nothing}
          </div>
        </div>
        ${this.view === 'sessions'
          ? this.renderSessions(s)
          : html`<div class="messages" part="messages" role="log" aria-live="off" aria-label=${heading} tabindex="0">
              ${greeting && this.chat.turns.length === 0
                ? html`<div class="message message--assistant" part="message greeting">${greeting}</div>`
                : nothing}
              ${this.chat.turns.length === 0 ? renderStarters(host.starters ?? this.serverStarters, s, (q) => this.send(q)) : nothing}
              ${this.chat.turns.map((turn) =>
                html`<div class="turn" data-turn=${turn.id}>${renderTurn(turn, view)}</div>`,
              )}
            </div>`}
        <div class="sr-only" part="announcer" aria-live="polite" aria-atomic="true">${this.announcement}</div>
        <div class="status" part="status" role="status">${this.renderStatus(s)}</div>
        ${this.connectivity.held ? html`<p class="status status--problem" part="offline" role="alert">${s.offline}</p>` : nothing}
        <slot name="captcha"></slot>
        <form class="composer" @submit=${this.onSubmit}>
          <textarea
            part="input"
            rows="1"
            maxlength="2000"
            placeholder=${host.placeholder ?? s.placeholder}
            aria-label=${s.inputLabel}
            aria-keyshortcuts=${host.keyShortcuts ?? nothing}
            @keydown=${this.onInputKeydown}
            @input=${this.onInput}
          ></textarea>
          <button class="send" part="send-button" type="submit">${s.send}</button>
        </form>
      </section>
    `;
  }

  private update(): void {
    for (const controller of this.controllers) controller.hostUpdate?.();
    const visible = this.host.open || this.host.inline;
    render(visible ? this.renderPanel() : nothing, this.container, { host: this });
    const messages = this.root.querySelector('.messages');
    if (messages) messages.scrollTop = messages.scrollHeight;
    for (const controller of this.controllers) controller.hostUpdated?.();
  }
}
