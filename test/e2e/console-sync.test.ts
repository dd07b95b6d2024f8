/**
 * The console's sync panel on the real server (server/runtime/node/start.ts with KB_SYNC_SOURCES=demo/kb and an hourly
 * KB_SYNC_INTERVAL) in Chromium: the schedule is stated, "Sync now" runs with its result on screen, and the
 * source's row says when it was last synced and what changed. axe reports 0 violations on the way.
 */
import AxeBuilder from '@axe-core/playwright';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLinkToken } from '../../server/console/session.ts';
import { DEMO_PAGES } from '../../server/testing/demo-pages.ts';
import { ROOT, startServerAndBrowser, type Running } from './server.ts';

const SECRET = 'e2e-sync-secret-e2e-sync-secret-0123456';
const SHOTS = process.env.KB_SCREENSHOTS === '1' ? 'docs/screens' : 'test-results/screens';

let running: Running;
let page: Page;

beforeAll(async () => {
  running = await startServerAndBrowser({ KB_JWT_SECRET: SECRET, KB_SYNC_SOURCES: 'demo/kb', KB_SYNC_INTERVAL: '1h' });
  page = await (await running.browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  page.on('pageerror', (error) => console.error('[page error]', error));
});
afterAll(() => running?.stop());

async function axe(name: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(
    violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    name,
  ).toEqual([]);
}

describe('the console’s sync panel, end to end', () => {
  it('states the schedule, runs "Sync now" and shows the source’s last sync', { timeout: 120_000 }, async () => {
    expect(running.output()).toContain('Syncing demo/kb every 3600 s (KB_SYNC_INTERVAL).');
    await page.goto(`${running.baseUrl}/admin/#link=${await createLinkToken(SECRET)}`);
    await page.locator('kb-admin nav a[href="#/documents"]').click();
    // The panel renders in its shadow root: its <section> is what holds the text.
    const panel = page.locator('kb-admin-sync section');
    await expect.poll(() => panel.textContent()).toContain('re-syncs 1 source every 1 h');
    await expect.poll(() => panel.textContent()).toContain('No sync has run yet.');
    await axe('sync-empty');

    await panel.getByRole('button', { name: 'Sync now' }).click();
    await expect
      .poll(() => panel.locator('[aria-live=polite]').textContent(), { timeout: 60_000 })
      .toMatch(new RegExp(`^Done: 0 added, 0 updated, ${DEMO_PAGES} unchanged, 0 failed`));
    const row = panel.locator('tbody tr', { hasText: 'demo/kb' });
    await row.waitFor();
    expect(await row.textContent()).toMatch(
      new RegExp(`Sync now.*0 added, 0 updated, 0 removed \\(${DEMO_PAGES} unchanged\\).*none`, 's'),
    );
    await axe('sync-done');
    await page.screenshot({ path: join(ROOT, `${SHOTS}/documents-sync.png`) });
  });
});
