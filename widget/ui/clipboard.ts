/** Copy an answer (its Copy button says "Copied" for 2 s) and a code block's code (its button too, announced). */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { KbChatStrings } from '../i18n.ts';
import { COPY_CODE } from '../render/blocks.ts';

/** Put text on the clipboard; false when the browser refused both ways. */
export async function copyText(root: ShadowRoot, text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Clipboard API blocked (permissions, insecure context): the old way.
    const area = document.createElement('textarea');
    area.value = text;
    root.append(area);
    area.select();
    const copied = document.execCommand('copy');
    area.remove();
    return copied;
  }
}

export class ClipboardController implements ReactiveController {
  /** The answer whose Copy button says "Copied". */
  #copiedId?: string;

  readonly #host: ReactiveControllerHost;
  readonly #root: ShadowRoot;
  readonly #strings: () => KbChatStrings;
  readonly #announce: (text: string) => void;

  constructor(
    host: ReactiveControllerHost,
    root: ShadowRoot,
    strings: () => KbChatStrings,
    announce: (text: string) => void,
  ) {
    this.#host = host;
    this.#root = root;
    this.#strings = strings;
    this.#announce = announce;
    host.addController(this);
  }

  hostConnected(): void {}

  copied(id: string): boolean {
    return this.#copiedId === id;
  }

  async copyAnswer(id: string, text: string): Promise<void> {
    await copyText(this.#root, text);
    this.#copiedId = id;
    this.#host.requestUpdate();
    setTimeout(() => {
      if (this.#copiedId === id) this.#copiedId = undefined;
      this.#host.requestUpdate();
    }, 2000);
  }

  /** A code block's Copy button (render/blocks.ts): the code exactly as written, then "Copied" (announced). */
  async onCopyCode(event: Event): Promise<void> {
    const button = (event.target as Element).closest?.(`.${COPY_CODE}`);
    const code = button?.parentElement?.querySelector('pre')?.textContent;
    if (!button || code == null) return;
    const s = this.#strings();
    if (!(await copyText(this.#root, code))) return;
    // The button belongs to the cached answer body, so its label survives re-renders until it is reset.
    button.textContent = s.codeCopied;
    this.#announce(s.codeCopied);
    setTimeout(() => (button.textContent = s.copyCode), 2000);
  }
}
