/** The console's styles, shared by the shell and every view (each view's shadow root adopts them). */
import { css } from 'lit';

export const consoleStyles = css`
  :host {
    position: relative;
    --kb-admin-accent: #1f5fbf;
    --kb-admin-accent-contrast: #ffffff;
    --kb-admin-surface: #ffffff;
    --kb-admin-border: #c9d0d9;
    --kb-admin-muted: #4d5663;
    --kb-admin-danger: #a8201a;
    --kb-admin-ok: #1d6b36;
    display: block;
    color: #1b1f24;
  }
  h2 { font-size: 1.3rem; margin: 0 0 0.75rem; }
  h3 { font-size: 1.05rem; margin: 1rem 0 0.5rem; }
  p { margin: 0.25rem 0 0.75rem; }
  a { color: var(--kb-admin-accent); }
  button, input, select, textarea { font: inherit; }
  button {
    border: 1px solid var(--kb-admin-accent);
    background: var(--kb-admin-accent);
    color: var(--kb-admin-accent-contrast);
    border-radius: 6px;
    padding: 0.3rem 0.75rem;
    cursor: pointer;
  }
  a.button { display: inline-block; border: 1px solid var(--kb-admin-accent); border-radius: 6px; padding: 0.3rem 0.75rem; text-decoration: none; }
  button.secondary, a.button.secondary { background: var(--kb-admin-surface); color: var(--kb-admin-accent); }
  button.danger { background: var(--kb-admin-surface); color: var(--kb-admin-danger); border-color: var(--kb-admin-danger); }
  button:disabled { opacity: 0.6; cursor: default; }
  :focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
  input, select, textarea {
    border: 1px solid var(--kb-admin-border);
    border-radius: 6px;
    padding: 0.3rem 0.5rem;
    background: var(--kb-admin-surface);
    color: inherit;
  }
  label { display: inline-flex; flex-direction: column; gap: 0.15rem; font-size: 0.9rem; color: var(--kb-admin-muted); }
  .filters { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: flex-end; margin-bottom: 1rem; }
  .panel { background: var(--kb-admin-surface); border: 1px solid var(--kb-admin-border); border-radius: 8px; padding: 1rem; margin-bottom: 1rem; }
  /* relative: the visually hidden caption is positioned inside it, not past the page's edge. */
  .table-wrap { overflow-x: auto; position: relative; }
  table { border-collapse: collapse; width: 100%; background: var(--kb-admin-surface); }
  th, td { text-align: left; padding: 0.4rem 0.6rem; border-bottom: 1px solid var(--kb-admin-border); vertical-align: top; }
  th { font-size: 0.85rem; color: var(--kb-admin-muted); font-weight: 600; white-space: nowrap; }
  td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
  .text { white-space: pre-wrap; overflow-wrap: break-word; }
  .muted { color: var(--kb-admin-muted); font-size: 0.9rem; }
  .pager { display: flex; gap: 0.5rem; align-items: center; margin-top: 0.75rem; }
  .error { color: var(--kb-admin-danger); }
  .badge { display: inline-block; border-radius: 999px; padding: 0 0.5rem; font-size: 0.8rem; border: 1px solid currentColor; }
  .badge.ok { color: var(--kb-admin-ok); }
  .badge.bad { color: var(--kb-admin-danger); }
  code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.9em; overflow-wrap: break-word; }
  /* Rendered answers (views/markdown.ts): Markdown's blocks, compact, code as in the docs. */
  .md { overflow-wrap: break-word; }
  .md > :first-child { margin-top: 0; }
  .md > :last-child { margin-bottom: 0; }
  .md p, .md ul, .md ol, .md pre, .md blockquote, .md table { margin: 0.4rem 0; }
  .md ul, .md ol { padding-left: 1.5rem; }
  /* Wrapped, not scrolled: a scrolling block would need to be focusable (axe: scrollable-region-focusable). */
  .md pre { background: #f3f5f8; border: 1px solid var(--kb-admin-border); border-radius: 6px; padding: 0.5rem 0.75rem; white-space: pre-wrap; overflow-wrap: anywhere; }
  .md :not(pre) > code { background: #f3f5f8; border-radius: 4px; padding: 0 0.25rem; }
  .md blockquote { border-left: 3px solid var(--kb-admin-border); margin-left: 0; padding-left: 0.75rem; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;
