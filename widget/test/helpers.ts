/** Helpers shared by the widget tests (browser side). */
import { fixture, html, waitUntil } from '@open-wc/testing';
import type KbChat from '../kb-chat.component.ts';
import type { ChatUi } from '../ui/chat-ui.ts';
import '../kb-chat.ts';
import { fakeLog, holdAssets, resetFake, type FakeLog } from './fake-log.ts';

export { fakeLog, holdAssets, resetFake, type FakeLog };

/**
 * Under the test runner the chat UI is the TypeScript source, compiled by the dev server. The worker is the
 * built bundle (web-test-runner.config.mjs builds it first): how ONNX Runtime is bundled — the CPU build,
 * aliased in esbuild.config.mjs, with its one wasm file — is part of what the tests must check.
 */
export const WORKER_URL = new URL('../../test-results/widget-dist/kb-chat-embedder.js', import.meta.url);
export const UI_URL = new URL('../ui/chat-ui.ts', import.meta.url);

export function shadow(el: KbChat): ShadowRoot {
  return el.shadowRoot!;
}

/** The loaded chat UI, with its controllers (the element sees only its ChatUiHandle); undefined until loaded. */
export function loaded(el: KbChat): ChatUi | undefined {
  return el.ui as ChatUi | undefined;
}

/** The loaded chat UI (fails the test if it is not loaded). */
export function ui(el: KbChat): ChatUi {
  const loadedUi = loaded(el);
  if (!loadedUi) throw new Error('the chat UI is not loaded');
  return loadedUi;
}

export async function createWidget(attributes = ''): Promise<KbChat> {
  const el = await fixture<KbChat>(html`<kb-chat .uiUrl=${UI_URL} .embedderUrl=${WORKER_URL}></kb-chat>`);
  for (const [, name, value] of attributes.matchAll(/([\w-]+)(?:="([^"]*)")?/g)) el.setAttribute(name!, value ?? '');
  return el;
}

export async function openPanel(el: KbChat): Promise<void> {
  shadow(el).querySelector<HTMLButtonElement>('.bubble')!.click();
  await waitUntil(() => el.ui, 'chat UI not loaded', { timeout: 10_000 });
  await el.updateComplete;
}

/** Open the panel and wait until the embedder model is loaded. */
export async function openReady(el: KbChat): Promise<void> {
  await openPanel(el);
  await waitUntil(
    () => ui(el).embedder.status === 'ready',
    `embedder not ready (status ${loaded(el)?.embedder.status})`,
    {
      timeout: 25_000,
      interval: 50,
    },
  );
  await el.updateComplete;
}

/** Open the panel with a worker that cannot load: keyword mode, no model (fast). */
export async function openKeyword(el: KbChat): Promise<void> {
  el.embedderUrl = new URL('./no-such-worker.js', location.href);
  await openPanel(el);
  await waitUntil(() => ui(el).embedder.failed, 'embedder did not fail', { timeout: 10_000 });
  await el.updateComplete;
}

export async function ask(el: KbChat, question: string): Promise<void> {
  const root = shadow(el);
  const textarea = root.querySelector('textarea')!;
  textarea.value = question;
  root.querySelector<HTMLButtonElement>('.send')!.click();
  await el.updateComplete;
}

export function lastAssistant(el: KbChat): HTMLElement | null {
  const all = shadow(el).querySelectorAll<HTMLElement>('.message--assistant[data-status]');
  return all[all.length - 1] ?? null;
}

/** The answer's text as a reader sees it: citation badges as `[n]`, previews left out. */
export function answerText(el: KbChat): string {
  const markdown = lastAssistant(el)?.querySelector('.markdown');
  if (!markdown) return '';
  const copy = markdown.cloneNode(true) as HTMLElement;
  for (const preview of copy.querySelectorAll('.cite__preview')) preview.remove();
  for (const badge of copy.querySelectorAll('.cite__badge')) badge.textContent = `[${badge.textContent}]`;
  return (copy.textContent ?? '').trim();
}

export async function waitForAnswerEnd(el: KbChat): Promise<void> {
  await waitUntil(
    () => {
      const status = lastAssistant(el)?.dataset.status;
      return status === 'done' || status === 'error';
    },
    'answer did not finish',
    { timeout: 10_000, interval: 20 },
  );
  await el.updateComplete;
}
