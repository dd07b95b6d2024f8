/**
 * `kb-chat/react` in Chromium, as a React site would use the npm package: the package is built
 * (scripts/build-package.mjs), linked into a page's node_modules, and the page is bundled by esbuild with
 * React from node_modules. The page renders `<KbChat>` with a property and event props; the test clicks the
 * bubble and checks that the element rendered, the props arrived, the chat UI came as a chunk of the site's
 * own bundle, the workers are looked for on the `api-url` server, and `onKbOpen` / `onKbClose` fired.
 */
import { build } from 'esbuild';
import { createServer, type Server } from 'node:http';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildPackage } from '../../scripts/build-package.mjs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/lib/chromium.mjs';

const DIR = join(process.cwd(), 'test-results/package-react');
const SITE = join(DIR, 'site');
const OUT = join(SITE, 'out');

const PAGE = `
import { createElement, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { KbChat } from 'kb-chat/react';

window.events = [];
function App() {
  const [opens, setOpens] = useState(0);
  return createElement('main', null,
    createElement('h1', null, 'Docs'),
    createElement('p', { id: 'opens' }, String(opens)),
    createElement(KbChat, {
      apiUrl: location.origin,
      heading: 'Ask the React docs',
      position: 'left',
      shortcut: 'mod+k',
      strings: { send: 'Ask' },
      onKbOpen: (event) => { window.events.push(event.type); setOpens((n) => n + 1); },
      onKbClose: (event) => window.events.push(event.type),
    }));
}
createRoot(document.getElementById('root')).render(createElement(App));
`;

let server: Server;
let browser: Browser;
const requests: string[] = [];

beforeAll(async () => {
  await rm(DIR, { recursive: true, force: true });
  await mkdir(join(SITE, 'node_modules'), { recursive: true });
  await buildPackage({ outdir: join(DIR, 'kb-chat'), types: false });
  await symlink(join(DIR, 'kb-chat'), join(SITE, 'node_modules/kb-chat'), 'dir');
  await writeFile(join(SITE, 'page.js'), PAGE);
  await build({
    entryPoints: [join(SITE, 'page.js')],
    outdir: OUT,
    bundle: true,
    splitting: true,
    format: 'esm',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  await writeFile(
    join(OUT, 'index.html'),
    '<!doctype html><html lang="en"><title>React site</title><div id="root"></div><script type="module" src="page.js"></script>',
  );
  server = createServer((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname;
    requests.push(path);
    readFile(join(OUT, path === '/' ? 'index.html' : path)).then(
      (body) =>
        res.writeHead(200, { 'content-type': extname(path) === '.js' ? 'text/javascript' : 'text/html' }).end(body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  server?.close();
});

it('renders <kb-chat> through the React wrapper, sets its properties and calls its event props', async () => {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);

  const bubble = page.locator('kb-chat').locator('button[part="bubble"]');
  await bubble.waitFor();
  // The shortcut arrived as a property: the bubble says it.
  expect(await bubble.getAttribute('aria-keyshortcuts')).toBe('Control+K');

  await bubble.click();
  await page.locator('kb-chat').locator('[part="panel"] h2').waitFor();
  expect(await page.locator('kb-chat').locator('[part="panel"] h2').textContent()).toBe('Ask the React docs');
  // An object prop is set as the property, not stringified into an attribute.
  expect(await page.locator('kb-chat').locator('[part="send-button"]').textContent()).toBe('Ask');
  expect(await page.locator('kb-chat').getAttribute('strings')).toBe(null);
  expect(await page.locator('kb-chat').getAttribute('position')).toBe('left'); // an attribute-only prop
  await page.waitForFunction(() => document.getElementById('opens')!.textContent === '1');
  // The chat UI is a chunk of the site's bundle; the embedder is asked of the api-url server (here the same one).
  expect(requests.filter((path) => /^\/chat-ui-[\w-]+\.js$/.test(path))).toHaveLength(1);
  expect(
    await page.evaluate(() => [String(document.querySelector('kb-chat')!.embedderUrl), location.origin]),
  ).toSatisfy(([url, origin]: string[]) => url === `${origin}/kb-chat-embedder.js`);

  await page.keyboard.press('Escape');
  await page.waitForFunction(() => (window as unknown as { events: string[] }).events.length === 2);
  expect(await page.evaluate(() => (window as unknown as { events: string[] }).events)).toEqual([
    'kb-open',
    'kb-close',
  ]);
  expect(errors).toEqual([]);
});
