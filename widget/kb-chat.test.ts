/**
 * `<kb-chat>` in Chromium: real loader + chat UI, real embedder worker (transformers.js + ONNX Runtime wasm +
 * the test-double model), a real SSE stream. The API is faked at the HTTP boundary (test/fake-api.mjs).
 */
import { expect, waitUntil } from '@open-wc/testing';
import KbChatClass from './kb-chat.component.ts';
import {
  UI_URL,
  answerText,
  ask,
  createWidget,
  fakeLog,
  lastAssistant,
  openPanel,
  openReady,
  resetFake,
  shadow,
  ui,
  waitForAnswerEnd,
} from './test/helpers.ts';

const loaded = (path: string) =>
  performance.getEntriesByType('resource').some((e) => new URL(e.name).pathname === path);

describe('<kb-chat>', () => {
  beforeEach(resetFake);

  it('paints only the bubble; on intent the chat UI loads and the model starts (preload="intent", the default)', async () => {
    const el = await createWidget();
    const root = shadow(el);
    expect(root.querySelector('.bubble')!.getAttribute('aria-label')).to.equal('Open chat');
    expect(root.querySelector('.panel')).to.equal(null);
    expect(el.ui).to.equal(undefined);
    expect((await fakeLog()).assets).to.deep.equal([]); // nothing loaded at page load

    // Hover = intent: the UI module is fetched and the model starts loading; the panel stays closed.
    root.querySelector('.bubble')!.dispatchEvent(new PointerEvent('pointerenter'));
    await waitUntil(() => el.ui, 'UI not loaded on hover', { timeout: 10_000 });
    expect(loaded(UI_URL.pathname)).to.equal(true);
    expect(root.querySelector('.panel')).to.equal(null);
    expect(ui(el).embedder.status).to.equal('loading');

    const opened = new Promise((resolve) => el.addEventListener('kb-open', resolve, { once: true }));
    root.querySelector<HTMLButtonElement>('.bubble')!.click();
    await opened;
    await el.updateComplete;
    expect(el.hasAttribute('open')).to.equal(true);
    expect(root.querySelector('.bubble')!.getAttribute('aria-expanded')).to.equal('true');
    expect(root.querySelector('.panel h2')!.textContent).to.equal('Ask our docs');
    // The input takes questions at once (keyword mode until the model is ready), and says so.
    expect(root.querySelector('.status')!.textContent).to.contain('You can ask now');
    expect(root.querySelector<HTMLButtonElement>('.send')!.disabled).to.equal(false);

    await waitUntil(() => ui(el).embedder.status === 'ready', 'embedder never ready', { timeout: 25_000 });
    await el.updateComplete;
    expect(root.querySelector<HTMLButtonElement>('.send')!.disabled).to.equal(false);

    const closed = new Promise((resolve) => el.addEventListener('kb-close', resolve, { once: true }));
    root.querySelector<HTMLButtonElement>('.close')!.click();
    await closed;
    await el.updateComplete;
    expect(root.querySelector('.panel')).to.equal(null);
    expect(el.open).to.equal(false);
  });

  it('caches the model with the Cache API after the first load', async () => {
    const el = await createWidget();
    await openReady(el);
    const names = await caches.keys();
    expect(names).to.include('transformers-cache');
    const cache = await caches.open('transformers-cache');
    const urls = (await cache.keys()).map((r) => new URL(r.url).pathname);
    expect(urls.some((p) => p.endsWith('model_quantized.onnx'))).to.equal(true);
  });

  it('streams an answer incrementally, then lists its sources', async () => {
    const el = await createWidget();
    const events: string[] = [];
    for (const type of ['kb-question', 'kb-answer'] as const) el.addEventListener(type, () => events.push(type));
    let answerDetail: unknown;
    el.addEventListener('kb-answer', (e) => (answerDetail = e.detail));
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
    expect(answerText(el)).to.equal(
      'Refunds are accepted within 30 days of purchase [1]. See also the warranty terms [2].',
    );
    expect(answer.querySelector('.markdown strong')!.textContent).to.equal('30 days');
    expect(answerText(el).startsWith(partial.trim())).to.equal(true);

    const links = [...answer.querySelectorAll<HTMLAnchorElement>('.sources a')];
    expect(links.map((a) => a.textContent!.trim())).to.deep.equal(['Refund policy', 'Warranty']);
    expect([...answer.querySelectorAll('.source__meta')].map((m) => m.textContent)).to.deep.equal([
      'Page 3 · Section Returns',
      'Section Coverage',
    ]);
    expect(links[1]!.getAttribute('rel')).to.equal('noopener noreferrer');
    expect(links[1]!.getAttribute('target')).to.equal('_blank');
    expect([...answer.querySelectorAll<HTMLLIElement>('.sources li')].map((li) => li.value)).to.deep.equal([1, 2]);
    expect(events).to.deep.equal(['kb-question', 'kb-answer']);
    expect(answerDetail).to.include({
      text: 'Refunds are accepted within 30 days of purchase. See also the warranty terms.',
    });

    // What went over the wire: a valid request with a real embedding and a bearer token from sign-in.
    const log = await fakeLog();
    expect(log.auth).to.equal(1);
    expect(log.chat).to.have.length(1);
    const { body, token } = log.chat[0]!;
    expect(token).to.match(/^token-/);
    expect(body.embedding).to.have.length(384);
    expect(Math.hypot(...body.embedding!)).to.be.closeTo(1, 1e-3);
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

  it('signs in when the visitor starts typing, so Send does not wait for it; once, not per keystroke', async () => {
    const el = await createWidget();
    await openReady(el);
    expect((await fakeLog()).auth).to.equal(0); // opening alone creates no user
    const input = shadow(el).querySelector<HTMLTextAreaElement>('[part="input"]')!;
    for (const text of ['W', 'Wh', 'Wha']) {
      input.value = text;
      input.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }));
    }
    await waitUntil(async () => (await fakeLog()).auth === 1, 'no sign-in while typing');
    expect((await fakeLog()).chat).to.have.length(0);
    await ask(el, 'What is the refund policy?');
    await waitForAnswerEnd(el);
    const log = await fakeLog();
    expect(log.auth).to.equal(1);
    expect(log.chat[0]!.token).to.match(/^token-/);
  });

  it('keeps its token in sessionStorage, never localStorage, and removes a token an older version left there', async () => {
    const legacy = `kb-chat:token:${location.origin}`;
    localStorage.setItem(legacy, JSON.stringify({ access_token: 'week-old', expires_at: Date.now() + 6 * 86_400_000 }));
    const el = await createWidget();
    await openReady(el);
    await ask(el, 'What is the refund policy?');
    await waitForAnswerEnd(el);
    expect(localStorage.getItem(legacy)).to.equal(null);
    expect(Object.keys(localStorage).filter((k) => k.startsWith('kb-chat:'))).to.deep.equal([]);
    const stored = JSON.parse(sessionStorage.getItem(legacy)!) as { access_token: string; refresh_token: string };
    expect(stored.access_token).to.equal((await fakeLog()).chat[0]!.token);
    expect(stored.refresh_token).to.match(/^refresh-/);
  });

  it('renews an expired token with its refresh token: same visitor, same history, no new sign-in', async () => {
    // 31 s tokens: the widget renews 30 s early, so this one is stale a second after it is issued.
    await fetch('/__fake/token-lifetime', { method: 'POST', body: JSON.stringify({ seconds: 31 }) });
    const el = await createWidget();
    await openReady(el);
    await ask(el, 'What is the refund policy?');
    await waitForAnswerEnd(el);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await ask(el, 'And the warranty?');
    await waitForAnswerEnd(el);
    const log = await fakeLog();
    expect({ auth: log.auth, refresh: log.refresh }).to.deep.equal({ auth: 1, refresh: 1 });
    expect(log.chat[1]!.token).to.not.equal(log.chat[0]!.token);
    // The renewed token sees the session the first one started.
    const sessions = await fetch('/api/sessions', { headers: { Authorization: `Bearer ${log.chat[1]!.token}` } });
    const { sessions: list } = (await sessions.json()) as { sessions: { id: string }[] };
    expect(list.map((x) => x.id)).to.deep.equal([log.chat[1]!.body.session_id]);
  });

  it('keeps the visitor when a renewal is rate limited: the question says wait, the next one renews the same session', async () => {
    await fetch('/__fake/token-lifetime', { method: 'POST', body: JSON.stringify({ seconds: 31 }) });
    const el = await createWidget();
    await openReady(el);
    await ask(el, 'What is the refund policy?');
    await waitForAnswerEnd(el);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await fetch('/__fake/refresh-limited', { method: 'POST', body: JSON.stringify({ times: 1 }) });
    await ask(el, 'And the warranty?');
    await waitUntil(() => /7 seconds/.test(shadow(el).textContent ?? ''), 'no rate-limit message with its wait');
    expect((await fakeLog()).auth).to.equal(1);
    await ask(el, 'And the warranty?');
    await waitForAnswerEnd(el);
    const log = await fakeLog();
    // One sign-up in all: the limited renewal did not start a new visitor, the next renewal went through.
    expect({ auth: log.auth, refresh: log.refresh }).to.deep.equal({ auth: 1, refresh: 2 });
    // The limited question never reached the chat; the retried one continues the first one's session.
    expect(log.chat).to.have.length(2);
    const last = log.chat[1]!;
    const sessions = await fetch('/api/sessions', { headers: { Authorization: `Bearer ${last.token}` } });
    const { sessions: list } = (await sessions.json()) as { sessions: { id: string }[] };
    expect(list.map((x) => x.id)).to.deep.equal([last.body.session_id]);
  });

  it('solves Turnstile before signing in when the server asks for it, in a box slotted into the panel', async () => {
    await fetch('/__fake/captcha', { method: 'POST', body: JSON.stringify({ on: true }) });
    const el = await createWidget();
    await openReady(el);
    await ask(el, 'What is the refund policy?');
    // The challenge renders in the light DOM (its iframe cannot live in a shadow root), shown in the panel.
    await waitUntil(() => el.querySelector('[slot="captcha"] .fake-turnstile'), 'no challenge shown');
    expect(el.querySelector<HTMLElement>('[slot="captcha"] .fake-turnstile')!.dataset.sitekey).to.equal(
      'fake-site-key',
    );
    expect(shadow(el).querySelector('slot[name="captcha"]')).to.not.equal(null);
    await waitForAnswerEnd(el);
    const log = await fakeLog();
    expect(log.captcha).to.deep.equal(['turnstile-ok-w1']);
    expect(log.auth).to.equal(1);
    // Solved and removed: nothing of the challenge is left in the page.
    expect(el.querySelector('[slot="captcha"]')).to.equal(null);
    expect((window as unknown as { __turnstileRemoved: string[] }).__turnstileRemoved).to.deep.equal(['w1']);
  });

  it('signs in again once when the stored token is rejected (401)', async () => {
    sessionStorage.setItem(
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

  it('shows a refusal with its message and suggestions, and fires kb-refusal', async () => {
    const el = await createWidget();
    const refused = new Promise<CustomEvent>((resolve) => el.addEventListener('kb-refusal', resolve, { once: true }));
    await openReady(el);
    await ask(el, 'What is the weather tomorrow?');
    const refusal = await waitUntil(() => shadow(el).querySelector('.message--refusal'), 'no refusal', {
      timeout: 10_000,
    }).then(() => shadow(el).querySelector<HTMLElement>('.message--refusal')!);
    expect(refusal.querySelector('p')!.textContent).to.equal("I couldn't find this in our documentation.");
    expect([...refusal.querySelectorAll('.suggestion')].map((s) => s.textContent!.trim())).to.deep.equal([
      'How do refunds work?',
      'What does the warranty cover?',
    ]);
    expect((await refused).detail.message).to.equal("I couldn't find this in our documentation.");
    expect(lastAssistant(el)).to.equal(null);
  });

  it('explains a rate limit in plain words, with the wait from Retry-After, and fires kb-error', async () => {
    const el = await createWidget();
    const failed = new Promise<CustomEvent>((resolve) => el.addEventListener('kb-error', resolve, { once: true }));
    await openReady(el);
    await ask(el, 'ratelimit me');
    await waitForAnswerEnd(el);
    expect(lastAssistant(el)!.querySelector('.message__error span')!.textContent).to.equal(
      'You are sending questions too quickly. Please try again in 17 seconds.',
    );
    expect((await failed).detail.code).to.equal('rate_limited');
    expect((await fakeLog()).chat).to.have.length(1);
  });

  it('tells users of browsers without WebAssembly that they are not supported, and still answers (keyword mode)', async () => {
    const saved = globalThis.WebAssembly;
    const el = await createWidget();
    try {
      (globalThis as { WebAssembly?: unknown }).WebAssembly = undefined;
      await openPanel(el);
      await el.updateComplete;
    } finally {
      globalThis.WebAssembly = saved;
    }
    expect(ui(el).embedder.status).to.equal('unsupported');
    const status = shadow(el).querySelector('.status')!.textContent!;
    expect(status).to.contain(
      'Browser not supported — please use a recent version of Chrome, Edge, Firefox or Safari.',
    );
    expect(status).to.contain('Keyword search mode');
    await ask(el, 'What is the refund policy?');
    await waitForAnswerEnd(el);
    expect(lastAssistant(el)!.dataset.status).to.equal('done');
    expect((await fakeLog()).chat[0]!.body.embedding).to.equal(undefined);
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
    const workerUrls = (await ui(el).embedder.resources()).map((entry) => entry.url);
    expect(workerUrls.length).to.be.greaterThan(0);
    const foreign = [...pageUrls, ...workerUrls].filter((url) => new URL(url).origin !== location.origin);
    expect(foreign).to.deep.equal([]);
    // Pages and the worker run under a same-origin-only CSP that reports every blocked request.
    expect((await fakeLog()).csp).to.deep.equal([]);
  });
});
