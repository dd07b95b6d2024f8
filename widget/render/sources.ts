/**
 * The sources block under an answer: numbered like the `[n]` markers; then, collapsed,
 * the related sources the answer does not quote, neither numbered nor counted.
 */
import { html, nothing, type TemplateResult } from 'lit/html.js';
import type { Citation, Related } from '../../protocol/chat.ts';
import { format, type KbChatStrings } from '../i18n.ts';
import { safeHref } from '../../markdown/escape.ts';
import { plainExcerpt } from './citations.ts';

/** Sources shown before "Show more sources". */
export const VISIBLE_SOURCES = 3;

export interface SourcesView {
  strings: KbChatStrings;
  showAll: boolean;
  expanded: (citation: Citation) => boolean;
  passage: (citation: Citation) => unknown;
  togglePassage: (citation: Citation) => void;
  toggleAll: () => void;
}

/** "Page 3 · Section Returns" (only what is known). */
export function citationMeta(citation: Pick<Citation, 'page' | 'section'>, s: KbChatStrings): string {
  return [
    citation.page != null ? format(s.page, { page: citation.page }) : '',
    citation.section ? format(s.section, { section: citation.section }) : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/**
 * The link to a source. For a web page it deep-links to the quoted passage with a text fragment
 * (`#:~:text=`), built from the first words of the excerpt; `javascript:`, `data:` … are never linked.
 */
export function sourceHref(citation: Citation): string | null {
  const href = safeHref(citation.url);
  if (!href?.startsWith('http')) return href;
  const words = plainExcerpt(citation.excerpt, 400).replace(/…$/, '').split(' ').filter(Boolean).slice(0, 6);
  if (words.length < 2) return href;
  // In a text directive `-`, `,` and `&` are syntax and must be percent-encoded inside the text.
  const text = encodeURIComponent(words.join(' ')).replace(/-/g, '%2D');
  return `${href}${href.includes('#') ? '' : '#'}:~:text=${text}`;
}

export function renderSources(citations: readonly Citation[], view: SourcesView): TemplateResult | typeof nothing {
  if (citations.length === 0) return nothing;
  const s = view.strings;
  const sorted = [...citations].sort((a, b) => a.n - b.n);
  const shown = view.showAll ? sorted : sorted.slice(0, VISIBLE_SOURCES);
  const hidden = sorted.length - VISIBLE_SOURCES;
  return html`
    <div class="sources" part="sources">
      <div class="sources__title">${s.sources}</div>
      <ol class="sources__list">
        ${shown.map((citation) => {
          const href = sourceHref(citation);
          const meta = citationMeta(citation, s);
          const expanded = view.expanded(citation);
          return html`<li class="source" value=${citation.n} part="source" data-n=${citation.n}>
            ${
              href
                ? html`<a href=${href} target="_blank" rel="noopener noreferrer" part="source-link">${citation.title}</a>`
                : html`<span class="source__title">${citation.title}</span>`
            }
            ${meta ? html`<span class="source__meta">${meta}</span>` : nothing}
            <button
              type="button"
              class="link-button"
              part="source-toggle"
              aria-expanded=${expanded ? 'true' : 'false'}
              @click=${() => view.togglePassage(citation)}
            >
              ${expanded ? s.hidePassage : s.showPassage}
            </button>
            ${expanded ? html`<div class="source__passage" part="source-passage">${view.passage(citation)}</div>` : nothing}
          </li>`;
        })}
      </ol>
      ${
        hidden > 0
          ? html`<button
            type="button"
            class="link-button"
            part="more-sources"
            aria-expanded=${view.showAll ? 'true' : 'false'}
            @click=${view.toggleAll}
          >
            ${view.showAll ? s.showFewerSources : format(s.showMoreSources, { count: hidden })}
          </button>`
          : nothing
      }
    </div>
  `;
}

/** "Related": a closed disclosure with a plain list of links (no numbers, no badges, no passages). */
export function renderRelated(related: readonly Related[], s: KbChatStrings): TemplateResult | typeof nothing {
  if (related.length === 0) return nothing;
  return html`
    <details class="related" part="related">
      <summary class="related__title">${s.related}</summary>
      <ul class="related__list">
        ${related.map((item) => {
          const href = safeHref(item.url);
          const meta = citationMeta(item, s);
          return html`<li class="related__item" part="related-item">
            ${
              href
                ? html`<a href=${href} target="_blank" rel="noopener noreferrer" part="related-link">${item.title}</a>`
                : html`<span>${item.title}</span>`
            }
            ${meta ? html`<span class="source__meta">${meta}</span>` : nothing}
          </li>`;
        })}
      </ul>
    </details>
  `;
}
