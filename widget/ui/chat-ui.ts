/**
 * The chat UI (dist/kb-chat-ui.js), loaded by the `<kb-chat>` loader on intent and rendered with lit-html
 * into the loader's shadow root. It hosts the controllers that do the I/O (chat stream, embedder, history,
 * feedback, passages, clipboard, written answers) and wires them to the templates in render/, which stay
 * declarative. It knows the element only through chat-host.ts.
 */
import { nothing, render } from 'lit/html.js';
import type { ClientConfig } from '../../protocol/api.ts';
import { isSupportUrl } from '../../protocol/support.ts';
import { adoptStyles } from '../adopt-styles.ts';
import type { ApiClient } from '../api/api-client.ts';
import type { ChatElement, ChatUiHandle } from '../chat-host.ts';
import { ChatController, type AnswerTurn } from '../controllers/chat-controller.ts';
import { FeedbackController } from '../controllers/feedback-controller.ts';
import { EmbedderController } from '../controllers/embedder-controller.ts';
import type { GeneratorController } from '../controllers/generator-controller.ts';
import { HistoryController } from '../controllers/history-controller.ts';
import { ConnectivityController } from '../controllers/connectivity-controller.ts';
import { DEFAULT_STRINGS, type KbChatStrings } from '../i18n.ts';
import { plainAnswer } from '../render/citations.ts';
import type { MessageView } from '../render/message.ts';
import { renderPanel } from '../render/panel.ts';
import { renderSessions } from '../render/sessions.ts';
import { renderStatus } from '../render/status.ts';
import { escalate, questionOf, rephrase } from './escalate.ts';
import { chatEvents, emit } from './chat-events.ts';
import styles from './chat-ui.styles.ts';
import { clientFor } from './client.ts';
import { ClipboardController } from './clipboard.ts';
import { ComposerController } from './composer.ts';
import { ControllerHost } from './controller-host.ts';
import { feedbackFor } from './feedback-view.ts';
import { trapFocus } from './focus-trap.ts';
import { PassageController } from './passage-controller.ts';
import { WrittenAnswerController } from './written-answer.ts';

export function mountChatUi(host: ChatElement, root: ShadowRoot): ChatUi {
  return new ChatUi(host, root);
}

export class ChatUi extends ControllerHost implements ChatUiHandle {
  readonly chat: ChatController;
  readonly embedder: EmbedderController;
  readonly history: HistoryController;
  readonly connectivity: ConnectivityController;
  readonly feedback: FeedbackController;
  readonly passages: PassageController;
  readonly clipboard: ClipboardController;
  readonly written: WrittenAnswerController;
  readonly composer: ComposerController;
  view: 'chat' | 'sessions' = 'chat';

  readonly #container: HTMLElement;
  #client?: ApiClient;
  #restored = false;
  /** /api/config: the site owner's greeting, support address and starters (the page's own win), the answer mode. */
  #config?: ClientConfig;
  #announcement = '';
  readonly #root: ShadowRoot;

