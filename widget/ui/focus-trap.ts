/** Keyboard focus inside the open floating panel (a modal dialog on small screens, a non-modal one otherwise). */

const FOCUSABLE = 'button:not([disabled]), textarea:not([disabled]), a[href], [tabindex]:not([tabindex="-1"])';

/** Tab from the panel's last control goes to its first, Shift+Tab from the first to the last; focus outside comes in. */
export function trapFocus(event: KeyboardEvent, root: ShadowRoot): void {
  const panel = root.querySelector('.panel');
  const items = [...(panel?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? [])].filter(
    (el) => el.offsetParent !== null || el === root.activeElement,
  );
  if (!items.length) return;
  const first = items[0]!;
  const last = items[items.length - 1]!;
  const active = root.activeElement;
  if (event.shiftKey && (active === first || !panel?.contains(active))) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (active === last || !panel?.contains(active))) {
    event.preventDefault();
    first.focus();
  }
}
