/**
 * An answer's Markdown as the visitor saw it: rendered and sanitised by the renderer the widget uses
 * (markdown/render.ts: its own escaping parser, then DOMPurify with a strict allow-list), so code, lists and
 * links show as such instead of backticks and asterisks. `unsafeHTML` only ever receives that output.
 */
import { html } from 'lit';
import { unsafeHTML } from 'lit/directives/unsafe-html.js';
import { renderMarkdown } from '../../markdown/render.ts';

export function markdown(text: string) {
  return html`<div class="md">${unsafeHTML(renderMarkdown(text))}</div>`;
}
