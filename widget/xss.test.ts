/**
 * Safety, proven in Chromium with every payload in ../shared/data/xss/ (payloadbox list +
 * h5sc vectors): as chunk content (excerpt preview and the expanded passage), as answer text, as a question
 * (and a refusal echoing it), and as a document title and URL; and inside every block type an
 * answer may have — a fenced code block (alone and inside a list item), a list item, a table cell — and as the
 * title and URL of a related source. None may execute: no dialog, no element other than the widget's own, no
 * event-handler attribute, no javascript:/data: link, no navigation.
 */
import { expect, waitUntil } from '@open-wc/testing';
import type { Citation } from '../protocol/chat.ts';
import { DEFAULT_STRINGS } from './i18n.ts';
import { answerElement } from './render/citations.ts';
import { renderMarkdown } from '../markdown/render.ts';
import { hasSharedData } from './test/fake-log.ts';
import { ask, createWidget, openKeyword, resetFake, shadow, ui } from './test/helpers.ts';

/** Every tag the widget itself creates while rendering messages (details/summary: the "Related" list). */
const WIDGET_TAGS = new Set(
  'div p span button strong em del code pre blockquote ul ol li a table thead tbody tr th td br hr time h3 progress details summary'.split(
    ' ',
  ),
);
const SIZE = 150;

/**
 * The widget's own 👍 / 👎 icons under an answer: an <svg> in a feedback button, outside every
 * container that shows server-supplied content, where a payload's markup could land.
 */
function ownIcon(el: Element): boolean {
  return (
    (el.localName === 'svg' || el.localName === 'path') &&
    !!el.closest('[part~="feedback-button"]') &&
    !el.closest('.markdown, .sources, .related, .suggestions, .cite__preview')
  );
}

/** A payload in each block type of an answer (code, list, table); the same shape as the fake's "xss-blocks N" answers. */
function inBlocks(p: string, n: number): string {
  return [
    `Run this [${n}]:`,
    '',
    '```',
    p,
    '```',
    '',
    `- ${p} [${n}]`,
    '- x',
    '',
    '1. step',
    '   ```',
    `   ${p}`,
    '   ```',
    '',
    '| Name | Value |',
    '| --- | --- |',
    `| ${p} | ${p} [${n}] |`,
    '',
    `[${n}]`,
  ].join('\n');
}

