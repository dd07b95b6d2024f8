/**
 * Whether the browser is offline, so a question is never thrown at a network that is not there: while
 * offline, Send keeps the question in the box and says why (the `offline` string), and the notice goes
 * away by itself when the browser is back online. `navigator.onLine === false` is reliable (no network at
 * all); `true` only means "maybe", so a request can still fail — that is the answer's own Retry.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export class ConnectivityController implements ReactiveController {
  /** A question was held back because the browser is offline; cleared when it comes back online. */
  held = false;
  private readonly onOnline = () => {
    this.held = false;
    this.host.requestUpdate();
  };

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  hostConnected(): void {
    globalThis.addEventListener?.('online', this.onOnline);
  }

  hostDisconnected(): void {
    globalThis.removeEventListener?.('online', this.onOnline);
  }

  get offline(): boolean {
    return globalThis.navigator?.onLine === false;
  }

  /** True (and the notice is shown) when a question must not be sent now. */
  holdBack(): boolean {
    this.held = this.offline;
    this.host.requestUpdate();
    return this.held;
  }
}
