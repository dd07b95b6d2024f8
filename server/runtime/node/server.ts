/**
 * The Node server: the runtime-agnostic API plus what a browser needs from the same origin — the demo
 * page, the widget bundle, the model files and the ONNX Runtime wasm (so nothing is fetched from a CDN).
 */
import { serve, type ServerType } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { createApp, type AppDeps } from '../../app.ts';
import { StreamSlots } from '../../chat/route.ts';
import { securityHeaders } from './security-headers.ts';
import { Drain, type DrainReport } from './shutdown.ts';
import { mountAssets } from './assets.ts';
import { demoDocsRoute } from './docs.ts';
import { DEMO_DIR, DIST_DIR } from './paths.ts';
import { REVALIDATE, serveFiles } from './static.ts';
import { join } from 'node:path';

export interface NodeServerOptions extends AppDeps {
  /** Folder with `<model id>/…` files served at /models/. */
  modelDir: string;
  port: number;
  hostname?: string;
}

export function createNodeApp(options: NodeServerOptions) {
  const app = new Hono();
  app.use('*', securityHeaders());
  // The widget, its worker, the model and the wasm are public files that pages on other origins load
  // (the site embedding the widget): readable by any origin, never with credentials.
  for (const path of ['/kb-chat*', '/models/*', '/ort/*']) {
    app.use(path, async function publicAsset(c, next) {
      await next();
      c.res.headers.set('Access-Control-Allow-Origin', '*');
      c.res.headers.set('Cross-Origin-Resource-Policy', 'cross-origin');
    });
  }
  // Compressed, cacheable, versioned (server/runtime/node/assets.ts); /api/config hands out the same URLs.
  const urls = mountAssets(app, options);
  const api = createApp({
    // The socket's address: on a server reached directly, X-Forwarded-For and its kin are whatever the
    // client wrote. Behind a reverse proxy every visitor shares the proxy's address (see docs/security.md).
    clientIp: (c) => getConnInfo(c).remote.address ?? null,
    ...options,
    ...urls,
  });
  app.route('/', api);
  app.route('/docs', demoDocsRoute());
  // The site-owner console (built into dist/admin by `npm run build:widget`): its page, script and styles,
  // revalidated on every use (their names do not change). Its page gets the same strict CSP as the demo's.
  app.get('/admin', (c) => c.redirect('/admin/', 301));
  app.use(
    '/admin/*',
    serveFiles({
      root: join(DIST_DIR, 'admin'),
      rewrite: (path) =>
        path === '/admin/' ? '/index.html' : /^\/admin\/[\w.-]+$/.test(path) ? path.slice('/admin'.length) : null,
      cacheControl: () => REVALIDATE,
    }),
  );
  app.use('/*', serveStatic({ root: DEMO_DIR, index: 'index.html' }));
  return app;
}

/**
 * Starts listening; resolves once the port is bound. `shutdown(graceMs)` stops accepting and lets open
 * answers finish (server/runtime/node/shutdown.ts); the caller closes the database after it.
 */
export function startNodeServer(
  options: NodeServerOptions,
): Promise<{ server: ServerType; url: string; shutdown: (graceMs: number) => Promise<DrainReport> }> {
  const streams = options.streams ?? new StreamSlots(options.streaming?.maxConcurrent);
  const drain = new Drain(streams);
  const app = createNodeApp({ ...options, streams });
  const hostname = options.hostname ?? '127.0.0.1';
  return new Promise((resolve) => {
    const server = serve({ fetch: drain.guard(app.fetch), port: options.port, hostname }, (info) => {
      resolve({
        server,
        url: `http://${hostname}:${info.port}/`,
        shutdown: (graceMs) => drain.shutdown(server, graceMs),
      });
    });
  });
}
