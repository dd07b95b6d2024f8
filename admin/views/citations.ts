/** Citations as the console shows them: number, title, section and a vetted link (text otherwise). */
import { html, nothing } from 'lit';
import type { Citation } from '../../protocol/index.ts';
import { safeHref } from '../api.ts';

export function citationList(citations: Citation[]) {
  if (citations.length === 0) return nothing;
  return html`<ol class="citations">
    ${citations.map((c) => {
      const href = safeHref(c.url);
      const label = `${c.title}${c.section ? ` › ${c.section}` : ''}${c.page ? ` (p. ${c.page})` : ''}`;
      return html`<li value=${c.n}>${href ? html`<a href=${href} rel="noopener noreferrer" target="_blank">${label}</a>` : label}
        <span class="muted">evidence ${c.similarity.toFixed(3)}</span></li>`;
    })}
  </ol>`;
}
