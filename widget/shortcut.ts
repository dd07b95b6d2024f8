/**
 * The `shortcut` attribute: a key combination that opens the chat from anywhere on the page.
 *
 * Syntax: parts joined by `+`, modifiers first, the key last, case-insensitive:
 *   `mod`           ⌘ (Meta) on macOS and iOS, Ctrl elsewhere — what sites mean by "⌘K / Ctrl+K"
 *   `ctrl`, `meta` (or `cmd`), `alt` (or `option`), `shift`
 *   the key         one character (`k`, `/`, `.`) or a key name as in `KeyboardEvent.key` (`F1`, `Escape`)
 * Examples: `mod+k`, `ctrl+shift+k`, `/`. A value it cannot read (no key, an unknown modifier) is ignored.
 *
 * It lives beside the loader, not in controllers/: it must work before the chat UI is loaded, and the loader
 * may not import controllers/ (esbuild.config.mjs refuses to bundle them into it).
 */

export interface Shortcut {
  ctrl: boolean;
  meta: boolean;
  alt: boolean;
  shift: boolean;
  /** Lower-cased `KeyboardEvent.key`, e.g. `k`, `/`, `f1`. */
  key: string;
}

const MODIFIERS = ['ctrl', 'meta', 'alt', 'shift'] as const;
/** Per modifier: its ARIA name, its name for people, its Apple glyph. */
const NAMES = [
  ['Control', 'Ctrl', '⌃'],
  ['Meta', 'Meta', '⌘'],
  ['Alt', 'Alt', '⌥'],
  ['Shift', 'Shift', '⇧'],
];

/** Apple platforms, where `mod` is ⌘ (navigator.platform is deprecated but still the one every browser fills). */
export function isApple(): boolean {
  return /mac|iphone|ipad|ipod/i.test(navigator.platform);
}

/** `mod+k` → `{ ctrl: true, key: 'k', … }` (meta instead of ctrl on Apple platforms); null when unreadable. */
export function parseShortcut(value: string | null, apple = isApple()): Shortcut | null {
  // `+` alone, or as the last key (`ctrl++`), is the plus key itself.
  const parts =
    value
      ?.trim()
      .toLowerCase()
      .split(/\+(?!$)/) ?? [];
  const key = parts.pop();
  // One character, or a key name (`f1`, `escape`): `ctrl+` or `k+j` is a typo, not a key.
  if (!key || ([...key].length > 1 && !/^[a-z][a-z0-9]*$/.test(key))) return null;
  const shortcut: Shortcut = { ctrl: false, meta: false, alt: false, shift: false, key };
  for (const part of parts) {
    const modifier =
      part === 'mod' ? (apple ? 'meta' : 'ctrl') : part === 'cmd' ? 'meta' : part === 'option' ? 'alt' : part;
    if (!MODIFIERS.includes(modifier as never)) return null;
    shortcut[modifier as (typeof MODIFIERS)[number]] = true;
  }
  return shortcut;
}

/**
 * Whether `event` is `shortcut`. Letters and digits are also matched by their physical key (`event.code`), so
 * Alt+K on a Mac (which types "˚") or a non-Latin layout still counts. Shift is compared only for letters and
 * named keys: `?` or `/` may need Shift on one layout and not on another.
 */
export function matches(event: KeyboardEvent, shortcut: Shortcut): boolean {
  const { key } = shortcut;
  const alnum = /^[a-z0-9]$/.test(key);
  const punctuation = !alnum && [...key].length === 1;
  return (
    (event.key.toLowerCase() === key ||
      (alnum && event.code === (key > '9' ? `Key${key.toUpperCase()}` : `Digit${key}`))) &&
    MODIFIERS.every((m) => (punctuation && m === 'shift') || event[`${m}Key`] === shortcut[m])
  );
}

/** The ARIA form (`aria-keyshortcuts`): `Control+K`, `Meta+Shift+K`. */
export function ariaKeys(shortcut: Shortcut): string {
  return names(shortcut, 0, '+');
}

/** What a visitor reads: `⌘K` on Apple platforms (their convention), `Ctrl+K` elsewhere. */
export function displayKeys(shortcut: Shortcut, apple = isApple()): string {
  return apple ? names(shortcut, 2, '') : names(shortcut, 1, '+');
}

function names(shortcut: Shortcut, style: number, separator: string): string {
  const { key } = shortcut;
  const modifiers = MODIFIERS.flatMap((m, i) => (shortcut[m] ? [NAMES[i]![style]!] : []));
  return [...modifiers, key.charAt(0).toUpperCase() + key.slice(1)].join(separator);
}

/** Where the visitor is typing: a shortcut must never take their keystroke. */
export function isTyping(event: Event): boolean {
  const target = event.composedPath()[0] as HTMLInputElement;
  // Buttons, checkboxes and the like take no text: the shortcut still works from them.
  return (
    target.isContentEditable ||
    /^(TEXTAREA|SELECT)$/.test(target.tagName) ||
    (target.tagName === 'INPUT' && !/^(button|checkbox|color|file|image|radio|range|reset|submit)$/.test(target.type))
  );
}

/**
 * Listens on the document while its host is connected and its `shortcut` attribute is readable, and calls
 * `act` on a match — outside text fields only. The default action (a browser's own Ctrl+K, say) is prevented
 * only then: a keystroke the widget does not use keeps doing what it did.
 */
export class ShortcutListener {
  shortcut: Shortcut | null = null;
  private listening = false;

  constructor(private readonly act: () => void) {}

  /** Re-read the attribute's value; listens while it is readable and `connected`. */
  update(value: string | null, connected: boolean): void {
    this.shortcut = parseShortcut(value);
    const listen = connected && this.shortcut !== null;
    if (listen === this.listening) return;
    this.listening = listen;
    if (listen) document.addEventListener('keydown', this.onKeydown);
    else document.removeEventListener('keydown', this.onKeydown);
  }

  private readonly onKeydown = (event: KeyboardEvent): void => {
    if (!this.shortcut || event.defaultPrevented || event.isComposing || event.repeat || isTyping(event)) return;
    if (!matches(event, this.shortcut)) return;
    event.preventDefault();
    this.act();
  };
}
