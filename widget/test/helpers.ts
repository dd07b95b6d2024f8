/** Helpers shared by the widget tests (browser side). */
import { fixture, html, waitUntil } from '@open-wc/testing';
import type KbChat from '../kb-chat.component.ts';
import '../kb-chat.ts';
import { fakeLog, resetFake, type FakeLog } from './fake-log.ts';

export { fakeLog, resetFake, type FakeLog };

/** Under the test runner the worker is the TypeScript source, compiled on the fly by the dev server. */
export const WORKER_URL = new URL('../embedder/embedder.worker.ts', import.meta.url);

export function shadow(el: KbChat): ShadowRoot {
  return el.shadowRoot!;
}

export async function createWidget(): Promise<KbChat> {
  const el = await fixture<KbChat>(html`<kb-chat .embedderUrl=${WORKER_URL}></kb-chat>`);
  return el;
}

/** Open the panel and wait until the embedder model is loaded. */
export async function openReady(el: KbChat): Promise<void> {
  shadow(el).querySelector<HTMLButtonElement>('.bubble')!.click();
  await waitUntil(() => el.embedder.status === 'ready', `embedder not ready (status ${el.embedder.status})`, {
    timeout: 25_000,
    interval: 50,
  });
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
  const all = shadow(el).querySelectorAll<HTMLElement>('.message--assistant');
  return all[all.length - 1] ?? null;
}

export function answerText(el: KbChat): string {
  return (lastAssistant(el)?.querySelector('.markdown')?.textContent ?? '').trim();
}

export async function waitForAnswerEnd(el: KbChat): Promise<void> {
  await waitUntil(() => {
    const status = lastAssistant(el)?.dataset.status;
    return status === 'done' || status === 'error';
  }, 'answer did not finish', { timeout: 10_000, interval: 20 });
  await el.updateComplete;
}
