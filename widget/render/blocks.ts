/**
 * Controls around the blocks of a rendered answer: a Copy button for each code block, a keyboard-
 * scrollable container for each table and code block, and a tight line for a paragraph that holds nothing
 * but citation badges (`[n]` on its own line after a block).
 *
 * Like the badges, this is DOM work on the already sanitized fragment: the buttons, roles and tabindexes are
 * ours, never the content's (DOMPurify's allow-list has no `button`, `role` or `tabindex`). Copying itself is
 * I/O and lives in the chat UI, which handles clicks on `.code-block__copy` for every answer at once.
 */
import type { KbChatStrings } from '../i18n.ts';

/** The copy button's class, for the chat UI's click handler. */
export const COPY_CODE = 'code-block__copy';

export function enhanceBlocks(root: HTMLElement, s: KbChatStrings): void {
  for (const pre of root.querySelectorAll('pre')) {
    const block = document.createElement('div');
    block.className = 'code-block';
    block.setAttribute('part', 'code-block');
    const button = document.createElement('button');
    button.type = 'button';
    button.className = COPY_CODE;
    button.setAttribute('part', 'code-copy-button');
    button.textContent = s.copyCode;
    pre.replaceWith(block);
    // Focusable so a keyboard can scroll a long line (axe: scrollable-region-focusable).
    pre.tabIndex = 0;
    block.append(button, pre);
  }
  for (const table of root.querySelectorAll('table')) {
    const scroll = document.createElement('div');
    scroll.className = 'table-scroll';
    scroll.setAttribute('part', 'table-scroll');
    // A named group rather than a region: a region is a landmark, and every table of the conversation would
    // add one more landmark with the same name (axe: landmark-unique).
    scroll.setAttribute('role', 'group');
    scroll.setAttribute('aria-label', s.table);
    scroll.tabIndex = 0;
    table.replaceWith(scroll);
    scroll.append(table);
  }
  for (const p of root.querySelectorAll('p')) {
    if (
      p.querySelector('.cite') &&
      ![...p.childNodes].some((n) => (n as Element).className !== 'cite' && n.textContent!.trim())
    ) {
      p.className = 'cite-line';
    }
  }
}
