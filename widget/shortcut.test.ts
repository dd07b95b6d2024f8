/**
 * The `shortcut` attribute in Chromium: the syntax, then both modes — it opens the panel (floating) or focuses
 * the question box (inline) from the page, never from a field the visitor types in, not at all without the
 * attribute, and prevents the browser's default only when it acts. No model is needed: the worker URL points
 * nowhere, so the chat runs in keyword mode and the tests stay fast.
 */
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import type KbChat from './kb-chat.component.ts';
import { ariaKeys, displayKeys, matches, parseShortcut } from './shortcut.ts';
import { UI_URL, resetFake, shadow } from './test/helpers.ts';

const NO_WORKER = new URL('./no-such-worker.js', location.href);

async function widget(attributes: Record<string, string>): Promise<KbChat> {
  const el = await fixture<KbChat>(html`<div>
    <input id="field" aria-label="Search" /><textarea id="notes" aria-label="Notes"></textarea>
    <div id="editor" contenteditable="true" aria-label="Editor" role="textbox"></div><button id="plain">Plain</button>
    <kb-chat .uiUrl=${UI_URL} .embedderUrl=${NO_WORKER}></kb-chat>
  </div>`).then((wrapper) => wrapper.querySelector('kb-chat')!);
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  return el;
}

/** Press `key` (Ctrl held unless told otherwise) on `target`; returns whether the default was prevented. */
function press(target: Element | Document, key = 'k', init: KeyboardEventInit = { ctrlKey: true }): boolean {
  const event = new KeyboardEvent('keydown', {
    key,
    code: `Key${key.toUpperCase()}`,
    bubbles: true,
    composed: true,
    cancelable: true,
    ...init,
  });
  target.dispatchEvent(event);
  return event.defaultPrevented;
}

const field = (id: string) => document.getElementById(id)!;
const textarea = (el: KbChat) => shadow(el).querySelector('textarea');
const boxFocused = (el: KbChat) => textarea(el) !== null && shadow(el).activeElement === textarea(el);

describe('shortcut syntax', () => {
  it('reads mod as ⌘ on Apple platforms and Ctrl elsewhere, and refuses what it cannot read', () => {
    expect(parseShortcut('mod+k', false)).to.deep.equal({
      ctrl: true,
      meta: false,
      alt: false,
      shift: false,
      key: 'k',
    });
    expect(parseShortcut('Mod+K', true)).to.deep.equal({ ctrl: false, meta: true, alt: false, shift: false, key: 'k' });
    expect(parseShortcut('ctrl+shift+k', false)).to.include({ ctrl: true, shift: true, key: 'k' });
    expect(parseShortcut('/', false)).to.include({ ctrl: false, key: '/' });
    expect(parseShortcut('ctrl++', false)).to.include({ ctrl: true, key: '+' });
    for (const bad of [null, '', 'hyper+k', 'ctrl+', 'k+j'])
      expect(parseShortcut(bad, false), String(bad)).to.equal(null);
  });

  it('names the keys for ARIA and for people', () => {
    expect(ariaKeys(parseShortcut('mod+k', false)!)).to.equal('Control+K');
    expect(ariaKeys(parseShortcut('mod+shift+k', true)!)).to.equal('Meta+Shift+K');
    expect(displayKeys(parseShortcut('mod+k', false)!, false)).to.equal('Ctrl+K');
    expect(displayKeys(parseShortcut('mod+k', true)!, true)).to.equal('⌘K');
  });

  it('matches modifiers exactly, letters by their physical key too, and punctuation whatever Shift', () => {
    const ctrlK = parseShortcut('ctrl+k', false)!;
    const key = (init: KeyboardEventInit) => new KeyboardEvent('keydown', init);
    expect(matches(key({ key: 'k', ctrlKey: true }), ctrlK)).to.equal(true);
    expect(matches(key({ key: 'K', ctrlKey: true }), ctrlK)).to.equal(true);
    expect(matches(key({ key: 'л', code: 'KeyK', ctrlKey: true }), ctrlK)).to.equal(true); // Russian layout
    expect(matches(key({ key: 'k' }), ctrlK)).to.equal(false);
    expect(matches(key({ key: 'k', ctrlKey: true, shiftKey: true }), ctrlK)).to.equal(false);
    expect(matches(key({ key: 'k', ctrlKey: true, altKey: true }), ctrlK)).to.equal(false);
    expect(matches(key({ key: '/', shiftKey: true }), parseShortcut('/', false)!)).to.equal(true);
  });
});

