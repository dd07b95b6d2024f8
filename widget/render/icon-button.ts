/**
 * The header's icon buttons (History, New chat, Close). Icons instead of words, so the title keeps the
 * header's width (at the default 380 px "Ask the kb-chat docs" was cut to "Ask the kb-cha…" by two text
 * buttons). Each has its name as `aria-label` and the same words as a tooltip shown on hover and on
 * keyboard focus (CSS, `data-tooltip`): `title` alone shows nothing on focus or touch.
 */
import { html, nothing, svg, type SVGTemplateResult, type TemplateResult } from 'lit/html.js';

const icon = (paths: SVGTemplateResult) =>
  svg`<svg viewBox="0 0 24 24" width="18" height="18" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">${paths}</svg>`;

export const ICONS = {
  /** A clock with a counter-clockwise arrow: past conversations. */
  history: icon(svg`<path d="M3 12a9 9 0 1 0 3-6.7L3 8"/><path d="M3 3v5h5"/><path d="M12 7v5l3 2"/>`),
  back: icon(svg`<path d="M15 18l-6-6 6-6"/>`),
  /** A speech bubble with a plus. */
  newChat: icon(svg`<path d="M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12z"/><path d="M12 9v6M9 12h6"/>`),
  close: icon(svg`<path d="M6 6l12 12M18 6L6 18"/>`),
};

export interface IconButtonOptions {
  label: string;
  part: string;
  icon: SVGTemplateResult;
  onClick: () => void;
  /** A toggle (History): `aria-pressed`. */
  pressed?: boolean;
  className?: string;
}

export function iconButton({
  label,
  part,
  icon: glyph,
  onClick,
  pressed,
  className = '',
}: IconButtonOptions): TemplateResult {
  return html`<button
    type="button"
    class="header__button icon-button ${className}"
    part=${part}
    aria-label=${label}
    data-tooltip=${label}
    aria-pressed=${pressed === undefined ? nothing : String(pressed)}
    @click=${onClick}
  >${glyph}</button>`;
}
