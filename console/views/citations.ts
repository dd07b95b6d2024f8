/** Citations as the console shows them: number, title, section and a vetted link (text otherwise). */
import { html, nothing } from 'lit';
import type { AdminCitation } from '../../protocol/index.ts';
import { formatNumber, safeHref } from '../api.ts';

/**
 * "Title › section", the section without the title it often starts with: a section is stored as its heading
 * path, which begins with the page's own H1 ("Configuration › Evidence threshold" on the page
 * "Configuration"), and "Configuration › Configuration › Evidence threshold" says the title twice.
 */
export function citationLabel(title: string, section: string | null | undefined): string {
  if (!section || section === title) return title;
  const own = section.startsWith(`${title} › `) ? section.slice(title.length + 3) : section;
  return `${title} › ${own}`;
}

/**
 * A stored citation may lack a field or hold one of the wrong type (rows written before answers were the
 * server's alone): each is shown as "—" then, and the rest of the page is unaffected.
 */
export function citationList(citations: AdminCitation[]) {
  if (citations.length === 0) return nothing;
  return html`<ol class="citations">
    ${citations.map((c) => {
      const href = safeHref(typeof c.url === 'string' ? c.url : null);
      const title = typeof c.title === 'string' ? c.title : '—';
      const label = `${citationLabel(title, typeof c.section === 'string' ? c.section : null)}${typeof c.page === 'number' ? ` (p. ${c.page})` : ''}`;
      return html`<li value=${typeof c.n === 'number' ? c.n : nothing}>${href ? html`<a href=${href} rel="noopener noreferrer" target="_blank">${label}</a>` : label}
        <span class="muted">evidence ${formatNumber(c.similarity)}</span></li>`;
    })}
  </ol>`;
}
