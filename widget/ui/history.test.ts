/** Chat history: sessions view, open a past session, continue it, new chat, reload. */
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import type KbChat from '../kb-chat.component.ts';
import {
  UI_URL,
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

/** The fake server's record of this visitor's sessions, read with the token the widget stored. */
function token(): string {
  return (JSON.parse(sessionStorage.getItem(`kb-chat:token:${location.origin}`)!) as { access_token: string })
    .access_token;
}
async function serverSessions(): Promise<{ id: string; title: string }[]> {
  const res = await fetch('/api/sessions', { headers: { Authorization: `Bearer ${token()}` } });
  return ((await res.json()) as { sessions: { id: string; title: string }[] }).sessions;
}
async function serverSession(id: string): Promise<{ messages: { role: string; content: string }[] }> {
  return (await fetch(`/api/sessions/${id}`, { headers: { Authorization: `Bearer ${token()}` } })).json() as Promise<{
    messages: { role: string; content: string }[];
  }>;
}

describe('history', () => {
  beforeEach(resetFake);

  it('lists sessions newest first, opens one with its citations, continues it; New chat starts over', async () => {
    const el = await createWidget();
    await openKeyword(el);
    await ask(el, 'What is the refund policy?');
    await waitForAnswerEnd(el);
    const root = shadow(el);
    root.querySelector<HTMLButtonElement>('[part="new-chat-button"]')!.click();
    await el.updateComplete;
    expect(root.querySelectorAll('.message')).to.have.length(0);
    await new Promise((r) => setTimeout(r, 20));
    await ask(el, 'What is the weather?');
    await waitUntil(() => root.querySelector('.message--refusal'), 'no refusal', { timeout: 5_000 });

    root.querySelector<HTMLButtonElement>('[part="history-button"]')!.click();
    await waitUntil(() => root.querySelectorAll('[part="session"]').length === 2, 'no sessions', { timeout: 5_000 });
    const titles = [...root.querySelectorAll('.session__title')].map((t) => t.textContent);
    expect(titles).to.deep.equal(['What is the weather?', 'What is the refund policy?']);

    root.querySelectorAll<HTMLButtonElement>('[part="session"]')[1]!.click();
    await waitUntil(() => lastAssistant(el), 'session not opened', { timeout: 5_000 });
    await el.updateComplete;
    expect(root.querySelector('.message--user')!.textContent).to.equal('What is the refund policy?');
    expect(answerText(el)).to.equal(
      'Refunds are accepted within 30 days of purchase [1]. See also the warranty terms [2].',
    );
    expect(lastAssistant(el)!.querySelectorAll('[part="source-link"]')).to.have.length(2);

    await ask(el, 'And the warranty?');
    await waitForAnswerEnd(el);
    // Checked against the server's record, not the widget's own state: the question went to the session that
    // was opened, and the server now holds both turns of it, in order.
    const server = await serverSessions();
    const opened = server.find((session) => session.title === 'What is the refund policy?')!;
    expect((await fakeLog()).chat[2]!.body.session_id).to.equal(opened.id);
    const record = await serverSession(opened.id);
    expect(record.messages.map((m) => [m.role, m.content])).to.deep.equal([
      ['user', 'What is the refund policy?'],
      ['assistant', 'Refunds are accepted within **30 days** of purchase [1]. See also the warranty terms [2].'],
      ['user', 'And the warranty?'],
      ['assistant', 'Refunds are accepted within **30 days** of purchase [1]. See also the warranty terms [2].'],
    ]);
    expect(root.querySelectorAll('.message--user')).to.have.length(2);
  });

  it('restores the current session after a page reload', async () => {
    const el = await createWidget();
    await openKeyword(el);
    await ask(el, 'What is the refund policy?');
    await waitForAnswerEnd(el);
    el.remove();
    // A new element = a reloaded page in the same tab: token and current session come from sessionStorage.
    const again = await fixture<KbChat>(
      html`<kb-chat .uiUrl=${UI_URL} .embedderUrl=${new URL('./nope.js', location.href)}></kb-chat>`,
    );
    shadow(again).querySelector<HTMLButtonElement>('.bubble')!.click();
    await waitUntil(() => shadow(again).querySelector('.message--assistant[data-status="done"]'), 'not restored', {
      timeout: 10_000,
    });
    expect(shadow(again).querySelector('.message--user')!.textContent).to.equal('What is the refund policy?');
  });
});