describe('XSS payloads', () => {
  const fired: string[] = [];
  const saved: Record<string, unknown> = {};
  const startUrl = location.href;

  before(async function () {
    if (!(await hasSharedData('xss'))) this.skip(); // ../shared is absent: counted as skipped
    await resetFake();
    for (const name of ['alert', 'confirm', 'prompt', 'print', 'open'] as const) {
      saved[name] = window[name];
      (window as unknown as Record<string, unknown>)[name] = (...args: unknown[]) =>
        void fired.push(`${name}(${String(args[0])})`);
    }
    window.addEventListener('beforeunload', () => fired.push('navigation'));
  });
  after(() => {
    Object.assign(window, saved);
  });

  function inspect(root: ParentNode, where: string): string[] {
    const problems: string[] = [];
    for (const el of root.querySelectorAll('*')) {
      const tag = el.localName;
      if (!WIDGET_TAGS.has(tag) && !ownIcon(el)) problems.push(`${where}: <${tag}>`);
      for (const attr of el.attributes) {
        if (
          /^on/i.test(attr.name) ||
          attr.name === 'src' ||
          attr.name === 'style' ||
          attr.name === 'srcdoc' ||
          attr.name === 'action'
        ) {
          problems.push(`${where}: <${tag} ${attr.name}>`);
        }
        if ((attr.name === 'href' || attr.name === 'xlink:href') && !/^(https?:|mailto:)/i.test(attr.value)) {
          problems.push(`${where}: href=${attr.value}`);
        }
      }
    }
    return problems;
  }

  it('renderMarkdown neutralises every payload (rendered into the live page)', async () => {
    const { payloads } = (await (
      await fetch('/__fake/xss', { method: 'POST', body: JSON.stringify({ size: SIZE }) })
    ).json()) as {
      payloads: string[];
    };
    expect(payloads.length).to.be.greaterThan(4000);
    // The detector itself detects (negative control).
    const control = document.createElement('template');
    control.innerHTML = '<img src=x onerror=1><a href="javascript:x">x</a><iframe></iframe>';
    expect(inspect(control.content, 'control')).to.have.length(5);
    const host = document.createElement('div');
    document.body.append(host);
    const problems: string[] = [];
    for (const [i, payload] of payloads.entries()) {
      host.innerHTML = renderMarkdown(payload);
      problems.push(
        ...inspect(host, `payload ${i}`).filter(
          (p) => !/<(p|ul|ol|li|strong|em|code|pre|a|blockquote|table|thead|tbody|tr|th|td|hr|del)>$/.test(p),
        ),
      );
    }
    await new Promise((r) => setTimeout(r, 200)); // give any onerror/onload a chance to fire
    host.remove();
    expect(problems).to.deep.equal([]);
    expect(fired).to.deep.equal([]);
  });

  it('answers neutralise every payload as code, list item and table cell, with badges and Copy buttons (live page)', async () => {
    const { payloads } = (await (
      await fetch('/__fake/xss', { method: 'POST', body: JSON.stringify({ size: SIZE }) })
    ).json()) as {
      payloads: string[];
    };
    const citation: Citation = {
      n: 1,
      chunk_id: 'c',
      document_id: 'd',
      title: 't',
      page: null,
      section: null,
      url: null,
      similarity: 1,
    };
    const host = document.createElement('div');
    document.body.append(host);
    const problems: string[] = [];
    let blocks = 0;
    for (const [i, payload] of payloads.entries()) {
      const answer = answerElement(
        inBlocks(payload, 1),
        [{ ...citation, title: payload, excerpt: payload }],
        `x${i}`,
        DEFAULT_STRINGS,
      );
      host.replaceChildren(answer);
      blocks += answer.querySelectorAll('.code-block, .table-scroll').length;
      problems.push(...inspect(host, `payload ${i}`));
    }
    await new Promise((r) => setTimeout(r, 200)); // give any onerror/onload a chance to fire
    host.remove();
    expect(problems).to.deep.equal([]);
    expect(fired).to.deep.equal([]);
    expect(blocks).to.be.at.least(payloads.length * 3); // the blocks really were built (two code blocks, one table each)
  });

  it('in the widget: as answer (also in code, lists, tables), chunk content, excerpt, title, URL, related and question — nothing executes', async function () {
    this.timeout(400_000);
    const started = performance.now();
    const { batches } = (await (
      await fetch('/__fake/xss', { method: 'POST', body: JSON.stringify({ size: SIZE }) })
    ).json()) as {
      batches: number;
      payloads: string[];
    };
    const el = await createWidget();
    await openKeyword(el);
    const root = shadow(el);
    const added: Element[] = [];
    const observer = new MutationObserver((records) => {
      for (const record of records)
        for (const node of record.addedNodes)
          if (node instanceof Element) added.push(node, ...node.querySelectorAll('*'));
    });
    observer.observe(root, { childList: true, subtree: true });
    const outside = new MutationObserver((records) => {
      for (const record of records) {
        for (const node of record.addedNodes)
          if (node instanceof Element && !node.closest('kb-chat') && node.localName !== 'div') added.push(node);
      }
    });
    outside.observe(document.documentElement, { childList: true, subtree: true });

    /** Asks the fake API for one batch and returns the finished answer (a failed one fails the test). */
    const answered = async (question: string): Promise<HTMLElement> => {
      await ask(el, question);
      await waitUntil(
        () => root.querySelector('.message--assistant[data-status="done"], .message--assistant[data-status="error"]'),
        question,
        {
          timeout: 20_000,
          interval: 20,
        },
      );
      const answer = root.querySelector<HTMLElement>('.message--assistant[data-status]')!;
      expect(answer.dataset.status, question).to.equal('done');
      return answer;
    };

    for (let b = 0; b < batches; b++) {
      const answer = await answered(`xss-batch ${b}`);
      answer.querySelector<HTMLButtonElement>('[part="more-sources"]')?.click();
      await el.updateComplete;
      // Expand every passage: the chunk text comes from GET /api/chunks/:id.
      for (const toggle of answer.querySelectorAll<HTMLButtonElement>('[part="source-toggle"]')) toggle.click();
      for (const badge of answer.querySelectorAll<HTMLButtonElement>('.cite__badge')) badge.focus();
      await new Promise((r) => setTimeout(r, 300));
      await el.updateComplete;
      const problems = inspect(root.querySelector('.messages')!, `batch ${b}`);
      expect(problems).to.deep.equal([]);
      ui(el).chat.newChat();
      await el.updateComplete;
    }

    console.log(`[xss] ${batches} answer batches in ${Math.round(performance.now() - started)} ms`);
    // Every payload inside code blocks, list items and table cells, and as a related title and URL.
    const blocksStarted = performance.now();
    const clipboard = navigator.clipboard.writeText;
    const copied: string[] = [];
    navigator.clipboard.writeText = async (text: string) => void copied.push(text); // no real clipboard in a test
    try {
      for (let b = 0; b < batches; b++) {
        const answer = await answered(`xss-blocks ${b}`);
        expect(answer.querySelectorAll('.code-block').length, `blocks ${b}`).to.be.at.least(SIZE);
        expect(answer.querySelectorAll('.table-scroll').length, `blocks ${b}`).to.be.at.least(SIZE / 2);
        answer.querySelector<HTMLDetailsElement>('[part="related"]')!.open = true;
        // A few Copy buttons and badges: each click re-renders the panel for its announcement, each focus scrolls
        // and lays out (~2 ms); the previews' titles and excerpts are in the DOM either way, and the loop above
        // already focused every badge with these payloads.
        for (const button of [...answer.querySelectorAll<HTMLButtonElement>('.code-block > button')].slice(0, 3))
          button.click();
        for (const badge of [...answer.querySelectorAll<HTMLButtonElement>('.cite__badge')].slice(0, 10)) badge.focus();
        await new Promise((r) => setTimeout(r, 300));
        await el.updateComplete;
        expect(answer.querySelectorAll('[part="related-item"]').length, `blocks ${b}`).to.be.greaterThan(0);
        expect(inspect(root.querySelector('.messages')!, `blocks ${b}`)).to.deep.equal([]);
        ui(el).chat.newChat();
        await el.updateComplete;
      }
    } finally {
      navigator.clipboard.writeText = clipboard;
    }
    expect(copied.length).to.equal(batches * 3);
    console.log(`[xss] ${batches} block batches in ${Math.round(performance.now() - blocksStarted)} ms`);
    // Every payload as a question (≤ 2000 characters each, as the API allows); the refusal echoes it back.
    const { payloads } = (await (
      await fetch('/__fake/xss', { method: 'POST', body: JSON.stringify({ size: SIZE }) })
    ).json()) as {
      payloads: string[];
    };
    let question = 'xss-q';
    const questions: string[] = [];
    for (const payload of payloads) {
      if (question.length + payload.length + 1 > 2000) questions.push(question), (question = 'xss-q');
      question += `\n${payload.slice(0, 1990)}`;
    }
    questions.push(question);
    for (const [i, q] of questions.entries()) {
      await ask(el, q);
      await waitUntil(() => root.querySelectorAll('.message--refusal').length === i + 1, `question ${i}`, {
        timeout: 10_000,
        interval: 10,
      });
    }
    await el.updateComplete;
    await new Promise((r) => setTimeout(r, 300));
    expect(inspect(root.querySelector('.messages')!, 'questions')).to.deep.equal([]);
    expect(root.querySelectorAll('.message--user')).to.have.length(questions.length);

    observer.disconnect();
    outside.disconnect();
    const foreign = added.filter(
      (node) => !WIDGET_TAGS.has(node.localName) && node.localName !== 'style' && !ownIcon(node),
    );
    expect(foreign.map((n) => n.outerHTML.slice(0, 80))).to.deep.equal([]);
    expect(fired).to.deep.equal([]);
    expect(location.href).to.equal(startUrl);
  });
});
