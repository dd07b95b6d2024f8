/**
 * Styles of the chat panel, added to the loader's shadow root with the chat UI. They use the `--kb-*`
 * properties defined on :host by the loader; logical properties (inline-start/end) mirror the layout in RTL.
 * Code in answers never wraps: a long line scrolls inside its block and the panel keeps its width. In table
 * cells words stay whole (a message otherwise breaks anywhere), so a wide table scrolls in its container
 * instead of shredding its text.
 */
export default `
.panel {
  position: absolute; inset-inline-end: 0; bottom: 72px;
  width: min(var(--kb-panel-width), calc(100vw - 2 * var(--kb-offset-x)));
  height: min(var(--kb-panel-height), calc(100dvh - 120px));
  display: flex; flex-direction: column; box-sizing: border-box;
  background: var(--kb-background); color: var(--kb-foreground);
  border: 1px solid var(--kb-border); border-radius: var(--kb-radius);
  box-shadow: 0 12px 40px rgb(0 0 0 / 0.25); overflow: hidden;
  animation: kb-in 0.16s ease-out;
}
:host([position='left']) .panel { inset-inline-end: auto; inset-inline-start: 0; }
:host([mode='inline']) .panel { position: relative; inset: auto; width: 100%; height: var(--kb-panel-height); box-shadow: none; animation: none; }
@keyframes kb-in { from { opacity: 0; transform: translateY(8px); } }
@media (max-width: 639px) {
  :host(:not([mode='inline'])) .panel { position: fixed; inset: 0; width: 100vw; height: 100dvh; border-radius: 0; border: 0; }
  textarea { font-size: 16px !important; }
}
.header { display: flex; align-items: center; gap: 8px; padding: 10px 12px 10px 16px; background: var(--kb-accent); color: var(--kb-accent-contrast); }
/* The title is never cut: it wraps (a long heading takes two lines) instead of ending in an ellipsis. */
.header h2 { margin: 0; font-size: 16px; font-weight: 600; flex: 1; min-width: 0; overflow-wrap: anywhere; }
.header__actions { display: flex; gap: 2px; flex-shrink: 0; }
.header__button { border: 1px solid transparent; background: transparent; color: inherit; border-radius: 6px; }
.header__button:hover { border-color: currentColor; }
.header :focus-visible { outline-color: var(--kb-accent-contrast); }
.icon-button { position: relative; display: grid; place-items: center; width: 32px; height: 32px; padding: 0; }
/* The button's name as a tooltip, on hover and on keyboard focus (ui/icon-button.ts). */
.icon-button::after {
  content: attr(data-tooltip); position: absolute; top: calc(100% + 6px); inset-inline-end: 0; z-index: 2;
  white-space: nowrap; padding: 3px 8px; border-radius: 4px; font-size: 12px; font-weight: 400;
  background: var(--kb-foreground); color: var(--kb-background); opacity: 0; pointer-events: none; transition: opacity 0.1s;
}
.icon-button:hover::after, .icon-button:focus-visible::after { opacity: 1; transition-delay: 0.3s; }
@media (prefers-reduced-motion: reduce) { .icon-button::after { transition: none; } }
.messages { flex: 1; overflow-y: auto; padding: 12px 16px; display: flex; flex-direction: column; gap: 10px; }
.turn { display: flex; flex-direction: column; }
.message { max-width: 90%; padding: 8px 12px; border-radius: var(--kb-radius); overflow-wrap: anywhere; position: relative; }
.message--user { align-self: flex-end; background: var(--kb-accent); color: var(--kb-accent-contrast); white-space: pre-wrap; }
.message--assistant, .message--refusal { align-self: flex-start; background: var(--kb-surface); }
.markdown > :first-child, .source__passage > div > :first-child { margin-top: 0; }
.markdown > :last-child, .source__passage > div > :last-child { margin-bottom: 0; }
.markdown p { margin: 8px 0; }
.markdown ul, .markdown ol { margin: 8px 0; padding-inline-start: 22px; }
.markdown li + li { margin-top: 3px; }
.markdown li > p, .markdown li > .code-block { margin: 4px 0; }
.markdown p.cite-line { margin-top: -4px; }
.markdown code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, 'Liberation Mono', monospace; font-size: 0.9em; }
.markdown :not(pre) > code { padding: 0 3px; border-radius: 4px; background: var(--kb-background); }
.code-block { margin: 8px 0; border: 1px solid var(--kb-border); border-radius: 6px; background: var(--kb-background); }
.code-block__copy {
  display: block; margin-inline-start: auto; padding: 2px 8px; border: 0; border-bottom-left-radius: 6px; background: none;
  color: var(--kb-foreground); font-size: 12px; text-decoration: underline;
}
.markdown pre {
  margin: 0; padding: 2px 10px 8px; overflow-x: auto; white-space: pre; overflow-wrap: normal; word-break: normal;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, 'Liberation Mono', monospace; font-size: 13px; line-height: 1.45; tab-size: 4;
}
.markdown pre code { font-size: inherit; }
.table-scroll { margin: 8px 0; max-width: 100%; overflow-x: auto; }
.markdown table { border-collapse: collapse; font-size: 13px; }
.markdown th, .markdown td { border: 1px solid var(--kb-border); padding: 3px 6px; text-align: start; vertical-align: top; overflow-wrap: normal; }
.markdown th { background: var(--kb-background); }
.markdown blockquote { margin: 0; padding-inline-start: 10px; border-inline-start: 3px solid var(--kb-border); }
.message a { color: inherit; text-decoration: underline; }
.message--assistant a { color: var(--kb-accent-link, var(--kb-foreground)); }
.cite { position: relative; display: inline-block; }
.cite__badge {
  min-width: 1.5em; padding: 0 4px; margin: 0 1px; border: 1px solid var(--kb-accent); border-radius: 999px;
  background: var(--kb-background); color: var(--kb-foreground); font-size: 11px; line-height: 1.5; vertical-align: super;
}
.cite__preview {
  display: none; position: absolute; z-index: 2; bottom: calc(100% + 4px); inset-inline-start: -8px; width: max-content; max-width: 240px;
  padding: 6px 8px; border: 1px solid var(--kb-border); border-radius: 8px; background: var(--kb-background); color: var(--kb-foreground);
  box-shadow: 0 4px 12px rgb(0 0 0 / 0.2); font-size: 12px; font-weight: normal;
}
.cite:hover .cite__preview, .cite:focus-within .cite__preview { display: block; }
.message__error { margin-top: 6px; color: var(--kb-error); font-size: 13px; display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
.message__note { margin: 6px 0 0; color: var(--kb-muted); font-size: 13px; }
.message__context { margin: 0 0 6px; color: var(--kb-muted); font-size: 13px; display: flex; flex-wrap: wrap; gap: 4px 10px; }
.views { display: inline-flex; margin-bottom: 6px; border: 1px solid var(--kb-border); border-radius: 6px; overflow: hidden; }
.views__option { border: 0; background: transparent; color: var(--kb-foreground); padding: 2px 10px; font-size: 12px; }
.views__option[aria-pressed='true'] { background: var(--kb-accent); color: var(--kb-accent-contrast); }
.pill-button { border: 1px solid currentColor; border-radius: 6px; background: transparent; color: inherit; padding: 1px 10px; font-size: 13px; }
.link-button { border: 0; background: none; padding: 0; color: var(--kb-foreground); text-decoration: underline; font-size: 12px; }
.sources { margin-top: 8px; padding-top: 6px; border-top: 1px solid var(--kb-border); font-size: 13px; }
.sources__title { color: var(--kb-muted); font-weight: 600; }
.sources__list { margin: 4px 0; padding-inline-start: 20px; }
.source { margin: 2px 0; border-radius: 4px; }
.source--highlight { background: var(--kb-background); outline: 2px solid var(--kb-accent); }
.source__meta { color: var(--kb-muted); margin-inline: 6px; }
.source__passage { margin: 4px 0; padding: 6px 8px; background: var(--kb-background); border-inline-start: 3px solid var(--kb-accent); border-radius: 4px; max-height: 200px; overflow: auto; }
.related, .closest { margin-top: 6px; font-size: 13px; }
.related__title { color: var(--kb-muted); font-weight: 600; cursor: pointer; }
.closest__title { margin: 0; color: var(--kb-muted); font-weight: 600; }
.related__list { margin: 4px 0; padding-inline-start: 20px; }
.related__item { margin: 2px 0; }
.answer-footer { display: flex; justify-content: space-between; gap: 8px; margin-top: 6px; color: var(--kb-muted); font-size: 12px; }
.feedback__bar { display: flex; align-items: center; gap: 2px; margin-top: 4px; color: var(--kb-muted); font-size: 12px; }
.feedback__button { border: 1px solid transparent; border-radius: 6px; background: transparent; color: inherit; width: 28px; height: 28px; }
.feedback__button:hover, .feedback__button[aria-pressed='true'] { border-color: currentColor; color: var(--kb-foreground); }
.feedback__button[aria-pressed='true'] svg { fill: currentColor; fill-opacity: 0.25; }
.feedback__button[part~='feedback-down'] svg { transform: scaleY(-1); }
.feedback__button::after { top: auto; bottom: calc(100% + 4px); inset-inline: 0 auto; }
.feedback__status { margin-inline-start: 6px; }
.feedback__form { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-top: 4px; font-size: 13px; }
.feedback__form input { flex: 1; min-width: 10em; font: inherit; padding: 4px 6px; border: 1px solid var(--kb-border); border-radius: 6px; background: var(--kb-background); color: var(--kb-foreground); }
.suggestions { list-style: none; margin: 8px 0 0; padding: 0; display: flex; flex-wrap: wrap; gap: 6px; }
.suggestion { padding: 2px 10px; border: 1px solid var(--kb-border); border-radius: 999px; background: var(--kb-background); color: var(--kb-foreground); font-size: 13px; }
.typing { display: inline-flex; gap: 3px; padding: 4px 0; }
.typing span { width: 6px; height: 6px; border-radius: 50%; background: var(--kb-muted); animation: kb-blink 1.2s infinite ease-in-out; }
.typing span:nth-child(2) { animation-delay: 0.2s; }
.typing span:nth-child(3) { animation-delay: 0.4s; }
@keyframes kb-blink { 0%, 80%, 100% { opacity: 0.3; } 40% { opacity: 1; } }
@media (prefers-reduced-motion: reduce) { .panel, .typing span { animation: none; } }
.status { padding: 0 16px; font-size: 13px; color: var(--kb-muted); display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
.status:not(:empty) { padding: 8px 16px; border-top: 1px solid var(--kb-border); }
.status progress { width: 100%; height: 6px; accent-color: var(--kb-accent); }
.status--problem { color: var(--kb-error); }
.status__note { flex-basis: 100%; }
.sessions { flex: 1; overflow-y: auto; padding: 12px 16px; }
.sessions__title { margin: 0 0 8px; font-size: 14px; }
.sessions__list { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 6px; }
.session { width: 100%; text-align: start; display: flex; flex-direction: column; gap: 2px; padding: 8px 10px; border: 1px solid var(--kb-border); border-radius: 8px; background: var(--kb-background); color: var(--kb-foreground); }
.session[aria-current='true'] { border-color: var(--kb-accent); }
.session__time, .muted { color: var(--kb-muted); font-size: 12px; }
.composer { display: flex; gap: 8px; padding: 10px 12px; border-top: 1px solid var(--kb-border); }
textarea { flex: 1; resize: none; font: inherit; padding: 8px; border: 1px solid var(--kb-border); border-radius: 8px; min-height: 40px; max-height: 120px; box-sizing: border-box; background: var(--kb-background); color: var(--kb-foreground); }
.send { border: none; border-radius: 8px; background: var(--kb-accent); color: var(--kb-accent-contrast); padding: 0 14px; }
.send:disabled { opacity: 0.6; cursor: default; }
.sr-only { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
`;
