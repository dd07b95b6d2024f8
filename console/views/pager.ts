/** "1–50 of 120" with Previous / Next: the one pagination control of every list. */
import { html, nothing } from 'lit';

export function pager(page: { total: number; limit: number; offset: number } | null, go: (offset: number) => void) {
  if (!page || page.total === 0) return nothing;
  const last = Math.min(page.offset + page.limit, page.total);
  return html`<div class="pager">
    <button class="secondary" ?disabled=${page.offset === 0} @click=${() => go(Math.max(0, page.offset - page.limit))}>Previous</button>
    <span class="muted">${page.offset + 1}–${last} of ${page.total}</span>
    <button class="secondary" ?disabled=${last >= page.total} @click=${() => go(page.offset + page.limit)}>Next</button>
  </div>`;
}
