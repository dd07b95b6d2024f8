/**
 * The chat panel: header (history, new chat, close), the conversation or the history view, the screen-reader
 * announcer, the status line and the question box. What it shows and what its controls do come from the
 * chat UI (ui/chat-ui.ts) in a `PanelView`.
 */
import { html, nothing, type TemplateResult } from 'lit/html.js';
import type { Turn } from '../controllers/chat-controller.ts';
import type { KbChatStrings } from '../i18n.ts';
import { ICONS, iconButton } from './icon-button.ts';
import { renderTurn, type MessageView } from './message.ts';
import { renderStarters } from './starters.ts';

export interface PanelView {
  strings: KbChatStrings;
  heading: string;
  /** Shown in an empty chat; none when empty. */
  greeting: string | null | undefined;
  /** A floating panel is a dialog with a Close button; an inline one a region. */
  floating: boolean;
  showSessions: boolean;
  turns: readonly Turn[];
  starters: readonly string[];
  message: MessageView;
  sessions: () => TemplateResult;
  status: TemplateResult | typeof nothing;
  /** What the polite live region says (answers, "Copied"). */
  announcement: string;
  offline: boolean;
  placeholder: string;
  keyShortcuts: string | null;
  toggleHistory: () => void;
  newChat: () => void;
  close: () => void;
  send: (question: string) => void;
  onSubmit: (event: Event) => void;
  onInput: () => void;
  onInputKeydown: (event: KeyboardEvent) => void;
}

export function renderPanel(view: PanelView): TemplateResult {
  const { strings: s, heading, greeting, floating, showSessions, turns } = view;
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
              label: showSessions ? s.backToChat : s.history,
              part: 'history-button',
              icon: showSessions ? ICONS.back : ICONS.history,
              pressed: showSessions,
              onClick: view.toggleHistory,
            })}
            ${iconButton({ label: s.newChat, part: 'new-chat-button', icon: ICONS.newChat, onClick: view.newChat })}
            ${
              floating
                ? iconButton({
                    label: s.closeChat,
                    part: 'close-button',
                    icon: ICONS.close,
                    className: 'close',
                    onClick: view.close,
                  })
                : nothing
            }
          </div>
        </div>
        ${
          showSessions
            ? view.sessions()
            : html`<div class="messages" part="messages" role="log" aria-live="off" aria-label=${heading} tabindex="0">
              ${
                greeting && turns.length === 0
                  ? html`<div class="message message--assistant" part="message greeting">${greeting}</div>`
                  : nothing
              }
              ${turns.length === 0 ? renderStarters(view.starters, s, view.send) : nothing}
              ${turns.map((turn) => html`<div class="turn" data-turn=${turn.id}>${renderTurn(turn, view.message)}</div>`)}
            </div>`
        }
        <div class="sr-only" part="announcer" aria-live="polite" aria-atomic="true">${view.announcement}</div>
        <div class="status" part="status" role="status">${view.status}</div>
        ${view.offline ? html`<p class="status status--problem" part="offline" role="alert">${s.offline}</p>` : nothing}
        <slot name="captcha"></slot>
        <form class="composer" @submit=${view.onSubmit}>
          <textarea
            part="input"
            rows="1"
            maxlength="2000"
            placeholder=${view.placeholder}
            aria-label=${s.inputLabel}
            aria-keyshortcuts=${view.keyShortcuts ?? nothing}
            @keydown=${view.onInputKeydown}
            @input=${view.onInput}
          ></textarea>
          <button class="send" part="send-button" type="submit">${s.send}</button>
        </form>
      </section>
    `;
}
