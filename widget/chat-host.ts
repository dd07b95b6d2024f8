/**
 * The narrow contract between the `<kb-chat>` element (the loader, kb-chat.component.ts) and the chat UI it
 * loads on intent (ui/chat-ui.ts). Both import this file and neither imports the other, so the loader never
 * reaches the chat UI's code, not even through a type, and the chat UI can be read without the element.
 */
import type { KbChatStrings } from './i18n.ts';

/** What the chat UI reads from and asks of the element: its attributes as properties, and the bubble. */
export interface ChatElement extends HTMLElement {
  /** The host page's access token, or a function giving a fresh one (api/api-client.ts, TokenSource). */
  token: string | null;
  getToken: (() => string | null | undefined | Promise<string | null | undefined>) | null;
  strings: Partial<KbChatStrings>;
  open: boolean;
  readonly inline: boolean;
  readonly apiUrl: string;
  readonly heading: string | null;
  readonly greeting: string | null;
  readonly placeholder: string | null;
  readonly modelBaseUrl: string | null;
  readonly supportUrl: string | null;
  readonly starters: string[] | null;
  /** The `shortcut` in `aria-keyshortcuts` form, for the question box; null when off. */
  readonly keyShortcuts: string | null;
  /** How many `kb-escalate` listeners the element has: with one, "Contact support" shows without an address. */
  readonly escalateListeners: number;
  readonly embedderUrl: string | URL;
  readonly embedderTimeout: number;
  readonly generatorUrl: string | URL;
  readonly generatorTimeout: number;
  /** Move focus to the bubble (after Esc or Close). */
  focusBubble(): void;
}

/** What the element asks of the loaded chat UI. */
export interface ChatUiHandle {
  /** Resolves once pending rendering is done. */
  readonly updateComplete: Promise<boolean>;
  connected(): void;
  disconnected(): void;
  requestUpdate(): void;
  /** Start downloading the model ahead of the panel (the `preload` attribute decides when). */
  preload(): void;
  /** The panel was opened (or the widget is inline). */
  opened(): void;
}

/** The chat UI module (dist/kb-chat-ui.<hash>.js) as the element imports it. */
export interface ChatUiModule {
  mountChatUi(host: ChatElement, root: ShadowRoot): ChatUiHandle;
}
