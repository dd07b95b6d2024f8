/**
 * Follow-ups in the widget: a follow-up is embedded with the words of the question before it, the answer
 * shows what it was read as being about with "Ask as a new question", a complete question is embedded
 * alone, and the note comes back with a restored session.
 */
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import type KbChat from '../kb-chat.component.ts';
import {
  UI_URL,
  ask,
  createWidget,
  fakeLog,
  lastAssistant,
  openKeyword,
  openReady,
  resetFake,
  shadow,
  waitForAnswerEnd,
} from '../test/helpers.ts';

const note = (el: KbChat) => lastAssistant(el)?.querySelector('[part~="context-note"]') ?? null;
const same = (a: number[] | undefined, b: number[] | undefined) =>
  !!a && !!b && a.every((x, i) => Math.abs(x - b[i]!) < 1e-6);

describe('follow-ups', () => {
  beforeEach(resetFake);

  it('keyword mode: shows "About: …" and "Ask as a new question" re-asks without context', async () => {
    const el = await createWidget();
    await openKeyword(el);
    await ask(el, 'What is the evidence threshold?');
    await waitForAnswerEnd(el);
    expect(note(el)).to.equal(null);
    await ask(el, 'How do I change it?');
    await waitForAnswerEnd(el);
    expect(note(el)!.textContent).to.contain('About: evidence threshold');
    const second = (await fakeLog()).chat[1]!;
    expect(second.body.session_id).to.be.a('string');
    expect(second.body).not.to.have.property('context');

    note(el)!.querySelector<HTMLButtonElement>('[part="ask-as-new"]')!.click();
    await waitUntil(() => shadow(el).querySelectorAll('.message--user').length === 3, 'not re-asked', {
      timeout: 5_000,
    });
    await waitForAnswerEnd(el);
    const third = (await fakeLog()).chat[2]!;
    expect(third.body.message).to.equal('How do I change it?');
    expect((third.body as { context?: boolean }).context).to.equal(false);
    expect(note(el)).to.equal(null);
  });

  it('with the model: a follow-up is embedded with the earlier words, a complete question alone (topic switch)', async () => {
    const el = await createWidget();
    await openReady(el);
    await ask(el, 'What is the evidence threshold?');
    await waitForAnswerEnd(el);
    await ask(el, 'How do I change it?');
    await waitForAnswerEnd(el);
    await ask(el, 'Which browsers are supported?');
    await waitForAnswerEnd(el);
    expect(note(el)).to.equal(null);
    // The same two questions asked as new ones: the follow-up's embedding differs, the switch's does not.
    shadow(el).querySelector<HTMLButtonElement>('[part="new-chat-button"]')!.click();
    await el.updateComplete;
    await ask(el, 'How do I change it?');
    await waitForAnswerEnd(el);
    await ask(el, 'Which browsers are supported?');
    await waitForAnswerEnd(el);
    const chat = (await fakeLog()).chat;
    expect(chat).to.have.length(5);
    expect(chat[1]!.body.embedding).to.have.length(384);
    expect(same(chat[1]!.body.embedding, chat[3]!.body.embedding)).to.equal(false);
    expect(same(chat[2]!.body.embedding, chat[4]!.body.embedding)).to.equal(true);
  });

  it('a restored session shows the note again and continues the conversation in it', async () => {
    const el = await createWidget();
    await openKeyword(el);
    await ask(el, 'What is the evidence threshold?');
    await waitForAnswerEnd(el);
    await ask(el, 'How do I change it?');
    await waitForAnswerEnd(el);
    el.remove();
    const again = await fixture<KbChat>(
      html`<kb-chat .uiUrl=${UI_URL} .embedderUrl=${new URL('./nope.js', location.href)}></kb-chat>`,
    );
    shadow(again).querySelector<HTMLButtonElement>('.bubble')!.click();
    await waitUntil(
      () => shadow(again).querySelectorAll('.message--assistant[data-status="done"]').length === 2,
      'not restored',
      { timeout: 10_000 },
    );
    expect(note(again)!.textContent).to.contain('About: evidence threshold');
    await ask(again, 'What about the default?');
    await waitForAnswerEnd(again);
    const chat = (await fakeLog()).chat;
    expect(chat[2]!.body.session_id).to.equal(chat[1]!.body.session_id);
    expect(note(again)!.textContent).to.contain('About: change it');
  });
});
