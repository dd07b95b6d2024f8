/**
 * The loader's styles: the public `--kb-*` custom properties (defaults on :host), themes, placement and the
 * bubble. The chat panel's styles arrive with the chat UI (ui/chat-ui.styles.ts). Class names are private.
 * Below 640px the open panel is full screen, so the bubble is hidden: a tapped bubble stays :hover on touch
 * screens, its transform lifts it above the panel and it would swallow taps on Send (the header's × closes).
 */
export default `
:host {
  --kb-accent: #2563eb;
  --kb-accent-contrast: #ffffff;
  --kb-background: #ffffff;
  --kb-surface: #f3f4f6;
  --kb-foreground: #111827;
  --kb-muted: #4b5563;
  --kb-border: #d1d5db;
  --kb-error: #b91c1c;
  --kb-focus: #1d4ed8;
  --kb-radius: 12px;
  --kb-font: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
  --kb-font-size: 15px;
  --kb-panel-width: 380px;
  --kb-panel-height: 560px;
  --kb-z-index: 2147483000;
  --kb-offset-x: 20px;
  --kb-offset-y: 20px;
  position: fixed;
  inset-inline-end: var(--kb-offset-x);
  bottom: var(--kb-offset-y);
  z-index: var(--kb-z-index);
  font-family: var(--kb-font);
  font-size: var(--kb-font-size);
  line-height: 1.45;
  color: var(--kb-foreground);
  color-scheme: light;
}
:host([position='left']) { inset-inline-end: auto; inset-inline-start: var(--kb-offset-x); }
:host([mode='inline']) { position: relative; inset: auto; z-index: auto; display: block; }
:host([hidden]) { display: none; }
@media (prefers-color-scheme: dark) {
  :host(:not([theme='light'])) {
    --kb-accent: #60a5fa; --kb-accent-contrast: #0b1220; --kb-background: #111827; --kb-surface: #1f2937;
    --kb-foreground: #f3f4f6; --kb-muted: #cbd5e1; --kb-border: #4b5563; --kb-error: #fca5a5; --kb-focus: #93c5fd;
    color-scheme: dark;
  }
}
:host([theme='dark']) {
  --kb-accent: #60a5fa; --kb-accent-contrast: #0b1220; --kb-background: #111827; --kb-surface: #1f2937;
  --kb-foreground: #f3f4f6; --kb-muted: #cbd5e1; --kb-border: #4b5563; --kb-error: #fca5a5; --kb-focus: #93c5fd;
  color-scheme: dark;
}
button { font: inherit; cursor: pointer; }
:focus-visible { outline: 3px solid var(--kb-focus); outline-offset: 2px; }
.bubble {
  width: 56px; height: 56px; border: none; border-radius: 50%; display: grid; place-items: center;
  background: var(--kb-accent); color: var(--kb-accent-contrast); box-shadow: 0 4px 16px rgb(0 0 0 / 0.25);
  transition: transform 0.15s ease;
}
.bubble:hover { transform: scale(1.06); }
.bubble svg { width: 26px; height: 26px; }
:host([mode='inline']) .bubble { display: none; }
@media (max-width: 639px) { :host([open]) .bubble { display: none; } }
@media (prefers-reduced-motion: reduce) { .bubble { transition: none; } .bubble:hover { transform: none; } }
`;
