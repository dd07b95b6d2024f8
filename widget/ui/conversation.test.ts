/**
 * A refusal that leads somewhere and a first screen that invites: "Rephrase your question" and "Contact
 * support" are actions (never sent), `kb-escalate` comes first and can be cancelled, the closest pages are
 * listed as pages that may not answer, and starter questions fill the empty panel.
 */
import { expect, waitUntil } from '@open-wc/testing';
import type KbChat from '../kb-chat.component.ts';
import type { KbEscalateDetail } from '../kb-chat.component.ts';
import { ask, createWidget, fakeLog, openKeyword, resetFake, shadow } from '../test/helpers.ts';

const QUESTION = 'Where can I get lunch & coffee?';

/** window.open, recorded instead of opening anything. */
let opened: [string, string | undefined][] = [];
const realOpen = window.open;
beforeEach(() => {
  opened = [];
  window.open = ((url: string, target?: string) => (opened.push([url, target]), null)) as typeof window.open;
});
afterEach(() => {
  window.open = realOpen;
});

async function refused(attributes = ''): Promise<KbChat> {
  const el = await createWidget(attributes);
  await openKeyword(el);
  await ask(el, QUESTION);
  await waitUntil(() => shadow(el).querySelector('.message--refusal'), 'no refusal', { timeout: 5_000 });
  await el.updateComplete;
  return el;
}
/** The panel's fade-in finished: axe measures contrast on what is painted. */
const painted = (el: KbChat) =>
  Promise.all(
    shadow(el)
      .getAnimations()
      .map((a) => a.finished.catch(() => undefined)),
  );
const chip = (el: KbChat, part: string) =>
  shadow(el).querySelector<HTMLButtonElement>(`.message--refusal [part~="${part}"]`);
const setConversation = (settings: object) =>
  fetch('/__fake/conversation', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(settings),
  });

describe('a refusal that leads somewhere', () => {
  beforeEach(resetFake);

  it('is accessible with its actions and closest pages', async () => {
    const el = await refused('support-url="mailto:help@example.com"');
    await painted(el);
    await expect(el).to.be.accessible();
  });

  it('"Rephrase your question" puts the question back into the box, selected and focused, and sends nothing', async () => {
    const el = await refused();
    const sent = (await fakeLog()).chat.length;
    chip(el, 'rephrase')!.click();
    await el.updateComplete;
    const textarea = shadow(el).querySelector('textarea')!;
    expect(textarea.value).to.equal(QUESTION);
    expect(shadow(el).activeElement).to.equal(textarea);
    expect([textarea.selectionStart, textarea.selectionEnd]).to.deep.equal([0, QUESTION.length]);
    await new Promise((r) => setTimeout(r, 100));
    expect((await fakeLog()).chat.length).to.equal(sent);
  });

  it('"Contact support" opens a mailto: address with the question and the page in subject and body', async () => {
    const el = await refused('support-url="mailto:help@example.com"');
    const events: KbEscalateDetail[] = [];
    document.addEventListener('kb-escalate', (e) => events.push(e.detail), { once: true });
    const sent = (await fakeLog()).chat.length;
    chip(el, 'contact-support')!.click();
    expect(opened).to.have.length(1);
    const [href, target] = opened[0]!;
    expect(target).to.equal('_self');
    const url = new URL(href);
    expect(url.protocol).to.equal('mailto:');
    expect(url.pathname).to.equal('help@example.com');
    expect(url.searchParams.get('subject')).to.contain(QUESTION);
    expect(url.searchParams.get('body')).to.contain(QUESTION).and.to.contain(location.href);
    // The event came first, bubbling out of the shadow root, with the conversation so far.
    expect(events).to.have.length(1);
    expect(events[0]).to.include({ question: QUESTION, pageUrl: location.href, href });
    expect(events[0]!.turns.map((t) => t.role)).to.deep.equal(['user', 'assistant']);
    expect(events[0]!.turns[1]!.refused).to.equal(true);
    expect((await fakeLog()).chat.length).to.equal(sent); // nothing sent as a question
  });

  it('"Contact support" opens an https: address in a new tab with {question} replaced by the encoded question', async () => {
    const el = await refused('support-url="https://help.example.com/new?q={question}"');
    chip(el, 'contact-support')!.click();
    expect(opened).to.deep.equal([[`https://help.example.com/new?q=${encodeURIComponent(QUESTION)}`, '_blank']]);
  });

  it("takes the console's support_url from /api/config; the attribute wins", async () => {
    await setConversation({ support_url: 'https://owner.example.com/help' });
    const el = await refused();
    await waitUntil(() => chip(el, 'contact-support'), 'no chip from the config', { timeout: 5_000 });
    chip(el, 'contact-support')!.click();
    el.setAttribute('support-url', 'mailto:page@example.com');
    await el.updateComplete;
    chip(el, 'contact-support')!.click();
    expect(opened.map(([url]) => url.split('?')[0])).to.deep.equal([
      'https://owner.example.com/help',
      'mailto:page@example.com',
    ]);
  });

  it('opens nothing when a kb-escalate listener cancels it, which also shows the chip without an address', async () => {
    const el = await createWidget();
    let detail: KbEscalateDetail | undefined;
    el.addEventListener('kb-escalate', (event) => {
      event.preventDefault(); // the host opens its own help desk
      detail = event.detail;
    });
    await openKeyword(el);
    await ask(el, QUESTION);
    await waitUntil(() => chip(el, 'contact-support'), 'no chip', { timeout: 5_000 });
    chip(el, 'contact-support')!.click();
    expect(detail?.question).to.equal(QUESTION);
    expect(opened).to.deep.equal([]);

    const withAddress = await refused('support-url="mailto:help@example.com"');
    withAddress.addEventListener('kb-escalate', (event) => event.preventDefault());
    chip(withAddress, 'contact-support')!.click();
    expect(opened).to.deep.equal([]);
  });

  it('hides "Contact support" with no address and no listener, or an address that is not https: or mailto:', async () => {
    for (const attributes of ['', 'support-url="javascript:alert(1)"', 'support-url="http://help.example.com"']) {
      const el = await refused(attributes);
      // Booleans: a failing match on an element would make the runner serialise a shadow tree.
      expect(chip(el, 'rephrase') !== null, attributes).to.equal(true);
      expect(chip(el, 'contact-support') === null, attributes).to.equal(true);
    }
  });

  it('lists the closest pages as text, labelled as not answering, never linking javascript:', async () => {
    const el = await refused();
    const block = shadow(el).querySelector('[part="closest-pages"]')!;
    expect(block.textContent).to.contain('Closest pages (they may not answer this)');
    const links = [...block.querySelectorAll<HTMLAnchorElement>('a')];
    expect(links.map((a) => a.href)).to.deep.equal(['https://docs.example.com/hours']);
    expect(block.textContent).to.contain('Menu <b>bold</b>');
    expect(block.querySelector('b')).to.equal(null);
  });
});

