/** The numbered list of sources under an answer. Numbers match the `[n]` markers in the answer text. */
import { html, nothing, type TemplateResult } from 'lit';
import type { Citation } from '../../protocol/index.ts';
import { safeHref } from './escape.ts';

/** "Refund policy — Page 3, Section Returns" (page and section only when known). */
export function citationLabel(citation: Citation): string {
  const where = [
    citation.page != null ? `Page ${citation.page}` : '',
    citation.section ? `Section ${citation.section}` : '',
  ].filter(Boolean);
  return where.length ? `${citation.title} — ${where.join(', ')}` : citation.title;
}

export function renderSources(citations: readonly Citation[]): TemplateResult | typeof nothing {
  if (citations.length === 0) return nothing;
  const sorted = [...citations].sort((a, b) => a.n - b.n);
  return html`
    <div class="sources" part="sources">
      <div class="sources__title">Sources</div>
      <ol class="sources__list">
        ${sorted.map((citation) => {
          // Lit escapes text, but does not vet URLs: a `javascript:` href would still run on click.
          const href = safeHref(citation.url);
          const label = citationLabel(citation);
          return html`<li class="sources__item" value=${citation.n} part="source">
            ${href
              ? html`<a href=${href} target="_blank" rel="noopener noreferrer" part="source-link">${label}</a>`
              : html`<span>${label}</span>`}
          </li>`;
        })}
      </ol>
    </div>
  `;
}
