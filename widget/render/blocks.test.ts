/**
 * Answers with blocks, in Chromium against the fake API ("blocks"): code blocks (monospace, never wrapped,
 * scrolling inside the bubble, a Copy button), ordered/unordered lists, tables in a scroll container, `[n]`
 * badges in list items and table cells but not in code, a lone `[n]` line, and the collapsed "Related" list.
 */
import { expect, waitUntil } from '@open-wc/testing';
import { setViewport } from '@web/test-runner-commands';
import type KbChat from '../kb-chat.component.ts';
import { ask, createWidget, lastAssistant, openKeyword, resetFake, shadow, waitForAnswerEnd } from '../test/helpers.ts';
import { plainAnswer } from './citations.ts';

/** The fake's code block, exactly as the Markdown has it (a tab, `<`, `&amp;`, and `[1]`/`[2]` that are code). */
const CODE =
  '<script type="module" src="https://docs.example.com/kb-chat.js"></script> <kb-chat heading="Ask our docs" greeting="Hello &amp; welcome"></kb-chat>\n' +
  'if (a < b && items[1]) {\n\treturn "[2]";\n}';

async function blocksAnswer(): Promise<{ el: KbChat; answer: HTMLElement }> {
  const el = await createWidget();
  await openKeyword(el);
  await ask(el, 'Show me blocks');
  await waitForAnswerEnd(el);
  const answer = lastAssistant(el)!;
  expect(answer.dataset.status).to.equal('done');
  return { el, answer };
}

/** The panel keeps its width and the message list never scrolls sideways: only the block itself scrolls. */
function expectPanelNotWidened(el: KbChat, width: number): void {
  const root = shadow(el);
  expect(root.querySelector('.panel')!.getBoundingClientRect().width).to.equal(width);
  const messages = root.querySelector<HTMLElement>('.messages')!;
  expect(messages.scrollWidth).to.be.at.most(messages.clientWidth);
  const bubble = lastAssistant(el)!;
  expect(bubble.getBoundingClientRect().right).to.be.at.most(messages.getBoundingClientRect().right);
}