describe('starter questions', () => {
  beforeEach(resetFake);

  it('shows the starters attribute as chips in the empty panel, sends one when clicked, and is accessible', async () => {
    const el = await createWidget();
    el.setAttribute('starters', JSON.stringify(['How do refunds work?', '<img src=x onerror=alert(1)>']));
    await openKeyword(el);
    const chips = () => [...shadow(el).querySelectorAll<HTMLButtonElement>('[part="starter"]')];
    expect(chips().map((c) => c.textContent)).to.deep.equal(['How do refunds work?', '<img src=x onerror=alert(1)>']);
    expect(shadow(el).querySelector('[part="starters"] img')).to.equal(null);
    await painted(el);
    await expect(el).to.be.accessible();
    chips()[0]!.click();
    await waitUntil(async () => (await fakeLog()).chat.length === 1, 'not sent', { timeout: 5_000 });
    expect((await fakeLog()).chat[0]!.body.message).to.equal('How do refunds work?');
    await el.updateComplete;
    expect(chips()).to.have.length(0); // the panel is no longer empty
  });

  it("shows the console's starters from /api/config (at most 4); the attribute wins", async () => {
    await setConversation({ starters: ['One?', 'Two?', 'Three?', 'Four?', 'Five?'] });
    const el = await createWidget();
    await openKeyword(el);
    const labels = () => [...shadow(el).querySelectorAll('[part="starter"]')].map((c) => c.textContent);
    await waitUntil(() => labels().length > 0, 'no starters from the config', { timeout: 5_000 });
    expect(labels()).to.deep.equal(['One?', 'Two?', 'Three?', 'Four?']);
    el.setAttribute('starters', '["Mine?"]');
    await el.updateComplete;
    expect(labels()).to.deep.equal(['Mine?']);
  });

  it('shows none when none is set', async () => {
    const el = await createWidget();
    await openKeyword(el);
    await new Promise((r) => setTimeout(r, 200));
    expect(shadow(el).querySelector('[part="starters"]')).to.equal(null);
  });
});
