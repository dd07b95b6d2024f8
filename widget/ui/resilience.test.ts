/** Resilient streaming (a cut stream resumes with Last-Event-ID) and keyword fallback, in Chromium against the fake API. */
import { expect, waitUntil } from '@open-wc/testing';
import {
  answerText,
  ask,
  createWidget,
  fakeLog,
  lastAssistant,
  openKeyword,
  resetFake,
  shadow,
  ui,
  waitForAnswerEnd,
} from '../test/helpers.ts';

describe('resilient streaming', () => {
  beforeEach(resetFake);

  it('keeps the partial answer on a dropped stream; Retry re-sends the same message_id and resumes', async () => {
    const el = await createWidget();
    await openKeyword(el);
    await ask(el, 'Please drop the connection');
    await waitForAnswerEnd(el);
    const answer = lastAssistant(el)!;
    expect(answer.dataset.status).to.equal('error');
    expect(answerText(el)).to.equal('Refunds are accepted within 30 days');
    expect(answer.querySelector('.typing')).to.equal(null);
    expect(answer.querySelector('.message__error')!.textContent).to.contain('connection was lost');
    await new Promise((r) => setTimeout(r, 500));
    expect((await fakeLog()).chat).to.have.length(1); // never re-POSTed automatically

    answer.querySelector<HTMLButtonElement>('[part="retry-button"]')!.click();
    await waitUntil(() => lastAssistant(el)?.dataset.status === 'done', 'retry did not finish', { timeout: 10_000 });
    expect(answerText(el)).to.equal(
      'Refunds are accepted within 30 days of purchase [1]. See also the warranty terms [2].',
    );
    const log = await fakeLog();
    expect(log.chat).to.have.length(2);
    expect(log.chat[1]!.body.message_id).to.equal(log.chat[0]!.body.message_id);
    expect(log.chat[1]!.lastEventId).to.equal('2'); // resumes after the last event it saw
    expect(shadow(el).querySelectorAll('.message--user')).to.have.length(1);
  });

  it('a replayed answer (no resume) is shown once, not appended twice', async () => {
    const el = await createWidget();
    await openKeyword(el);
    await ask(el, 'Please drop the connection');
    await waitForAnswerEnd(el);
    const turn = ui(el).chat.turns.find((t) => t.kind === 'answer')!;
    if (turn.kind === 'answer') turn.lastEventId = undefined; // as if the server sent no ids
    lastAssistant(el)!.querySelector<HTMLButtonElement>('[part="retry-button"]')!.click();
    await waitUntil(() => lastAssistant(el)?.dataset.status === 'done', 'retry did not finish', { timeout: 10_000 });
    expect(answerText(el)).to.equal(
      'Refunds are accepted within 30 days of purchase [1]. See also the warranty terms [2].',
    );
  });

  it('hiding the tab mid-answer neither aborts nor re-POSTs the question', async () => {
    const el = await createWidget();
    await openKeyword(el);
    await ask(el, 'slow question please');
    await waitUntil(() => lastAssistant(el)?.dataset.status === 'streaming', 'not streaming', { timeout: 5_000 });
    const setHidden = (hidden: boolean) => {
      Object.defineProperty(document, 'hidden', { value: hidden, configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    };
    try {
      setHidden(true);
      await new Promise((r) => setTimeout(r, 300));
      setHidden(false);
    } finally {
      delete (document as { hidden?: boolean }).hidden; // back to Document.prototype's getter
    }
    await waitUntil(() => lastAssistant(el)?.dataset.status === 'done', 'answer did not finish', { timeout: 15_000 });
    expect(answerText(el)).to.equal(
      'Refunds are accepted within 30 days of purchase [1]. See also the warranty terms [2].',
    );
    expect((await fakeLog()).chat).to.have.length(1);
  });

  it('a new question cancels the unfinished one', async () => {
    const el = await createWidget();
    await openKeyword(el);
    await ask(el, 'slow question please');
    await waitUntil(() => lastAssistant(el)?.dataset.status === 'streaming', 'not streaming', { timeout: 5_000 });
    await ask(el, 'What is the refund policy?');
    await waitUntil(() => shadow(el).querySelectorAll('[data-status="done"]').length === 1, 'second not done', {
      timeout: 10_000,
    });
    const statuses = [...shadow(el).querySelectorAll<HTMLElement>('.message--assistant')].map((m) => m.dataset.status);
    expect(statuses).to.deep.equal(['cancelled', 'done']);
    expect(shadow(el).querySelector('[data-status="cancelled"] .message__error')!.textContent).to.contain('Stopped');
  });

  it('offers keyword search with a visible note when the model cannot load', async () => {
    const el = await createWidget();
    await openKeyword(el);
    const status = shadow(el).querySelector('.status')!;
    expect(status.textContent).to.contain('The AI model could not be loaded.');
    expect(status.querySelector('[part="keyword-note"]')!.textContent).to.contain('Keyword search mode');
    expect(status.querySelector('[part="retry-button"]')).to.not.equal(null);
    expect(shadow(el).querySelector<HTMLButtonElement>('.send')!.disabled).to.equal(false);
    const question = new Promise<CustomEvent>((r) => el.addEventListener('kb-question', r, { once: true }));
    await ask(el, 'What is the refund policy?');
    expect((await question).detail.keyword).to.equal(true);
    await waitForAnswerEnd(el);
    expect(lastAssistant(el)!.dataset.status).to.equal('done');
    expect((await fakeLog()).chat[0]!.body.embedding).to.equal(undefined);
  });
});
