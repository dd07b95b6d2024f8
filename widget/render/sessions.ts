/** The history view: the visitor's past conversations, newest first; one is opened by clicking it. */
import { html, nothing, type TemplateResult } from 'lit/html.js';
import type { SessionSummary } from '../../protocol/index.ts';
import type { KbChatStrings } from '../i18n.ts';

export interface SessionsView {
  strings: KbChatStrings;
  status: 'idle' | 'loading' | 'ready' | 'error';
  sessions: readonly SessionSummary[];
  /** The conversation on screen (marked `aria-current`). */
  currentId?: string;
  open: (id: string) => void;
}

/** A session's last change in the page's language (`<html lang>`); nothing for a date it cannot read. */
function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? ''
    : date.toLocaleString(document.documentElement.lang || undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function renderSessions(view: SessionsView): TemplateResult {
  const { strings: s, status, sessions } = view;
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
              aria-current=${session.id === view.currentId ? 'true' : 'false'}
              @click=${() => view.open(session.id)}
            >
              <span class="session__title">${session.title}</span>
              <time class="session__time" datetime=${session.updated_at}>${when(session.updated_at)}</time>
            </button>
          </li>`,
        )}
      </ul>
    </div>`;
}
