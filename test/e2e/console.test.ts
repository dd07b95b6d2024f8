/**
 * The site-owner console on the real demo server (server/runtime/node/start.ts) in Chromium, the owner's whole loop:
 * a visitor's question is refused; the owner signs in with `npm run console -- link`, sees it under Content
 * gaps, uploads the missing page (with progress), asks it again under Try a question and watches it answer,
 * then marks the gap done. axe reports 0 violations on every view, at desktop and phone widths; each view
 * is saved as a screenshot (for the docs with KB_SCREENSHOTS=1: docs/screens/).
 */
import AxeBuilder from '@axe-core/playwright';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLinkToken } from '../../server/console/session.ts';
import { ROOT, startServerAndBrowser, type Running } from './server.ts';

const SECRET = 'e2e-admin-secret-e2e-admin-secret-0123';
const QUESTION = 'Can the widget speak Klingon?';
const SHOTS = process.env.KB_SCREENSHOTS === '1' ? 'docs/screens' : 'test-results/screens';

let running: Running;
let context: BrowserContext;
let page: Page;
let uploads: string;
const violations: Record<string, number> = {};

beforeAll(async () => {
  running = await startServerAndBrowser({ KB_JWT_SECRET: SECRET });
  context = await running.browser.newContext({ viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  page.on('pageerror', (error) => console.error('[page error]', error));
  uploads = await mkdtemp(join(tmpdir(), 'kb-admin-e2e-'));
});
afterAll(async () => {
  console.log('[axe violations per console view]', JSON.stringify(violations));
  await running?.stop();
  if (uploads) await rm(uploads, { recursive: true, force: true });
});

async function axe(name: string, target: Page = page): Promise<void> {
  const { violations: found } = await new AxeBuilder({ page: target }).analyze();
  violations[name] = found.length;
  expect(
    found.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    name,
  ).toEqual([]);
}
const shot = (name: string, target: Page = page) => target.screenshot({ path: join(ROOT, `${SHOTS}/${name}.png`) });

/** A visitor asks through the API, as the widget in keyword mode would. */
async function visitorAsks(message: string): Promise<{ type: string }> {
  const { access_token } = (await (
    await fetch(`${running.baseUrl}/api/auth/anonymous`, { method: 'POST' })
  ).json()) as { access_token: string };
  const res = await fetch(`${running.baseUrl}/api/chat`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${access_token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json',
    },
    body: JSON.stringify({ message, message_id: crypto.randomUUID() }),
  });
  return (await res.json()) as { type: string };
}

async function go(view: string): Promise<void> {
  await page.locator(`kb-admin nav a[href="#/${view}"]`).click();
  await page.locator(`kb-admin main h2`).first().waitFor();
}

describe('the site-owner console, end to end', () => {
  it('a refused question becomes a gap; the console signs in with a one-time link', async () => {
    expect((await visitorAsks(QUESTION)).type).toBe('refusal');
    expect((await visitorAsks('can the widget   speak klingon?')).type).toBe('refusal');
    expect((await visitorAsks('How do I add the chat widget to my website?')).type).toBe('answer');

    // The page: under the demo's strict CSP (Trusted Types enforced), never framed; /admin redirects.
    const served = await fetch(`${running.baseUrl}/admin/`);
    expect(served.headers.get('content-security-policy')).toMatch(
      /frame-ancestors 'none'.*require-trusted-types-for 'script'/,
    );
    expect((await fetch(`${running.baseUrl}/admin`, { redirect: 'manual' })).headers.get('location')).toBe('/admin/');

    // Without a session: the sign-in page.
    await page.goto(`${running.baseUrl}/admin/`);
    await page.locator('kb-admin .signin h2').waitFor();
    await axe('sign-in');
    await shot('sign-in');

    const { stdout } = await promisify(execFile)(
      join(ROOT, 'node_modules/.bin/tsx'),
      ['scripts/console.ts', 'link', '--url', running.baseUrl],
      {
        cwd: ROOT,
        env: { ...process.env, KB_JWT_SECRET: SECRET },
      },
    );
    const link = stdout.trim();
    expect(link).toMatch(/\/admin\/#link=[\w-]+\.[\w-]+\.[\w-]+$/);
    await page.goto(link);
    // A sign-in lands on the overview.
    await page.locator('kb-admin-overview h2').waitFor();
    expect(page.url()).toMatch(/\/admin\/#\/overview$/); // the link is out of the address bar and history
    await go('gaps');
    await page.locator('kb-admin-gaps table').waitFor();
    // The link is used up.
    const again = await fetch(`${running.baseUrl}/api/admin/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ link_token: new URL(link).hash.slice('#link='.length) }),
    });
    expect(again.status).toBe(401);
  });

  it('content gaps: the refused question, grouped and counted', async () => {
    const row = page.locator('kb-admin-gaps tbody tr', { hasText: QUESTION });
    await expect.poll(() => row.locator('td').nth(1).textContent()).toBe('2');
    await axe('gaps');
    await shot('gaps');
  });

  it('try a question: refused now, with the gate and the candidates', async () => {
    await page.locator('kb-admin-gaps tbody tr', { hasText: QUESTION }).getByRole('link', { name: 'Try it' }).click();
    await page.locator('kb-admin-try .verdict').waitFor();
    await expect.poll(() => page.locator('kb-admin-try .verdict').textContent()).toContain('Refuses');
    expect(await page.locator('kb-admin-try .verdict').textContent()).toMatch(
      /best evidence 0\.\d{3} < threshold 0\.\d{3}/,
    );
    await axe('try-refused');
    await shot('try-refused');
  });

  it('documents: upload the missing page, with progress, and see it listed', async () => {
    await go('documents');
    await page.locator('kb-admin-documents table').waitFor();
    const file = join(uploads, 'klingon.md');
    await writeFile(
      file,
      '# Klingon\n\n## Can the widget speak Klingon?\n\nYes. The widget can speak Klingon: set `lang="tlh"` on the element and override its strings with Klingon ones.\n',
    );
    await page.locator('kb-admin-documents input[type=file]').setInputFiles(file);
    // Hold the request until axe has run, so the progress is on screen for it.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/admin/documents/upload', async (route) => {
      await released;
      await route.continue();
    });
    await page.locator('kb-admin-documents').getByRole('button', { name: 'Upload' }).click();
    await page.locator('kb-admin-documents progress').waitFor();
    await axe('documents-uploading');
    release();
    await expect
      .poll(() => page.locator('kb-admin-documents .progress [role=status]').textContent(), { timeout: 60_000 })
      .toMatch(/^Done: 1 added/);
    await page.unroute('**/api/admin/documents/upload');
    expect(await page.locator('kb-admin-documents .log').textContent()).toContain('uploads/klingon.md: added');
    await page.locator('kb-admin-documents tbody tr', { hasText: 'uploads/klingon.md' }).waitFor();
    await axe('documents');
    await shot('documents');
  });

  it('try a question: the same question now answers from the new page', async () => {
    await go('try');
    await page.locator('kb-admin-try textarea').fill(QUESTION);
    await page.locator('kb-admin-try').getByRole('button', { name: 'Ask' }).click();
    await expect.poll(() => page.locator('kb-admin-try .verdict').textContent()).toContain('Answers');
    expect(await page.locator('kb-admin-try .panel').textContent()).toContain('The widget can speak Klingon');
    expect(await page.locator('kb-admin-try tr.cited').first().textContent()).toContain('Klingon');
    await axe('try-answers');
    await shot('try-answers');
    // And a visitor now gets the answer too.
    expect((await visitorAsks(QUESTION)).type).toBe('answer');
  });

  it('content gaps: mark done', async () => {
    await go('gaps');
    const row = page.locator('kb-admin-gaps tbody tr', { hasText: QUESTION });
    await row.getByRole('button', { name: 'Mark done' }).click();
    await expect.poll(() => row.count()).toBe(0);
  });

  it('conversations, overview and settings', async () => {
    await go('conversations');
    await page.locator('kb-admin-conversations article').first().waitFor();
    expect(await page.locator('kb-admin-conversations article').count()).toBeGreaterThanOrEqual(4);
    await axe('conversations');
    await shot('conversations');
    await page.locator('kb-admin-conversations select').nth(1).selectOption('refused');
    await expect.poll(() => page.locator('kb-admin-conversations article').count()).toBe(2);
    // A conversation read as a thread at its own address: its turns in order; back and forward work.
    await page.locator('kb-admin-conversations article a', { hasText: 'Read the conversation' }).first().click();
    await page.locator('kb-admin-conversations .thread').waitFor();
    expect(page.url()).toMatch(/#\/conversations\/[0-9a-f-]{36}$/);
    expect(await page.locator('kb-admin-conversations .thread .turns > li').count()).toBeGreaterThanOrEqual(1);
    expect(await page.locator('kb-admin-conversations .thread').textContent()).toContain('refused');
    await axe('thread');
    await page.goBack();
    // The list as it was left: still filtered to refusals.
    await expect.poll(() => page.locator('kb-admin-conversations article').count()).toBe(2);
    await page.goForward();
    await page.locator('kb-admin-conversations .thread').waitFor();
    await page.locator('kb-admin-conversations .thread a', { hasText: 'All conversations' }).click();
    await page.locator('kb-admin-conversations article').first().waitFor();

    await go('overview');
    await page.locator('kb-admin-overview svg').waitFor();
    expect(await page.locator('kb-admin-overview svg').getAttribute('aria-label')).toMatch(
      /4 in total, 2 answered, 2 refused/,
    );
    await axe('overview');
    await shot('overview');

    await go('settings');
    await page.locator('kb-admin-settings form').waitFor();
    await axe('settings');
  });

  it('a phone-width screen: every view still passes axe', async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    // A session belongs to its tab (sessionStorage): this one signs in with a link of its own.
    await phone.goto(`${running.baseUrl}/admin/#link=${await createLinkToken(SECRET)}`);
    await phone.locator('kb-admin-overview h2').waitFor();
    for (const view of ['overview', 'gaps', 'conversations', 'documents', 'try', 'settings']) {
      await phone.goto(`${running.baseUrl}/admin/#/${view}`);
      await phone.locator('kb-admin main h2').first().waitFor();
      await phone.waitForLoadState('networkidle');
      await axe(`phone-${view}`, phone);
      if (view === 'gaps' || view === 'documents' || view === 'conversations') await shot(`phone-${view}`, phone);
    }
    await phone.close();
  });
});
