/**
 * Visitor feedback in Chromium, against the fake API: 👍 / 👎 under answers and refusals (also
 * replayed from history, with the earlier rating pressed), a change of mind, the comment form after 👎
 * (Enter sends, Escape closes it and not the panel), a quiet failure with Retry, the typed `kb-feedback`
 * event, axe, and the XSS corpus typed as comments.
 */
import { expect, waitUntil } from '@open-wc/testing';
import type KbChat from '../kb-chat.component.ts';
import type { KbFeedbackDetail } from '../kb-chat.component.ts';
import {
  ask,
  createWidget,
  fakeLog,
  lastAssistant,
  openKeyword,
  resetFake,
  shadow,
  waitForAnswerEnd,
} from '../test/helpers.ts';
import { hasSharedData as sharedPresent } from '../test/fake-log.ts';

const key = (target: Element, k: string) =>
  target.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, composed: true, cancelable: true }));

/** The feedback block of the last answer or refusal. */
function feedbackOf(el: KbChat): HTMLElement {
  const all = shadow(el).querySelectorAll<HTMLElement>('[part="feedback"]');
  return all[all.length - 1]!;
}
const up = (el: KbChat) => feedbackOf(el).querySelector<HTMLButtonElement>('[part~="feedback-up"]')!;
const down = (el: KbChat) => feedbackOf(el).querySelector<HTMLButtonElement>('[part~="feedback-down"]')!;
const pressed = (el: KbChat) => [up(el).getAttribute('aria-pressed'), down(el).getAttribute('aria-pressed')];

/**
 * Waits until the fake server stored `count` ratings and, when `events` is given, until the page has
 * read those responses too: the server logs a rating before its response reaches the page, so on a busy
 * machine `kb-feedback` can still be on its way when the log already shows the rating.
 */
async function stored(count: number, events?: KbFeedbackDetail[]): Promise<void> {
  await waitUntil(
    async () => (await fakeLog()).feedback.filter((f) => f.status === 200).length >= count,
    `${count} feedback not stored`,
    { timeout: 5_000 },
  );
  if (events)
    await waitUntil(() => events.length >= count, `${count} kb-feedback events not fired`, { timeout: 5_000 });
}

async function answered(question = 'What is the refund policy?'): Promise<{ el: KbChat; events: KbFeedbackDetail[] }> {
  const el = await createWidget();
  const events: KbFeedbackDetail[] = [];
  el.addEventListener('kb-feedback', (event) => events.push(event.detail));
  await openKeyword(el);
  await ask(el, question);
  if (question.includes('weather'))
    await waitUntil(() => shadow(el).querySelector('.message--refusal [part="feedback"]'), 'no refusal', {
      timeout: 5_000,
    });
  else await waitForAnswerEnd(el);
  await el.updateComplete;
  return { el, events };
}

