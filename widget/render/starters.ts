/** The empty panel's starter questions: chips of plain text, sent when clicked. */
import { html, nothing, type TemplateResult } from 'lit/html.js';
import { STARTER_MAX_CHARS, STARTERS_MAX } from '../../protocol/support.ts';
import type { KbChatStrings } from '../i18n.ts';

/** `starters` as the widget shows them: trimmed, within the settings' bounds (at most 4 of ≤ 120 characters). */
export function renderStarters(
  starters: readonly string[],
  s: KbChatStrings,
  send: (question: string) => void,
): TemplateResult | typeof nothing {
  const shown = starters
    .map((q) => q.trim())
    .filter((q) => q && q.length <= STARTER_MAX_CHARS)
    .slice(0, STARTERS_MAX);
  return shown.length
    ? html`<ul class="suggestions" part="starters" aria-label=${s.starters}>
        ${shown.map((q) => html`<li><button type="button" class="suggestion" part="starter" @click=${() => send(q)}>${q}</button></li>`)}
      </ul>`
    : nothing;
}
