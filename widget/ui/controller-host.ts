/**
 * What Lit's ReactiveElement does for its controllers, for a host that is not an element: the chat UI renders
 * with lit-html into the loader's shadow root, so it cannot be a LitElement (that would be a second element,
 * and Lit's element code in every visitor's chunk). Updates are batched into one per microtask; controllers
 * hear connect, disconnect and every update; `updateComplete` resolves once the render is done.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export abstract class ControllerHost implements ReactiveControllerHost {
  updateComplete: Promise<boolean> = Promise.resolve(true);
  readonly #controllers = new Set<ReactiveController>();
  #pending = false;

  addController(controller: ReactiveController): void {
    this.#controllers.add(controller);
  }
  removeController(controller: ReactiveController): void {
    this.#controllers.delete(controller);
  }
  requestUpdate(): void {
    if (this.#pending) return;
    this.#pending = true;
    this.updateComplete = Promise.resolve().then(() => {
      this.#pending = false;
      this.update();
      return true;
    });
  }

  connected(): void {
    for (const controller of this.#controllers) controller.hostConnected?.();
    this.requestUpdate();
  }
  disconnected(): void {
    for (const controller of this.#controllers) controller.hostDisconnected?.();
  }

  /** Render now, between the controllers' `hostUpdate` and `hostUpdated`. */
  protected update(): void {
    for (const controller of this.#controllers) controller.hostUpdate?.();
    this.render();
    for (const controller of this.#controllers) controller.hostUpdated?.();
  }

  protected abstract render(): void;
}
