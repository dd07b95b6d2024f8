/**
 * Data out in the console, in Chromium (the built page, under its CSP) over the real API: the export buttons
 * download the file the server streams, and the webhook set under Settings receives the next refused
 * question, signed with the secret typed there — which the page never shows again. axe: 0 violations.
 */
import AxeBuilder from '@axe-core/playwright';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { nodeWebhooks } from '../../server/runtime/node/webhooks.ts';
import { question } from '../../server/testing/api.ts';
import { basis } from '../../server/testing/vectors.ts';
import { startReceiver, type Receiver } from '../../server/testing/webhook-receiver.ts';
import { verifySignature } from '../../server/webhooks/sign.ts';
import { startConsoleServer, type ConsoleServer } from './console-server.ts';

const SECRET = 'typed-in-the-console-0123456789abcdefghij';
let server: ConsoleServer;
let receiver: Receiver;
let page: Page;

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startConsoleServer({
    deps: (api) => ({ webhooks: nodeWebhooks(api.store, { url: null, secret: null, allowLoopback: true }) }),
  });
  await server.api.seedKb();
  page = await (
    await server.browser.newContext({ viewport: { width: 1280, height: 1000 }, acceptDownloads: true })
  ).newPage();
  page.on('pageerror', (error) => console.error('[page error]', error));
  await page.goto(await server.signInUrl());
  await page.locator('kb-admin-overview h2').waitFor();
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

async function axe(): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

/** A visitor's question the knowledge base cannot answer, through the served app. */
async function refusedQuestion(message: string): Promise<void> {
  const { access_token } = (await (await fetch(`${server.baseUrl}/api/auth/anonymous`, { method: 'POST' })).json()) as {
    access_token: string;
  };
  const res = await fetch(`${server.baseUrl}/api/chat`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${access_token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json',
    },
    body: JSON.stringify(question(basis(300), message)),
  });
  expect(((await res.json()) as { type: string }).type).toBe('refusal');
}

it('exports conversations as CSV from the Conversations view', async () => {
  await refusedQuestion('=Do you ship to Mars?');
  await page.goto(`${server.baseUrl}/admin/#/conversations`);
  const view = page.locator('kb-admin-conversations');
  await view.locator('article').first().waitFor();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    view.getByRole('button', { name: 'Conversations (CSV)' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^kb-chat-conversations-\d{4}-\d\d-\d\d\.csv$/);
  const text = await readFile((await download.path())!, 'utf8');
  expect(text).toContain('asked_at,session_id,question_id,message_id,visitor,question,');
  expect(text).toContain(`'=Do you ship to Mars?`);
  await axe();
});

it('sets the webhook under Settings: the next refused question is delivered, signed with the secret typed there', async () => {
  await page.goto(`${server.baseUrl}/admin/#/settings`);
  const view = page.locator('kb-admin-settings');
  await view.locator('form').waitFor();
  await view.locator('#webhook_url').fill(receiver.url);
  await view.locator('#webhook_secret').fill(SECRET);
  await view.getByRole('button', { name: 'Save' }).click();
  await expect.poll(() => view.getByRole('status').last().textContent()).toContain('Saved.');
  // Write-only: the field is empty again, and the page says only that a secret is set.
  expect(await view.locator('#webhook_secret').inputValue()).toBe('');
  expect(await view.locator('#webhook_secret-about').textContent()).toContain('A secret is set (set here)');
  expect(await page.content()).not.toContain(SECRET);
  await axe();

  await refusedQuestion('Is there a student discount?');
  const [delivery] = await receiver.received(1);
  expect(JSON.parse(delivery!.body)).toMatchObject({
    type: 'question.refused',
    data: { question: 'Is there a student discount?' },
  });
  expect(await verifySignature(SECRET, delivery!.headers['kb-signature'] as string, delivery!.body)).toBe(true);
});
