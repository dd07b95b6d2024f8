/**
 * The question box: Enter sends (Shift+Enter is a new line), the first keystroke fetches the access token,
 * and a refused question can be put back to be reworded. Sending itself is the chat UI's (`send`).
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ApiClient } from '../api/api-client.ts';

export class ComposerController implements ReactiveController {
  /** The client whose token the first keystroke already asked for. */
  #tokenWarmed?: ApiClient;

  readonly #root: ShadowRoot;
  readonly #api: () => ApiClient;
  readonly #send: () => void;

  constructor(host: ReactiveControllerHost, root: ShadowRoot, api: () => ApiClient, send: () => void) {
    this.#root = root;
    this.#api = api;
    this.#send = send;
    host.addController(this);
  }

  hostConnected(): void {}

  get textarea(): HTMLTextAreaElement | null {
    return this.#root.querySelector('textarea');
  }

  readonly onSubmit = (event: Event): void => {
    event.preventDefault();
    this.#send();
  };

  /**
   * The visitor started typing: get the access token now, so Send does not wait for a sign-in. Not on open:
   * a sign-in creates a user (and spends the project's sign-up quota) for visitors who never ask.
   */
  readonly onInput = (): void => {
    const api = this.#api();
    if (this.#tokenWarmed === api) return; // once per client, not per keystroke
    this.#tokenWarmed = api;
    // A failure is not reported here: Send asks again and shows it where the visitor looks.
    api.token().catch(() => (this.#tokenWarmed = undefined));
  };

  readonly onKeydown = (event: KeyboardEvent): void => {
    // Enter sends, Shift+Enter starts a new line; IME composition must not send half a word.
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this.#send();
    }
  };
}
