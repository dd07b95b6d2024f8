/**
 * `<kb-chat>` end to end inside Chromium: real element, real embedder worker (transformers.js + ONNX Runtime
 * wasm + the test-double model), real fetch-event-source over a real SSE stream.
 *
 * The API server is faked at the HTTP boundary (widget/test/fake-api.mjs, dev-server middleware) because the
 * real server is covered by the server tests and the end-to-end test; the fake gives us exact control over
 * stream timing, refusals and a connection that drops mid-answer.
 */
import { expect, waitUntil } from '@open-wc/testing';
import KbChatClass from './kb-chat.component.ts';
import {
  answerText,
  ask,
  createWidget,
  fakeLog,
  lastAssistant,
  openReady,
  resetFake,
  shadow,
  waitForAnswerEnd,
} from './test/helpers.ts';

describe('<kb-chat>', () => {
  beforeEach(resetFake);

  it('renders a bubble; opening creates the panel and only then the embedder', async () => {
    const el = await createWidget();
    const root = shadow(el);
    expect(root.querySelector('.bubble')).to.not.equal(null);
    expect(root.querySelector('.panel')).to.equal(null);
    expect(el.embedder.status).to.equal('idle');
    expect((await fakeLog()).assets).to.deep.equal([]); // nothing loaded at page load

    const opened = new Promise((resolve) => el.addEventListener('kb-open', resolve, { once: true }));
    root.querySelector<HTMLButtonElement>('.bubble')!.click();
    await opened;
    await el.updateComplete;
    expect(el.hasAttribute('open')).to.equal(true);
    expect(root.querySelector('.panel h2')!.textContent).to.equal('Ask our docs');
    expect(root.querySelector('textarea')).to.not.equal(null);
    expect(root.querySelector('.status')!.textContent).to.contain('Initializing AI…');
    expect(root.querySelector<HTMLButtonElement>('.send')!.disabled).to.equal(true);

    await waitUntil(() => el.embedder.status === 'ready', 'embedder never ready', { timeout: 25_000 });
    await el.updateComplete;
    expect(root.querySelector<HTMLButtonElement>('.send')!.disabled).to.equal(false);

    root.querySelector<HTMLButtonElement>('.close')!.click();
    await el.updateComplete;
    expect(root.querySelector('.panel')).to.equal(null);
    expect(el.open).to.equal(false);
  });

  it('streams an answer incrementally, then lists its sources as links', async () => {
    const el = await createWidget();
    await openReady(el);
    await ask(el, 'What is the refund policy?');
    expect(shadow(el).querySelector('.message--user')!.textContent).to.equal('What is the refund policy?');

    // Partial text on screen while the typing indicator is still there = incremental rendering.
    await waitUntil(() => answerText(el).length > 0, 'no partial answer', { timeout: 10_000, interval: 10 });
    const partial = answerText(el);
    expect(lastAssistant(el)!.querySelector('.typing')).to.not.equal(null);
    expect(partial).to.not.contain('warranty terms');

    await waitForAnswerEnd(el);
    const answer = lastAssistant(el)!;
    expect(answer.dataset.status).to.equal('done');
    expect(answer.querySelector('.typing')).to.equal(null);
    expect(answerText(el)).to.equal('Refunds are accepted within 30 days of purchase [1]. See also the warranty terms [2].');
    expect(answer.querySelector('.markdown strong')!.textContent).to.equal('30 days');
    expect(answerText(el).startsWith(partial.trim())).to.equal(true);

    const links = [...answer.querySelectorAll<HTMLAnchorElement>('.sources a')];
    expect(links.map((a) => a.textContent!.trim())).to.deep.equal([
      'Refund policy — Page 3, Section Returns',
      'Warranty — Section Coverage',
    ]);
    expect(links[0]!.href).to.equal(new URL('/docs/refunds#returns', location.href).href);
    expect(links[1]!.getAttribute('rel')).to.equal('noopener noreferrer');
    expect(links[1]!.getAttribute('target')).to.equal('_blank');
    expect([...answer.querySelectorAll<HTMLLIElement>('.sources li')].map((li) => li.value)).to.deep.equal([1, 2]);

    // What went over the wire: a valid request with a real embedding and a bearer token from sign-in.
    const log = await fakeLog();
    expect(log.auth).to.equal(1);
    expect(log.chat).to.have.length(1);
    const { body, token } = log.chat[0]!;
    expect(token).to.match(/^token-/);
    expect(body.embedding).to.have.length(384);
    expect(Math.hypot(...body.embedding)).to.be.closeTo(1, 1e-3);
    expect(body.session_id).to.equal(undefined);
  });

  it('reuses the session id and the stored token for the next question', async () => {
    const el = await createWidget();
    await openReady(el);
    await ask(el, 'What is the refund policy?');
    await waitForAnswerEnd(el);
    await ask(el, 'And the warranty?');
    await waitForAnswerEnd(el);
    const log = await fakeLog();
    expect(log.auth).to.equal(1);
    expect(log.chat).to.have.length(2);
    expect(log.chat[1]!.body.session_id).to.match(/^[0-9a-f-]{36}$/);
    expect(log.chat[1]!.token).to.equal(log.chat[0]!.token);
  });

  it('signs in again once when the stored token is rejected (401)', async () => {
    localStorage.setItem(
      `kb-chat:token:${location.origin}`,
      JSON.stringify({ access_token: 'revoked', expires_at: Date.now() + 3_600_000 }),
    );
    const el = await createWidget();
    await openReady(el);
    await ask(el, 'What is the refund policy?');
    await waitForAnswerEnd(el);
    expect(lastAssistant(el)!.dataset.status).to.equal('done');
    const log = await fakeLog();
    expect(log.chat.map((c) => c.token === 'revoked')).to.deep.equal([true, false]);
    expect(log.chat[0]!.body.message_id).to.equal(log.chat[1]!.body.message_id); // same question, not a new one
    expect(log.auth).to.equal(1);
  });

  it('shows a refusal with its message and suggestions', async () => {
    const el = await createWidget();
    await openReady(el);
    await ask(el, 'What is the weather tomorrow?');
    const refusal = await waitUntil(() => shadow(el).querySelector('.message--refusal'), 'no refusal', {
      timeout: 10_000,
    }).then(() => shadow(el).querySelector<HTMLElement>('.message--refusal')!);
    expect(refusal.querySelector('p')!.textContent).to.equal("I couldn't find this in our documentation.");
    expect([...refusal.querySelectorAll('.suggestion')].map((s) => s.textContent)).to.deep.equal([
      'How do refunds work?',
      'What does the warranty cover?',
    ]);
    expect(shadow(el).querySelector('.message--assistant')).to.equal(null);
  });

  it('keeps the partial answer and shows an error when the stream drops', async () => {
    const el = await createWidget();
    await openReady(el);
    await ask(el, 'Please drop the connection');
    await waitForAnswerEnd(el);
    const answer = lastAssistant(el)!;
    expect(answer.dataset.status).to.equal('error');
    expect(answerText(el)).to.equal('Refunds are accepted within 30 days');
    expect(answer.querySelector('.typing')).to.equal(null);
    expect(answer.querySelector('.message__error')!.textContent).to.contain('connection was lost');
    expect((await fakeLog()).chat).to.have.length(1); // never re-POSTed
    // The widget is usable again.
    await el.updateComplete;
    expect(shadow(el).querySelector<HTMLButtonElement>('.send')!.disabled).to.equal(false);
  });

  it('explains a rate limit in plain words', async () => {
    const el = await createWidget();
    await openReady(el);
    await ask(el, 'ratelimit me');
    await waitForAnswerEnd(el);
    expect(lastAssistant(el)!.querySelector('.message__error')!.textContent).to.equal(
      'You are sending questions too quickly. Please wait a moment and try again.',
    );
    expect((await fakeLog()).chat).to.have.length(1);
  });

  it('renders hostile content inert: no <img onerror>, no javascript: links', async () => {
    const el = await createWidget();
    const w = window as unknown as { __kbXss?: number };
    delete w.__kbXss;
    await openReady(el);
    await ask(el, 'xss please');
    await waitForAnswerEnd(el);
    const answer = lastAssistant(el)!;
    expect(answer.querySelector('img, script, [onerror]')).to.equal(null);
    expect(answerText(el)).to.contain('<img src=x onerror="window.__kbXss=1">');
    for (const a of answer.querySelectorAll('a')) {
      expect(a.getAttribute('href') ?? '').to.not.match(/^\s*javascript:/i);
    }
    const source = answer.querySelector('.sources li')!;
    expect(source.querySelector('a')).to.equal(null); // the javascript: source URL is not linked
    expect(source.textContent).to.contain('<img src=x onerror="window.__kbXss=4">');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(w.__kbXss).to.equal(undefined);
  });

  it('shows "Connection timed out" with a working Retry when the model is too slow', async () => {
    const el = await createWidget();
    el.embedderTimeout = 1;
    shadow(el).querySelector<HTMLButtonElement>('.bubble')!.click();
    await waitUntil(() => el.embedder.status === 'timeout', 'no timeout', { timeout: 5_000 });
    await el.updateComplete;
    expect(shadow(el).querySelector('.status')!.textContent).to.contain('Connection timed out');
    el.embedderTimeout = 25_000;
    shadow(el).querySelector<HTMLButtonElement>('[part="retry-button"]')!.click();
    await waitUntil(() => el.embedder.status === 'ready', 'retry did not load', { timeout: 25_000 });
  });

  it('shows a clear message with Retry when the model cannot be loaded', async () => {
    const el = await createWidget();
    el.embedderUrl = new URL('./no-such-worker.js', location.href);
    shadow(el).querySelector<HTMLButtonElement>('.bubble')!.click();
    await waitUntil(() => el.embedder.status === 'error', 'no error', { timeout: 10_000 });
    await el.updateComplete;
    expect(shadow(el).querySelector('.status')!.textContent).to.contain('The AI model could not be loaded.');
    expect(shadow(el).querySelector('[part="retry-button"]')).to.not.equal(null);
  });

  it('tells users of browsers without WebAssembly that they are not supported', async () => {
    const saved = globalThis.WebAssembly;
    const el = await createWidget();
    try {
      (globalThis as { WebAssembly?: unknown }).WebAssembly = undefined;
      shadow(el).querySelector<HTMLButtonElement>('.bubble')!.click();
      await el.updateComplete;
      await el.updateComplete;
    } finally {
      globalThis.WebAssembly = saved;
    }
    expect(el.embedder.status).to.equal('unsupported');
    expect(shadow(el).querySelector('.status')!.textContent).to.contain(
      'Browser not supported — please use a recent version of Chrome, Edge, Firefox or Safari.',
    );
  });

  it('is harmless to load twice', async () => {
    const first = customElements.get('kb-chat');
    expect(first).to.equal(KbChatClass);
    // A query string makes the browser evaluate the entry module a second time.
    await import(/* @vite-ignore */ `./kb-chat.ts?again=${Date.now()}`);
    expect(customElements.get('kb-chat')).to.equal(first);
  });

  it('sends no request to any other origin', async () => {
    const el = await createWidget();
    await openReady(el);
    await ask(el, 'What is the refund policy?');
    await waitForAnswerEnd(el);
    const pageUrls = performance.getEntriesByType('resource').map((entry) => entry.name);
    const workerUrls = await el.embedder.resources();
    expect(workerUrls.length).to.be.greaterThan(0);
    const foreign = [...pageUrls, ...workerUrls].filter((url) => new URL(url).origin !== location.origin);
    expect(foreign).to.deep.equal([]);
    // Pages and the worker run under a same-origin-only CSP that reports every blocked request.
    expect((await fakeLog()).csp).to.deep.equal([]);
  });
});