describe('<kb-chat shortcut> floating', () => {
  beforeEach(resetFake);

  it('is off by default: Ctrl+K does nothing and keeps its default', async () => {
    const el = await widget({});
    expect(press(document.body)).to.equal(false);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(el.open).to.equal(false);
    expect(shadow(el).querySelector('.bubble')!.hasAttribute('aria-keyshortcuts')).to.equal(false);
  });

  it('opens the panel from the page, focuses the question box, and says the shortcut to screen readers', async () => {
    const el = await widget({ shortcut: 'mod+k' });
    const bubble = shadow(el).querySelector('.bubble')!;
    expect(bubble.getAttribute('aria-keyshortcuts')).to.equal('Control+K'); // Linux: mod is Ctrl
    expect(shadow(el).getElementById(bubble.getAttribute('aria-describedby')!)!.textContent).to.equal(
      'Keyboard shortcut: Ctrl+K',
    );
    await expect(el).to.be.accessible();

    field('plain').focus();
    const opened = new Promise((resolve) => el.addEventListener('kb-open', resolve, { once: true }));
    expect(press(field('plain'))).to.equal(true); // from a button: it acts, so the default is prevented
    await opened;
    await waitUntil(() => boxFocused(el), 'the question box did not take focus');
    expect(textarea(el)!.getAttribute('aria-keyshortcuts')).to.equal('Control+K');
    // Let the panel's fade-in finish: axe measures contrast on what is painted.
    await Promise.all(
      shadow(el)
        .getAnimations()
        .map((a) => a.finished.catch(() => undefined)),
    );
    await expect(el).to.be.accessible();

    // Open already, focus elsewhere on the page: the shortcut brings the visitor back to the box.
    field('plain').focus();
    expect(press(document.body)).to.equal(true);
    await waitUntil(() => boxFocused(el), 'the question box did not take focus again');
    expect(el.open).to.equal(true);
  });

  it('is ignored while the visitor types in another field, which keeps its keystroke; Escape still closes', async () => {
    const el = await widget({ shortcut: 'mod+k' });
    for (const id of ['field', 'notes', 'editor']) {
      field(id).focus();
      expect(press(field(id)), id).to.equal(false);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(el.open).to.equal(false);
    // Other keys and other combinations are left alone.
    expect(press(document.body, 'k', {})).to.equal(false);
    expect(press(document.body, 'j')).to.equal(false);

    expect(press(document.body)).to.equal(true);
    await waitUntil(() => boxFocused(el), 'not opened');
    // In its own question box the shortcut is typing too; Escape is the panel's and still closes it.
    expect(press(textarea(el)!)).to.equal(false);
    textarea(el)!.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true, cancelable: true }),
    );
    await waitUntil(() => !el.open, 'Escape did not close the panel');
  });

  it('stops listening when the attribute is removed or the element leaves the page', async () => {
    const el = await widget({ shortcut: 'mod+k' });
    el.removeAttribute('shortcut');
    expect(press(document.body)).to.equal(false);
    expect(shadow(el).querySelector('.bubble')!.hasAttribute('aria-describedby')).to.equal(false);
    el.shortcut = 'alt+/';
    el.remove();
    expect(press(document.body, '/', { altKey: true })).to.equal(false);
    expect(el.open).to.equal(false);
  });
});

describe('<kb-chat shortcut mode="inline">', () => {
  beforeEach(resetFake);

  it('focuses the question box from the page, not from another field, and only with the attribute', async () => {
    const plain = await widget({ mode: 'inline' });
    await waitUntil(() => textarea(plain), 'inline panel not rendered');
    field('plain').focus();
    expect(press(document.body)).to.equal(false);
    expect(shadow(plain).activeElement).to.equal(null);
    plain.parentElement!.remove();

    const el = await widget({ mode: 'inline', shortcut: 'mod+k' });
    await waitUntil(() => textarea(el), 'inline panel not rendered');
    await el.updateComplete;
    expect(textarea(el)!.getAttribute('aria-keyshortcuts')).to.equal('Control+K');
    await expect(el).to.be.accessible();

    field('field').focus();
    expect(press(field('field'))).to.equal(false);
    expect(document.activeElement).to.equal(field('field'));

    field('plain').focus();
    expect(press(field('plain'))).to.equal(true);
    await waitUntil(() => boxFocused(el), 'the inline question box did not take focus');
    expect(el.open).to.equal(false); // inline has no panel to open
  });
});
