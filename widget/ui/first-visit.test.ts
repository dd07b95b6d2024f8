/**
 * A visitor's first visit, in Chromium with the real embedder worker: a question is never
 * blocked or dropped while the model loads, the time-out stops only the waiting, a failed load can be
 * retried in place, and the `preload` attribute decides when the model starts downloading. The fake API
 * holds the model and wasm responses (`holdAssets`) so "still loading" lasts exactly as long as a test needs.
 */
import { expect, waitUntil } from '@open-wc/testing';
import {
  WORKER_URL,
  answerText,
  ask,
  createWidget,
  fakeLog,
  holdAssets,
  lastAssistant,
  loaded,
  openPanel,
  resetFake,
  shadow,
  ui,
  waitForAnswerEnd,
} from '../test/helpers.ts';

const hover = (el: HTMLElement) =>
  shadow(el as never)
    .querySelector('.bubble')!
    .dispatchEvent(new PointerEvent('pointerenter'));

describe('first visit', () => {
  beforeEach(resetFake);
  afterEach(() => holdAssets(false));

  it('answers a question sent while the model loads in keyword mode, with a note; once ready, questions carry the embedding', async () => {
    await holdAssets(true);
    const el = await createWidget();
    await openPanel(el);
    expect(ui(el).embedder.status).to.equal('loading');
    const root = shadow(el);
    expect(root.querySelector<HTMLButtonElement>('.send')!.disabled).to.equal(false);

    const question = new Promise<CustomEvent>((resolve) => el.addEventListener('kb-question', resolve, { once: true }));
    await ask(el, 'What is the refund policy?');
    expect((await question).detail.keyword).to.equal(true);
    await waitForAnswerEnd(el);
    expect(lastAssistant(el)!.dataset.status).to.equal('done');
    expect(answerText(el)).to.contain('30 days');
    expect(lastAssistant(el)!.querySelector('[part~="loading-note"]')!.textContent).to.equal(
      'Answered by keyword search while the full search loads.',
    );
    expect(ui(el).embedder.status).to.equal('loading'); // still loading in the background
    expect((await fakeLog()).chat[0]!.body.embedding).to.equal(undefined);

    await holdAssets(false);
    await waitUntil(() => ui(el).embedder.status === 'ready', 'model never ready', { timeout: 25_000 });
    await el.updateComplete;
    expect(root.querySelector('.status')!.textContent!.trim()).to.equal('');
    await ask(el, 'What is the refund policy?');
    await waitForAnswerEnd(el);
    expect((await fakeLog()).chat[1]!.body.embedding).to.have.length(384);
    expect(lastAssistant(el)!.querySelector('[part~="loading-note"]')).to.equal(null);
  });

  it('never shows 100 % while the model is still loading: the bar turns indeterminate and says it is starting', async () => {
    await holdAssets(true);
    const el = await createWidget();
    await openPanel(el);
    const embedder = ui(el).embedder;
    expect(embedder.status).to.equal('loading');
    const status = () => shadow(el).querySelector('.status')!;
    embedder.progress = 40;
    ui(el).requestUpdate();
    await ui(el).updateComplete;
    expect(status().textContent).to.contain('Initializing AI… 40%');
    expect(status().querySelector('progress')!.getAttribute('value')).to.equal('40');
    embedder.progress = 100;
    ui(el).requestUpdate();
    await ui(el).updateComplete;
    expect(status().textContent).to.contain('starting the full search');
    expect(status().textContent).not.to.contain('100');
    expect(status().querySelector('progress')!.hasAttribute('value')).to.equal(false);
  });

  it('keeps loading past the time-out: the status line says the connection is slow, and the model still arrives', async () => {
    await holdAssets(true);
    const el = await createWidget();
    el.embedderTimeout = 1;
    await openPanel(el);
    await waitUntil(() => ui(el).embedder.slow, 'never slow', { timeout: 5_000 });
    await el.updateComplete;
    expect(ui(el).embedder.status).to.equal('loading');
    const status = shadow(el).querySelector('.status')!.textContent!;
    expect(status).to.contain('taking a while on this connection');
    expect(status).to.contain('You can ask now');
    await holdAssets(false);
    await waitUntil(() => ui(el).embedder.status === 'ready', 'the load was stopped by the time-out', {
      timeout: 25_000,
    });
    expect(ui(el).embedder.slow).to.equal(false);
  });

  it('retries a failed load without reloading the page', async () => {
    const el = await createWidget();
    el.embedderUrl = new URL('./no-such-worker.js', location.href);
    await openPanel(el);
    await waitUntil(() => ui(el).embedder.status === 'error', 'no error', { timeout: 10_000 });
    await el.updateComplete;
    el.embedderUrl = WORKER_URL; // the file is back (a deploy finished, the network returned)
    shadow(el).querySelector<HTMLButtonElement>('.status [part="retry-button"]')!.click();
    await waitUntil(() => ui(el).embedder.status === 'ready', 'retry did not load', { timeout: 25_000 });
    await ask(el, 'What is the refund policy?');
    await waitForAnswerEnd(el);
    expect((await fakeLog()).chat[0]!.body.embedding).to.have.length(384);
  });

  it('preload="none": intent loads only the chat UI; the model starts when the panel opens', async () => {
    const el = await createWidget('preload="none"');
    hover(el);
    await waitUntil(() => el.ui, 'UI not loaded on hover', { timeout: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ui(el).embedder.status).to.equal('idle');
    expect((await fakeLog()).assets).to.deep.equal([]);
    await openPanel(el);
    expect(ui(el).embedder.status).to.not.equal('idle');
  });

  it('preload="idle": the model starts once the page is idle, without any interaction', async () => {
    const el = await createWidget('preload="idle"');
    await waitUntil(
      () => loaded(el)?.embedder.status === 'loading' || loaded(el)?.embedder.status === 'ready',
      'no idle preload',
      { timeout: 15_000 },
    );
    expect(el.open).to.equal(false);
    expect(shadow(el).querySelector('.panel')).to.equal(null);
  });

  it('never preloads the model for a visitor who saves data (navigator.connection.saveData)', async () => {
    Object.defineProperty(navigator, 'connection', { value: { saveData: true }, configurable: true });
    try {
      const el = await createWidget('preload="intent"');
      hover(el);
      await waitUntil(() => el.ui, 'UI not loaded on hover', { timeout: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(ui(el).embedder.status).to.equal('idle');
      await openPanel(el); // asking for the chat is asking for it
      expect(ui(el).embedder.status).to.not.equal('idle');
    } finally {
      delete (navigator as { connection?: unknown }).connection;
    }
  });
});