describe('feedback', () => {
  beforeEach(resetFake);

  it('rates an answer; a change of mind to 👎 with a comment re-posts; kb-feedback carries what was stored', async () => {
    const { el, events } = await answered();
    const root = shadow(el);
    expect(feedbackOf(el).closest('.message--assistant')).to.equal(lastAssistant(el));
    expect(up(el).getAttribute('aria-label')).to.equal('Helpful');
    expect(down(el).getAttribute('aria-label')).to.equal('Not helpful');
    expect(pressed(el)).to.deep.equal(['false', 'false']);

    up(el).click();
    await stored(1, events);
    await el.updateComplete;
    expect(pressed(el)).to.deep.equal(['true', 'false']);
    const answerId = (await fakeLog()).feedback[0]!.body.message_id;
    expect(events).to.deep.equal([{ message_id: answerId, rating: 1 }]);
    expect(feedbackOf(el).textContent).to.contain('Thanks for your feedback.');

    down(el).click(); // sent at once; the comment form opens with focus
    await stored(2, events);
    await el.updateComplete;
    const input = feedbackOf(el).querySelector<HTMLInputElement>('[part="feedback-input"]')!;
    expect(root.activeElement).to.equal(input);
    expect(input.getAttribute('aria-label')).to.equal('What was wrong? (optional)');
    input.value = '  It says 30 days, the page says 14.  ';
    input.form!.requestSubmit(); // what Enter in the field does
    await stored(3, events);
    await el.updateComplete;
    await el.updateComplete;
    expect(feedbackOf(el).querySelector('[part="feedback-form"]')).to.equal(null);
    expect(root.activeElement).to.equal(down(el)); // focus back where the visitor was
    expect(pressed(el)).to.deep.equal(['false', 'true']);
    const log = (await fakeLog()).feedback;
    expect(log.map((f) => f.body)).to.deep.equal([
      { message_id: answerId, rating: 1 },
      { message_id: answerId, rating: -1 },
      { message_id: answerId, rating: -1, comment: 'It says 30 days, the page says 14.' },
    ]);
    expect(events.at(-1)).to.deep.equal({
      message_id: answerId,
      rating: -1,
      comment: 'It says 30 days, the page says 14.',
    });
    expect(events).to.have.length(3);
  });

  it('Escape (or Skip) closes the comment form, not the panel; the 👎 stays sent without a comment', async () => {
    const { el, events } = await answered();
    down(el).click();
    await el.updateComplete;
    const input = feedbackOf(el).querySelector<HTMLInputElement>('input')!;
    input.value = 'never mind';
    key(input, 'Escape');
    await el.updateComplete;
    expect(el.open).to.equal(true);
    expect(feedbackOf(el).querySelector('[part="feedback-form"]')).to.equal(null);
    await stored(1, events);
    expect(events.map((e) => [e.rating, e.comment])).to.deep.equal([[-1, undefined]]);
    // 👎 again reopens the form without sending anything new; Skip closes it.
    down(el).click();
    await el.updateComplete;
    [...feedbackOf(el).querySelectorAll<HTMLButtonElement>('[part="feedback-form"] button')]
      .find((b) => b.textContent === 'Skip')!
      .click();
    await el.updateComplete;
    expect(feedbackOf(el).querySelector('[part="feedback-form"]')).to.equal(null);
    expect((await fakeLog()).feedback).to.have.length(1);
  });

  it('rates a refusal by the id the refusal carries', async () => {
    const { el, events } = await answered('What is the weather?');
    expect(feedbackOf(el).closest('.message--refusal')).to.not.equal(null);
    down(el).click();
    await stored(1, events);
    const [entry] = (await fakeLog()).feedback;
    expect(entry!.status).to.equal(200);
    expect(events).to.deep.equal([{ message_id: entry!.body.message_id, rating: -1 }]);
  });

  it('a failure is quiet but visible: "could not be sent" and Retry, which sends it again', async () => {
    const { el, events } = await answered();
    await fetch('/__fake/feedback-fail', { method: 'POST', body: JSON.stringify({ times: 1 }) });
    up(el).click();
    await waitUntil(() => feedbackOf(el).querySelector('[part="feedback-retry"]'), 'no retry shown', {
      timeout: 5_000,
    });
    expect(feedbackOf(el).textContent).to.contain('Your feedback could not be sent.');
    expect(lastAssistant(el)!.querySelector('[role="alert"]')).to.equal(null); // not an alarm: the answer is fine
    expect(events).to.deep.equal([]);
    expect(pressed(el)).to.deep.equal(['true', 'false']); // the choice stays visible
    feedbackOf(el).querySelector<HTMLButtonElement>('[part="feedback-retry"]')!.click();
    await stored(1, events);
    await el.updateComplete;
    expect(feedbackOf(el).querySelector('[part="feedback-retry"]')).to.equal(null);
    expect(events).to.have.length(1);
  });

  it('answers replayed from history can be rated, the earlier rating shown pressed', async () => {
    const { el } = await answered();
    up(el).click();
    await stored(1);
    const root = shadow(el);
    root.querySelector<HTMLButtonElement>('[part="new-chat-button"]')!.click();
    await el.updateComplete;
    root.querySelector<HTMLButtonElement>('[part="history-button"]')!.click();
    await waitUntil(() => root.querySelector('[part="session"]'), 'no sessions', { timeout: 5_000 });
    root.querySelector<HTMLButtonElement>('[part="session"]')!.click();
    await waitUntil(() => root.querySelector('[part="feedback"]'), 'history not opened', { timeout: 5_000 });
    await el.updateComplete;
    expect(pressed(el)).to.deep.equal(['true', 'false']);
    down(el).click();
    await stored(2);
    const log = (await fakeLog()).feedback;
    expect(log[1]!.body).to.deep.equal({ message_id: log[0]!.body.message_id, rating: -1 });
  });

  it('is accessible (axe): the buttons, the comment form open, the failure shown', async () => {
    const { el } = await answered();
    await Promise.all(
      shadow(el)
        .getAnimations()
        .map((a) => a.finished.catch(() => undefined)),
    );
    await expect(el).to.be.accessible();
    down(el).click();
    await stored(1);
    await el.updateComplete;
    await expect(el).to.be.accessible();
    await fetch('/__fake/feedback-fail', { method: 'POST', body: JSON.stringify({ times: 1 }) });
    up(el).click();
    await waitUntil(() => feedbackOf(el).querySelector('[part="feedback-retry"]'), 'no retry shown', {
      timeout: 5_000,
    });
    await expect(el).to.be.accessible();
  });

  it('XSS payloads typed as comments are sent as text and nothing executes (a tenth of ../shared/data/xss)', async function () {
    if (!(await sharedPresent('xss'))) this.skip();
    this.timeout(120_000);
    const { payloads } = (await (
      await fetch('/__fake/xss', { method: 'POST', body: JSON.stringify({ size: 150 }) })
    ).json()) as { payloads: string[] };
    const sample = payloads.filter((p, i) => i % 10 === 0 && p.trim() && p.trim().length <= 1000);
    const fired: string[] = [];
    const saved = { alert: window.alert, confirm: window.confirm, prompt: window.prompt };
    Object.assign(window, {
      alert: () => fired.push('alert'),
      confirm: () => fired.push('confirm'),
      prompt: () => fired.push('prompt'),
    });
    try {
      const { el } = await answered();
      const root = shadow(el);
      const added: string[] = [];
      new MutationObserver((records) => {
        for (const r of records)
          for (const n of r.addedNodes)
            if (n instanceof Element && !['DIV', 'FORM', 'INPUT', 'BUTTON', 'SPAN'].includes(n.tagName))
              added.push(n.tagName);
      }).observe(root, { childList: true, subtree: true });
      for (const [i, payload] of sample.entries()) {
        down(el).click();
        await el.updateComplete;
        const input = feedbackOf(el).querySelector<HTMLInputElement>('input')!;
        input.value = payload;
        input.form!.requestSubmit();
        await stored(i + 2);
      }
      await new Promise((r) => setTimeout(r, 200));
      const log = (await fakeLog()).feedback.filter((f) => f.body.comment !== undefined);
      // A one-line field: the browser drops line breaks from its value (HTML's value sanitization).
      expect(log.map((f) => f.body.comment)).to.deep.equal(sample.map((p) => p.replace(/[\r\n]/g, '').trim()));
      expect(added).to.deep.equal([]);
      expect(fired).to.deep.equal([]);
      expect(root.querySelectorAll('img, iframe, script, svg:not([aria-hidden])')).to.have.length(0);
    } finally {
      Object.assign(window, saved);
    }
  });
});