describe('answers with code, lists and tables', () => {
  beforeEach(resetFake);
  afterEach(() => setViewport({ width: 800, height: 600 }));

  it('renders a code block monospace, unwrapped, scrolling inside the bubble; [n] in code stays text', async () => {
    await setViewport({ width: 1280, height: 800 });
    const { el, answer } = await blocksAnswer();
    const pres = answer.querySelectorAll<HTMLElement>('.markdown pre');
    expect(pres).to.have.length(2); // the answer's block and the one inside the ordered list
    const pre = pres[0]!;
    expect(pre.parentElement!.className).to.equal('code-block');
    expect(pre.textContent).to.equal(CODE);
    expect(pre.querySelector('.cite, button')).to.equal(null);
    const style = getComputedStyle(pre);
    expect(style.whiteSpace).to.equal('pre');
    expect(style.overflowX).to.equal('auto');
    expect(style.fontFamily).to.match(/monospace/);
    // The long first line scrolls inside the block: one line box high per source line, wider than the block.
    expect(pre.scrollWidth).to.be.greaterThan(pre.clientWidth);
    expect(pre.tabIndex).to.equal(0); // a keyboard can scroll it
    expectPanelNotWidened(el, 380);
    // The marker in the lead-in sentence is a badge.
    expect(answer.querySelector('.markdown > p')!.querySelector('.cite__badge')!.textContent).to.equal('1');
  });

  it('Copy puts the exact code on the clipboard, says "Copied" and announces it', async () => {
    const { el, answer } = await blocksAnswer();
    const root = shadow(el);
    const button = answer.querySelector<HTMLButtonElement>('.code-block > button')!;
    expect(button.getAttribute('part')).to.equal('code-copy-button');
    expect(button.textContent).to.equal('Copy code');
    // The clipboard is stubbed at the browser boundary: headless Chromium has no clipboard permission to grant.
    const original = navigator.clipboard.writeText;
    let copied: string | undefined;
    navigator.clipboard.writeText = async (text: string) => void (copied = text);
    try {
      button.focus();
      expect(root.activeElement).to.equal(button);
      button.click();
      await waitUntil(() => copied !== undefined, 'nothing copied');
    } finally {
      navigator.clipboard.writeText = original;
    }
    expect(copied).to.equal(CODE);
    await el.updateComplete;
    expect(button.textContent).to.equal('Copied');
    expect(root.querySelector('[part="announcer"]')!.textContent!.trim()).to.equal('Copied');
    // The code inside the list item copies its own text.
    const second = answer.querySelectorAll<HTMLButtonElement>('.code-block > button')[1]!;
    navigator.clipboard.writeText = async (text: string) => void (copied = text);
    try {
      second.click();
      await waitUntil(() => copied === 'npm run start -- --port 8787', `copied ${copied}`);
    } finally {
      navigator.clipboard.writeText = original;
    }
  });

  it('Copy falls back to a selected textarea when the Clipboard API is refused', async () => {
    const { el, answer } = await blocksAnswer();
    const root = shadow(el);
    const original = navigator.clipboard.writeText;
    const execCommand = document.execCommand;
    let copied: string | undefined;
    navigator.clipboard.writeText = () => Promise.reject(new DOMException('denied', 'NotAllowedError'));
    document.execCommand = (command: string) => {
      const area = [...root.querySelectorAll('textarea')].pop()!;
      if (command === 'copy') copied = area.value.slice(area.selectionStart, area.selectionEnd);
      return true;
    };
    try {
      answer.querySelector<HTMLButtonElement>('.code-block > button')!.click();
      await waitUntil(() => copied !== undefined, 'nothing copied');
    } finally {
      navigator.clipboard.writeText = original;
      document.execCommand = execCommand;
    }
    expect(copied).to.equal(CODE);
    expect(root.querySelectorAll('textarea')).to.have.length(1); // the helper textarea is gone again
  });

  it('renders ordered (with start) and unordered lists with badges in their items, code inside an item', async () => {
    const { answer } = await blocksAnswer();
    const ol = answer.querySelector('.markdown ol')!;
    expect(ol.getAttribute('start')).to.equal('3');
    expect(ol.children).to.have.length(2);
    expect(ol.children[1]!.querySelector('.cite__badge')!.textContent).to.equal('1');
    expect(ol.children[1]!.querySelector('.code-block pre')!.textContent).to.equal('npm run start -- --port 8787');
    const ul = answer.querySelector('.markdown ul')!;
    expect([...ul.children].map((li) => li.localName)).to.deep.equal(['li', 'li']);
    expect(ul.children[0]!.querySelector('.cite__badge')!.textContent).to.equal('1');
    expect(ul.children[1]!.textContent).to.equal('Keyboard accessible');
    // Every badge has its own preview id (a source cited twice must not duplicate an id).
    const ids = [...answer.querySelectorAll('.cite__badge')].map((b) => b.getAttribute('aria-describedby'));
    expect(ids.length).to.be.greaterThan(4);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('puts tables in a focusable, labelled scroll container that scrolls at phone width; badges in cells', async () => {
    await setViewport({ width: 360, height: 640 });
    const { el, answer } = await blocksAnswer();
    const scroll = answer.querySelector<HTMLElement>('.table-scroll')!;
    expect(scroll.firstElementChild!.localName).to.equal('table');
    expect(scroll.getAttribute('role')).to.equal('group');
    expect(scroll.getAttribute('aria-label')).to.equal('Table');
    expect(scroll.tabIndex).to.equal(0);
    expect(scroll.querySelectorAll('tbody tr')).to.have.length(2);
    expect(scroll.querySelector('tbody td:last-child')!.querySelector('.cite__badge')!.textContent).to.equal('2');
    expect(getComputedStyle(scroll).overflowX).to.equal('auto');
    expect(scroll.scrollWidth).to.be.greaterThan(scroll.clientWidth);
    // The code block scrolls too, and neither widens the full-screen panel.
    const pre = answer.querySelector<HTMLElement>('.markdown pre')!;
    expect(pre.scrollWidth).to.be.greaterThan(pre.clientWidth);
    expectPanelNotWidened(el, 360);
    // A marker alone on the line after a block is just the badge.
    const line = answer.querySelector('.markdown > p.cite-line')!;
    expect(line.previousElementSibling).to.equal(scroll);
    expect(line.children).to.have.length(1);
    expect(line.querySelector('.cite__badge')!.textContent).to.equal('2');
  });

  it('copies a whole answer without markers, but code keeps its brackets and table cells their separation', () => {
    const markdown =
      'Run it [1]:\n\n```js\nconst x = a[1];\n```\n\n| A | B |\n| --- | --- |\n| 1 | 2 [2] |\n\n- one [1]\n- two';
    expect(plainAnswer(markdown)).to.equal('Run it:\nconst x = a[1];\nA\tB\n1\t2\none\ntwo');
  });

  it('offers related sources collapsed, unnumbered and not counted; kept in history', async () => {
    const { el, answer } = await blocksAnswer();
    const related = answer.querySelector<HTMLDetailsElement>('details[part="related"]')!;
    expect(related.open).to.equal(false);
    expect(related.querySelector('summary')!.textContent!.trim()).to.equal('Related');
    const items = [...related.querySelectorAll('[part="related-item"]')];
    expect(items.map((i) => i.textContent!.replace(/\s+/g, ' ').trim())).to.deep.equal([
      'Shipping Page 1',
      'Exchanges Section Swaps',
    ]);
    expect(related.querySelector<HTMLAnchorElement>('[part="related-link"]')!.href).to.equal(
      'https://example.com/shipping',
    );
    expect(related.querySelectorAll('a')).to.have.length(1); // no URL, no link
    expect(related.querySelector('ol, .cite__badge')).to.equal(null);
    expect(answer.querySelectorAll('.source')).to.have.length(2);
    expect(answer.querySelector('[part="answer-footer"]')!.textContent).to.contain('Grounded in 2 sources');
    related.querySelector('summary')!.click();
    expect(related.open).to.equal(true);

    // Reopened from history, the answer keeps its related sources.
    const root = shadow(el);
    root.querySelector<HTMLButtonElement>('[part="new-chat-button"]')!.click();
    await el.updateComplete;
    root.querySelector<HTMLButtonElement>('[part="history-button"]')!.click();
    await waitUntil(() => root.querySelector('[part="session"]'), 'no sessions', { timeout: 5_000 });
    root.querySelector<HTMLButtonElement>('[part="session"]')!.click();
    await waitUntil(() => lastAssistant(el)?.querySelector('[part="related"]'), 'related not restored', {
      timeout: 5_000,
    });
    expect(lastAssistant(el)!.querySelectorAll('[part="related-item"]')).to.have.length(2);
    expect(lastAssistant(el)!.querySelector('[part="answer-footer"]')!.textContent).to.contain('Grounded in 2 sources');
  });
});
