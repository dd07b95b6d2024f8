/**
 * The visitor's past conversations: the sessions list, opening one, and remembering the
 * current session across page reloads in the same tab (sessionStorage, per API origin, like the token).
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { SessionDetail, SessionSummary } from '../../protocol/index.ts';
import { storage, type ApiClient } from '../api/api-client.ts';

export class HistoryController implements ReactiveController {
  sessions: SessionSummary[] = [];
  status: 'idle' | 'loading' | 'ready' | 'error' = 'idle';
  private run = 0;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly api: () => ApiClient,
  ) {
    host.addController(this);
  }

  hostConnected(): void {}

  private key(): string {
    return `kb-chat:session:${this.api().origin}`;
  }

  /** The session to restore after a reload, if any. */
  get current(): string | null {
    return storage.get(this.key());
  }

  remember(sessionId: string | undefined): void {
    storage.set(this.key(), sessionId ?? null);
  }

  /** Load the list (newest first, as the server orders it). */
  async refresh(): Promise<void> {
    const run = ++this.run;
    this.status = 'loading';
    this.host.requestUpdate();
    try {
      const sessions = await this.api().sessions();
      if (run !== this.run) return;
      this.sessions = sessions;
      this.status = 'ready';
    } catch (error) {
      if (run !== this.run) return;
      console.warn('[kb-chat] history failed:', error);
      this.status = 'error';
    }
    this.host.requestUpdate();
  }

  /** One session with its messages; undefined (and forgotten) when it no longer exists. */
  async open(id: string): Promise<SessionDetail | undefined> {
    try {
      return await this.api().session(id);
    } catch (error) {
      console.warn('[kb-chat] session failed:', error);
      if (this.current === id) this.remember(undefined);
      return undefined;
    }
  }
}
