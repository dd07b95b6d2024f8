/** Citations as the console shows them: number, title, section and a vetted link (text otherwise). */
import { html, nothing } from 'lit';
import type { AdminCitation } from '../../protocol/index.ts';
import { formatNumber, safeHref } from '../api.ts';

/**
 * A stored citation may lack a field or hold one of the wrong type (rows written before answers were the
 * server's alone): each is shown as "—" then, and the rest of the page is unaffected.
 */
export function citationList(citations: AdminCitation[]) {
  if (citations.length === 0) return nothing;
  return html`<ol class="citations">
    ${citations.map((c) => {
      const href = safeHref(typeof c.url === 'string' ? c.url : null);
      const label = `${typeof c.title === 'string' ? c.title : '—'}${typeof c.section === 'string' && c.section ? ` › ${c.section}` : ''}${typeof c.page === 'number' ? ` (p. ${c.page})` : ''}`;
      return html`<li value=${typeof c.n === 'number' ? c.n : nothing}>${href ? html`<a href=${href} rel="noopener noreferrer" target="_blank">${label}</a>` : label}
        <span class="muted">evidence ${formatNumber(c.similarity)}</span></li>`;
    })}
  </ol>`;
}
