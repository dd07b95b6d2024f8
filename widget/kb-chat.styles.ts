import { css } from 'lit';

/**
 * Public styling surface: the `--kb-*` custom properties (defaults on :host) and the parts documented on the
 * element. Class names are private and may change.
 */
export default css`
  :host {
    --kb-accent: #2563eb;
    --kb-accent-contrast: #ffffff;
    --kb-background: #ffffff;
    --kb-foreground: #111827;
    --kb-muted: #6b7280;
    --kb-border: #e5e7eb;
    --kb-error: #b91c1c;
    --kb-radius: 12px;
    --kb-font: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
    --kb-panel-width: 380px;
    --kb-panel-height: 560px;
    --kb-z-index: 2147483000;

    position: fixed;
    right: 20px;
    bottom: 20px;
    z-index: var(--kb-z-index);
    font-family: var(--kb-font);
    font-size: 15px;
    line-height: 1.45;
    color: var(--kb-foreground);
  }

  button {
    font: inherit;
    cursor: pointer;
  }

  .bubble {
    width: 56px;
    height: 56px;
    border: none;
    border-radius: 50%;
    background: var(--kb-accent);
    color: var(--kb-accent-contrast);
    box-shadow: 0 4px 16px rgb(0 0 0 / 0.2);
    display: grid;
    place-items: center;
  }
  .bubble svg {
    width: 26px;
    height: 26px;
  }

  .panel {
    position: absolute;
    right: 0;
    bottom: 72px;
    width: min(var(--kb-panel-width), calc(100vw - 40px));
    height: min(var(--kb-panel-height), calc(100vh - 120px));
    display: flex;
    flex-direction: column;
    background: var(--kb-background);
    border: 1px solid var(--kb-border);
    border-radius: var(--kb-radius);
    box-shadow: 0 12px 40px rgb(0 0 0 / 0.2);
    overflow: hidden;
  }

  .header {
    display: flex;
    align-items: center;
    justify-content: space-between;
    padding: 12px 16px;
    background: var(--kb-accent);
    color: var(--kb-accent-contrast);
  }
  .header h2 {
    margin: 0;
    font-size: 16px;
    font-weight: 600;
  }
  .close {
    border: none;
    background: transparent;
    color: inherit;
    font-size: 22px;
    line-height: 1;
    padding: 4px 8px;
  }

  .messages {
    flex: 1;
    overflow-y: auto;
    padding: 12px 16px;
    display: flex;
    flex-direction: column;
    gap: 10px;
  }
  .message {
    max-width: 90%;
    padding: 8px 12px;
    border-radius: var(--kb-radius);
    overflow-wrap: anywhere;
  }
  .message--user {
    align-self: flex-end;
    background: var(--kb-accent);
    color: var(--kb-accent-contrast);
    white-space: pre-wrap;
  }
  .message--assistant,
  .message--refusal {
    align-self: flex-start;
    background: #f3f4f6;
  }
  .markdown > :first-child {
    margin-top: 0;
  }
  .markdown > :last-child {
    margin-bottom: 0;
  }
  .markdown pre {
    overflow-x: auto;
  }
  .message a {
    color: var(--kb-accent);
  }
  .message__error {
    margin-top: 6px;
    color: var(--kb-error);
    font-size: 13px;
  }

  .sources {
    margin-top: 8px;
    padding-top: 6px;
    border-top: 1px solid var(--kb-border);
    font-size: 13px;
  }
  .sources__title {
    color: var(--kb-muted);
    font-weight: 600;
  }
  .sources__list {
    margin: 4px 0 0;
    padding-left: 20px;
  }

  .suggestions {
    list-style: none;
    margin: 8px 0 0;
    padding: 0;
    display: flex;
    flex-wrap: wrap;
    gap: 6px;
  }
  .suggestion {
    padding: 2px 10px;
    border: 1px solid var(--kb-border);
    border-radius: 999px;
    background: var(--kb-background);
    font-size: 13px;
  }

  .typing {
    display: inline-flex;
    gap: 3px;
    padding: 4px 0;
  }
  .typing span {
    width: 6px;
    height: 6px;
    border-radius: 50%;
    background: var(--kb-muted);
    animation: kb-blink 1.2s infinite ease-in-out;
  }
  .typing span:nth-child(2) {
    animation-delay: 0.2s;
  }
  .typing span:nth-child(3) {
    animation-delay: 0.4s;
  }
  @keyframes kb-blink {
    0%, 80%, 100% { opacity: 0.3; }
    40% { opacity: 1; }
  }
  @media (prefers-reduced-motion: reduce) {
    .typing span {
      animation: none;
    }
  }

  .status {
    padding: 0 16px;
    font-size: 13px;
    color: var(--kb-muted);
  }
  .status:not(:empty) {
    padding: 8px 16px;
    border-top: 1px solid var(--kb-border);
  }
  .status--problem {
    color: var(--kb-error);
  }
  .status button {
    margin-left: 8px;
    border: 1px solid currentColor;
    border-radius: 6px;
    background: transparent;
    color: inherit;
    padding: 2px 10px;
  }

  .composer {
    display: flex;
    gap: 8px;
    padding: 10px 12px;
    border-top: 1px solid var(--kb-border);
  }
  .composer textarea {
    flex: 1;
    resize: none;
    font: inherit;
    padding: 8px;
    border: 1px solid var(--kb-border);
    border-radius: 8px;
    min-height: 40px;
    max-height: 120px;
  }
  .send {
    border: none;
    border-radius: 8px;
    background: var(--kb-accent);
    color: var(--kb-accent-contrast);
    padding: 0 14px;
  }
  .send:disabled {
    opacity: 0.5;
    cursor: default;
  }
`;