  constructor(
    readonly host: ChatElement,
    root: ShadowRoot,
  ) {
    super();
    this.#root = root;
    adoptStyles(root, styles);
    this.#container = root.querySelector('.ui')!;
    const api = () => this.#api();
    const strings = () => this.strings;
    const announce = (text: string) => this.#announce(text);
    const answered = (turn: AnswerTurn) => this.written.write(turn);
    this.chat = new ChatController(
      this,
      api,
      chatEvents(host, strings, announce, answered, (id) => this.history.remember(id)),
    );
    this.embedder = new EmbedderController(this, {
      api,
      workerUrl: () => host.embedderUrl,
      timeoutMs: () => host.embedderTimeout,
      modelsUrl: () => host.modelBaseUrl,
    });
    this.history = new HistoryController(this, api);
    this.connectivity = new ConnectivityController(this);
    this.feedback = new FeedbackController(this, api, (detail) => emit(host, 'kb-feedback', detail));
    this.passages = new PassageController(this, api, strings);
    this.clipboard = new ClipboardController(this, root, strings, announce);
    const writer = {
      workerUrl: () => host.generatorUrl,
      timeoutMs: () => host.generatorTimeout,
      modelsUrl: () => host.modelBaseUrl,
    };
    const generative = {
      api,
      patch: this.chat.patch.bind(this.chat),
      emit: (type: string, detail: unknown) => emit(host, type, detail),
      ...writer,
    };
    this.written = new WrittenAnswerController(this, generative, strings);
    this.composer = new ComposerController(this, root, api, () => this.send());
    this.#container.addEventListener('keydown', (event) => this.#onPanelKeydown(event));
    this.#container.addEventListener('click', (event) =>
      this.passages.onCitationClick(event, (id) => this.chat.turns.some((t) => t.id === id)),
    );
    this.#container.addEventListener('click', (event) => void this.clipboard.onCopyCode(event));
    this.connected();
  }

  /** Generative mode's writing model (undefined in extractive mode and until its chunk has loaded). */
  get generator(): GeneratorController | undefined {
    return this.written.generator;
  }

  get strings(): KbChatStrings {
    return { ...DEFAULT_STRINGS, ...this.host.strings };
  }

  /** Start downloading the model and the wasm ahead of the panel (the `preload` attribute decides when). */
  preload(): void {
    this.embedder.start();
  }

  /** The panel was opened (or the widget is inline): load the model, restore the session, focus the input. */
  opened(): void {
    this.embedder.start();
    // Generative mode only: the writing model is large, so it loads when the panel opens, never on intent.
    this.#api()
      .config()
      .then((config) => {
        this.#config = config;
        this.requestUpdate();
        this.written.start(config);
      })
      .catch(() => {}); // no config: the embedder reports the problem; answers stay quoted
    if (!this.#restored) {
      this.#restored = true;
      const current = this.history.current;
      if (current && this.chat.turns.length === 0) void this.#openSession(current, { unlessAsked: true });
    }
    this.requestUpdate();
    if (!this.host.inline) void this.updateComplete.then(() => this.composer.textarea?.focus());
  }

  #api(): ApiClient {
    return (this.#client = clientFor(this.host, this.#client));
  }

  #announce(text: string): void {
    // Cleared first so the same text twice is still announced twice.
    this.#announcement = '';
    this.update();
    this.#announcement = text;
    this.requestUpdate();
  }

  send(text?: string, { context = true } = {}): void {
    const textarea = this.composer.textarea;
    const question = text ?? textarea?.value ?? '';
    if (!question.trim()) return;
    if (this.connectivity.holdBack()) return; // offline: the question stays in the box
    if (textarea) textarea.value = '';
    this.view = 'chat';
    // Never blocked by the model: until it is ready the question goes out without an embedding and the
    // server answers in keyword mode at once. Waiting for a model that is "almost ready" was measured and
    // not worth it (docs/performance.md, "First visit"): on a warm visit it is ready before a visitor has typed a word.
    const { status } = this.embedder;
    void this.chat.ask(question, status === 'ready' ? (q) => this.embedder.embed(q) : undefined, {
      modelLoading: status === 'loading',
      context,
    });
  }

  #onPanelKeydown(event: KeyboardEvent): void {
    if (this.host.inline) return;
    if (event.key === 'Escape') {
      event.preventDefault();
      this.#close();
    } else if (event.key === 'Tab') trapFocus(event, this.#root);
  }

  readonly #close = (): void => {
    this.host.open = false;
    this.host.focusBubble();
  };

  /** `unlessAsked`: the automatic restore on opening; a question asked meanwhile wins over it. */
  async #openSession(id: string, { unlessAsked = false } = {}): Promise<void> {
    const detail = await this.history.open(id);
    if (!detail) return;
    // Restoring replaces the conversation (and cancels an unfinished answer): never do that to a question
    // the visitor sent while the history was on its way.
    if (unlessAsked && this.chat.turns.length > 0) return;
    this.written.abort();
    this.chat.restore(detail);
    this.view = 'chat';
    this.requestUpdate();
  }

  readonly #newChat = (): void => {
    this.written.abort();
    this.chat.newChat();
    this.view = 'chat';
    this.requestUpdate();
    void this.updateComplete.then(() => this.composer.textarea?.focus());
  };

  readonly #toggleHistory = (): void => {
    this.view = this.view === 'sessions' ? 'chat' : 'sessions';
    if (this.view === 'sessions') void this.history.refresh();
    this.requestUpdate();
  };

  #messageView(s: KbChatStrings): MessageView {
    const { chat, written } = this;
    // The support address in effect: the page's `support-url`, else the owner's; only https: or mailto:.
    const support = () => [this.host.supportUrl, this.#config?.support_url].find(isSupportUrl);
    return {
      strings: s,
      answerBody: (turn) => written.body(turn),
      sources: (turn) => this.passages.view(turn.id),
      copied: (turn) => this.clipboard.copied(turn.id),
      copy: (turn) => void this.clipboard.copyAnswer(turn.id, plainAnswer(written.shown(turn))),
      retry: (turn) => void chat.retry(turn.id),
      showView: (turn, which) => chat.patch(turn.id, { view: which }),
      suggest: (text) => this.send(text),
      rephrase: (turn) => rephrase(this.composer.textarea, questionOf(chat.turns, turn)),
      escalate: (turn) => escalate(this.host, chat.turns, turn, support(), chat.sessionId),
      canEscalate: support() !== undefined || this.host.escalateListeners > 0,
      askAsNew: (turn) => {
        const at = chat.turns.indexOf(turn);
        const question = at > 0 ? chat.turns[at - 1] : undefined;
        if (question?.kind === 'user') this.send(question.text, { context: false });
      },
      feedback: (turn) => feedbackFor(turn, this.feedback, this, this.#root, this.strings),
    };
  }

  protected render(): void {
    const s = this.strings;
    const { host, chat, embedder, history } = this;
    const heading = host.heading ?? s.heading;
    const panel = () =>
      renderPanel({
        strings: s,
        heading,
        // The page's `greeting` attribute or `strings.greeting` first, then the one an admin set, then none.
        greeting: host.greeting ?? host.strings.greeting ?? this.#config?.greeting ?? s.greeting,
        floating: !host.inline,
        showSessions: this.view === 'sessions',
        turns: chat.turns,
        starters: host.starters ?? this.#config?.starters ?? [],
        message: this.#messageView(s),
        sessions: () =>
          renderSessions({
            strings: s,
            status: history.status,
            sessions: history.sessions,
            currentId: chat.sessionId,
            open: (id) => void this.#openSession(id),
          }),
        status: renderStatus({
          strings: s,
          status: embedder.status,
          progress: embedder.progress,
          slow: embedder.slow,
          writerPercent: this.written.loadingPercent,
          retry: () => embedder.retry(),
        }),
        announcement: this.#announcement,
        offline: this.connectivity.held,
        placeholder: host.placeholder ?? s.placeholder,
        keyShortcuts: host.keyShortcuts,
        toggleHistory: this.#toggleHistory,
        newChat: this.#newChat,
        close: this.#close,
        send: (q) => this.send(q),
        onSubmit: this.composer.onSubmit,
        onInput: this.composer.onInput,
        onInputKeydown: this.composer.onKeydown,
      });
    render(host.open || host.inline ? panel() : nothing, this.#container, { host: this });
    const messages = this.#root.querySelector('.messages');
    if (messages) messages.scrollTop = messages.scrollHeight;
  }
}
