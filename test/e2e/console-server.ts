/**
 * The console over the real API and an in-memory PGlite database, in this process (no child server), for
 * tests that write to the database directly: what the built page (dist/admin) shows for data the demo
 * server cannot produce on its own (ratings before the feedback API lands, the XSS corpus). `csp: false`
 * serves the page without its CSP, to test escaping rather than the policy.
 */
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import type { AppDeps } from '../../server/app.ts';
import { createLinkToken } from '../../server/console/session.ts';
import { securityHeaders } from '../../server/runtime/node/security-headers.ts';
import { REVALIDATE, serveFiles } from '../../server/runtime/node/static.ts';
import { createTestApi, TEST_SECRET, type TestApi } from '../../server/testing/api.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/lib/chromium.mjs';
import { ROOT } from './server.ts';

export interface ConsoleServer {
  api: TestApi;
  baseUrl: string;
  browser: Browser;
  /** A one-time sign-in URL for the console (opens on the overview). */
  signInUrl(): Promise<string>;
  close(): Promise<void>;
}

/** `deps`: more of the app's dependencies, built over the test's database (e.g. webhooks). */
export async function startConsoleServer({
  csp = true,
  deps,
}: {
  csp?: boolean;
  deps?: (api: TestApi) => Partial<AppDeps>;
} = {}): Promise<ConsoleServer> {
  const api = await createTestApi();
  const root = new Hono();
  if (csp) root.use('*', securityHeaders());
  root.route('/', deps ? api.instance(deps(api)) : api.app);
  root.use(
    '/admin/*',
    serveFiles({
      root: join(ROOT, 'dist/admin'),
      rewrite: (p) => (p === '/admin/' ? '/index.html' : p.slice('/admin'.length)),
      cacheControl: () => REVALIDATE,
    }),
  );
  let server!: ServerType;
  const baseUrl = await new Promise<string>((resolve) => {
    server = serve({ fetch: root.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
      resolve(`http://127.0.0.1:${info.port}`),
    );
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  return {
    api,
    baseUrl,
    browser,
    signInUrl: async () => `${baseUrl}/admin/#link=${await createLinkToken(TEST_SECRET)}`,
    async close() {
      await browser.close();
      server.close();
      await api.close();
    },
  };
}
