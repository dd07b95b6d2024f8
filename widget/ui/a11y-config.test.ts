/** Keyboard, live region, configuration, events, theming and RTL, in Chromium. */
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { emulateMedia, setViewport } from '@web/test-runner-commands';
import type KbChat from '../kb-chat.component.ts';
import {
  UI_URL,
  ask,
  createWidget,
  fakeLog,
  lastAssistant,
  openKeyword,
  resetFake,
  shadow,
  waitForAnswerEnd,
} from '../test/helpers.ts';

const key = (target: Element, k: string, init: KeyboardEventInit = {}) =>
  target.dispatchEvent(
    new KeyboardEvent('keydown', { key: k, bubbles: true, composed: true, cancelable: true, ...init }),
  );

describe('accessibility and configuration', () => {
  beforeEach(resetFake);

  it('Enter sends, Shift+Enter does not; the log is not live, one polite announcement per answer', async () => {
    const el = await createWidget();
    await openKeyword(el);
    const root = shadow(el);
    expect(root.querySelector('[role="log"]')!.getAttribute('aria-live')).to.equal('off');
    const textarea = root.querySelector('textarea')!;
    expect(root.activeElement).to.equal(textarea); // opening focuses the input
    textarea.value = 'What is the refund policy?';
    key(textarea, 'Enter', { shiftKey: true });
    expect((await fakeLog()).chat).to.have.length(0);
    const announcer = root.querySelector('[part="announcer"]')!;
    expect(announcer.getAttribute('aria-live')).to.equal('polite');
    const seen: string[] = [];
    new MutationObserver(() => announcer.textContent!.trim() && seen.push(announcer.textContent!.trim())).observe(
      announcer,
      {
        childList: true,
        subtree: true,
        characterData: true,
      },
    );
    key(textarea, 'Enter');
    await waitForAnswerEnd(el);
    await el.updateComplete;
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).to.deep.equal([
      'Answer: Refunds are accepted within 30 days of purchase. See also the warranty terms.',
    ]);
  });

  it('Esc closes and returns focus to the bubble; Tab stays inside the panel', async () => {
    const el = await createWidget();
    await openKeyword(el);
    const root = shadow(el);
    const panel = root.querySelector('.panel')!;
    const focusables = [...panel.querySelectorAll<HTMLElement>('button:not([disabled]), textarea, [tabindex="0"]')];
    focusables[focusables.length - 1]!.focus();
    key(root.activeElement!, 'Tab');
    expect(root.activeElement).to.equal(focusables[0]);
    key(root.activeElement!, 'Tab', { shiftKey: true });
    expect(root.activeElement).to.equal(focusables[focusables.length - 1]);
    key(root.activeElement!, 'Escape');
    await el.updateComplete;
    expect(el.open).to.equal(false);
    expect(root.activeElement).to.equal(root.querySelector('.bubble'));
  });

  it('is accessible (axe) closed, open and answered', async () => {
    const el = await createWidget();
    await expect(el).to.be.accessible();
    await openKeyword(el);
    // Let the panel's fade-in finish: axe measures contrast on what is painted.
    await Promise.all(
      shadow(el)
        .getAnimations()
        .map((a) => a.finished.catch(() => undefined)),
    );
    await expect(el).to.be.accessible();
    await ask(el, 'What is the refund policy?');
    await waitForAnswerEnd(el);
    await expect(el).to.be.accessible();
  });

  it('is accessible (axe) with code, a table, lists and related sources, also at phone width', async () => {
    const el = await createWidget();
    await openKeyword(el);
    await Promise.all(
      shadow(el)
        .getAnimations()
        .map((a) => a.finished.catch(() => undefined)),
    );
    await ask(el, 'Show me blocks');
    await waitForAnswerEnd(el);
    const answer = lastAssistant(el)!;
    expect(answer.querySelectorAll('pre, .table-scroll, ol, ul, [part="related"]').length).to.be.at.least(6);
    await expect(el).to.be.accessible();
    answer.querySelector<HTMLElement>('[part="related"] summary')!.click();
    answer.querySelector<HTMLButtonElement>('.code-block button')!.focus();
    await expect(el).to.be.accessible();
    try {
      await setViewport({ width: 360, height: 640 });
      await expect(el).to.be.accessible();
    } finally {
      await setViewport({ width: 800, height: 600 });
    }
  });

  it('on a phone the full-screen panel hides the bubble, so it cannot cover Send; Esc brings it back', async () => {
    try {
      await setViewport({ width: 375, height: 700 });
      const el = await createWidget();
      await openKeyword(el);
      const root = shadow(el);
      const bubble = root.querySelector<HTMLElement>('.bubble')!;
      expect(getComputedStyle(bubble).display).to.equal('none');
      const send = root.querySelector('.send')!.getBoundingClientRect();
      expect(root.elementFromPoint(send.x + send.width / 2, send.y + send.height / 2)).to.equal(
        root.querySelector('.send'),
      );
      key(root.querySelector('textarea')!, 'Escape');
      await el.updateComplete;
      expect(getComputedStyle(bubble).display).to.not.equal('none');
      expect(root.activeElement).to.equal(bubble);
    } finally {
      await setViewport({ width: 800, height: 600 });
    }
  });

  it('honours heading, greeting, placeholder, strings (i18n), theme, position, RTL and inline mode', async () => {
    const el = await fixture<KbChat>(html`<div dir="rtl" lang="ar">
      <kb-chat
        .uiUrl=${UI_URL}
        .embedderUrl=${new URL('./nope.js', location.href)}
        .strings=${{ send: 'أرسل', openChat: 'افتح الدردشة' }}
        heading="مساعدة"
        greeting="مرحبا!"
        placeholder="اكتب سؤالك"
        theme="dark"
        position="left"
        mode="inline"
      ></kb-chat>
    </div>`).then((div) => div.querySelector('kb-chat')!);
    await waitUntil(() => shadow(el).querySelector('.panel'), 'inline panel not rendered', { timeout: 10_000 });
    const root = shadow(el);
    expect(root.querySelector('.panel')!.getAttribute('role')).to.equal('region');
    expect(root.querySelector('.close')).to.equal(null);
    expect(getComputedStyle(root.querySelector('.bubble')!).display).to.equal('none');
    expect(root.querySelector('h2')!.textContent).to.equal('مساعدة');
    expect(root.querySelector('[part~="greeting"]')!.textContent).to.equal('مرحبا!');
    expect(root.querySelector('textarea')!.placeholder).to.equal('اكتب سؤالك');
    expect(root.querySelector('.send')!.textContent).to.equal('أرسل');
    expect(getComputedStyle(el).getPropertyValue('--kb-background').trim()).to.equal('#111827');
    expect(getComputedStyle(root.querySelector('.panel')!).direction).to.equal('rtl');
  });

  it("shows the site owner's greeting from /api/config, as text; the page's greeting attribute wins", async () => {
    const setGreeting = (greeting: string | null) =>
      fetch('/__fake/greeting', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ greeting }),
      });
    await setGreeting('Hi! <img src=x onerror="window.__pwned=1"> Ask me about refunds.');
    const el = await createWidget();
    await openKeyword(el);
    const root = shadow(el);
    await waitUntil(() => root.querySelector('[part~="greeting"]'), 'no greeting from the config', { timeout: 10_000 });
    const shown = root.querySelector('[part~="greeting"]')!;
    expect(shown.textContent).to.equal('Hi! <img src=x onerror="window.__pwned=1"> Ask me about refunds.');
    expect(shown.querySelector('img')).to.equal(null);
    await Promise.all(root.getAnimations().map((a) => a.finished.catch(() => undefined))); // axe measures what is painted
    await expect(el).to.be.accessible();

    const own = await createWidget('greeting="Welcome to the docs."');
    await openKeyword(own);
    await new Promise((r) => setTimeout(r, 100)); // the config has arrived by now
    await own.updateComplete;
    expect(shadow(own).querySelector('[part~="greeting"]')!.textContent).to.equal('Welcome to the docs.');
    await setGreeting(null);
  });

  it('uses the host page token (getToken) instead of the anonymous sign-in', async () => {
    const el = await createWidget();
    // The fake only accepts tokens it issued: get one the way a host page would have its own.
    const { access_token } = await (await fetch('/api/auth/anonymous', { method: 'POST' })).json();
    await resetFakeLogOnly();
    let calls = 0;
    el.getToken = async () => (calls++, access_token);
    await openKeyword(el);
    await ask(el, 'What is the refund policy?');
    await waitForAnswerEnd(el);
    expect(lastAssistant(el)!.dataset.status).to.equal('done');
    const log = await fakeLog();
    expect(log.auth).to.equal(0);
    expect(log.chat[0]!.token).to.equal(access_token);
    expect(calls).to.be.greaterThan(0);
  });

  it('respects prefers-reduced-motion: no panel animation, no bubble transition', async () => {
    const motion = async (reducedMotion: 'reduce' | 'no-preference') => {
      await emulateMedia({ reducedMotion });
      const el = await createWidget();
      await openKeyword(el);
      const root = shadow(el);
      // Read before removing the element: computed styles are live and empty once it is detached.
      const result = {
        animation: getComputedStyle(root.querySelector('[part="panel"]')!).animationName,
        transition: getComputedStyle(root.querySelector('[part="bubble"]')!).transitionProperty,
      };
      el.remove();
      return result;
    };
    try {
      const moving = await motion('no-preference');
      expect(moving.animation).to.not.equal('none');
      const still = await motion('reduce');
      expect(still.animation).to.equal('none');
      expect(still.transition).to.equal('none');
    } finally {
      await emulateMedia({ reducedMotion: 'no-preference' });
    }
  });

  it('starts open with the open attribute', async () => {
    const el = await fixture<KbChat>(
      html`<kb-chat open .uiUrl=${UI_URL} .embedderUrl=${new URL('./nope.js', location.href)}></kb-chat>`,
    );
    await waitUntil(() => shadow(el).querySelector('.panel'), 'not open', { timeout: 10_000 });
  });
});

async function resetFakeLogOnly(): Promise<void> {
  const token = Object.keys(localStorage);
  await fetch('/__fake/reset', { method: 'POST' });
  void token;
}
