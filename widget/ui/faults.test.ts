/**
 * The widget under faults, in Chromium against the fake API, which injects them (see
 * widget/test/fake-api.mjs): 503 + Retry-After → it waits, says so, and retries once with the same
 * message_id; offline → a clear message and the question stays in the box; a connection refused before any
 * response → the question stays on screen with a Retry. (A stream cut mid-answer — the partial answer stays
 * and Retry resumes with Last-Event-ID — is in resilience.test.ts; an expired or revoked token is in kb-chat.test.ts.)
 */
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
  waitForAnswerEnd,
} from '../test/helpers.ts';

const refuse = (on: boolean) => fetch('/__fake/refuse', { method: 'POST', body: JSON.stringify({ on }) });
const FULL_ANSWER = 'Refunds are accepted within 30 days of purchase [1]. See also the warranty terms [2].';

describe('the widget under faults', () => {
  beforeEach(resetFake);

  it('503 with Retry-After: says it is waiting, retries once after the wait with the same message_id, and answers', async () => {
    const el = await createWidget();
    await openKeyword(el);
    await ask(el, 'busy once: what is the refund policy?');
    await waitUntil(() => lastAssistant(el)?.dataset.status === 'waiting', 'not waiting', { timeout: 5_000 });
    expect(lastAssistant(el)!.querySelector('[part~="waiting"]')!.textContent).to.contain('Trying again in 1 s');
    expect((await fakeLog()).chat).to.have.length(1); // it waits before the retry
    await waitForAnswerEnd(el);
    expect(lastAssistant(el)!.dataset.status).to.equal('done');
    expect(answerText(el)).to.equal(FULL_ANSWER);
    const { chat } = await fakeLog();
    expect(chat).to.have.length(2);
    expect(chat[1]!.body.message_id).to.equal(chat[0]!.body.message_id);
    expect(shadow(el).querySelectorAll('.message--user')).to.have.length(1);
  });

  it('503 again after the one retry: the error and a Retry, and no third request of its own', async () => {
    const el = await createWidget();
    await openKeyword(el);
    await ask(el, 'busy always');
    await waitUntil(() => lastAssistant(el)?.dataset.status === 'error', 'no error', { timeout: 10_000 });
    const error = lastAssistant(el)!.querySelector('.message__error')!;
    expect(error.textContent).to.contain('temporarily unavailable');
    expect(error.querySelector('[part="retry-button"]')).to.not.equal(null);
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await fakeLog()).chat).to.have.length(2);
  });

  it('offline: says so, sends nothing and keeps the question in the box; back online, it sends', async () => {
    const el = await createWidget();
    await openKeyword(el);
    const textarea = shadow(el).querySelector('textarea')!;
    Object.defineProperty(navigator, 'onLine', { value: false, configurable: true });
    try {
      await ask(el, 'What is the refund policy?');
      await el.updateComplete;
      expect(shadow(el).querySelector('[part="offline"]')!.textContent).to.contain('You are offline');
      expect(shadow(el).querySelector('[part="offline"]')!.getAttribute('role')).to.equal('alert');
      expect(textarea.value).to.equal('What is the refund policy?');
      expect(shadow(el).querySelectorAll('.message--user')).to.have.length(0);
      expect((await fakeLog()).chat).to.have.length(0);
    } finally {
      delete (navigator as { onLine?: boolean }).onLine; // back to Navigator.prototype's getter
    }
    window.dispatchEvent(new Event('online'));
    await el.updateComplete;
    expect(shadow(el).querySelector('[part="offline"]')).to.equal(null);
    shadow(el).querySelector<HTMLButtonElement>('.send')!.click();
    await waitForAnswerEnd(el);
    expect(answerText(el)).to.equal(FULL_ANSWER);
    expect(textarea.value).to.equal('');
  });

  it('a connection refused before any response: the question stays with a Retry that sends the same message_id', async () => {
    const el = await createWidget();
    await openKeyword(el);
    await refuse(true);
    try {
      await ask(el, 'What is the refund policy?');
      await waitForAnswerEnd(el);
    } finally {
      await refuse(false);
    }
    const answer = lastAssistant(el)!;
    expect(answer.dataset.status).to.equal('error');
    expect(answer.querySelector('.message__error')!.textContent).to.contain('Could not reach the server');
    expect(shadow(el).querySelector('.message--user')!.textContent).to.equal('What is the refund policy?');
    const refused = (await fakeLog()).chat.length;
    answer.querySelector<HTMLButtonElement>('[part="retry-button"]')!.click();
    await waitUntil(() => lastAssistant(el)?.dataset.status === 'done', 'retry did not finish', { timeout: 10_000 });
    expect(answerText(el)).to.equal(FULL_ANSWER);
    const { chat } = await fakeLog();
    expect(chat).to.have.length(refused + 1); // the Retry, and nothing else
    expect(new Set(chat.map((c) => c.body.message_id)).size).to.equal(1);
  });
});
