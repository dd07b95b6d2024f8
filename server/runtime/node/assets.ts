/**
 * What the Node server serves to browsers besides the API and the demo, and under which URLs, so that all
 * of it can be cached:
 *
 *   /kb-chat.js                          the loader — its name is what sites paste: revalidated (ETag, 304)
 *   /kb-chat-ui.<hash>.js, /kb-chat-embedder.<hash>.js, /kb-chat-generator.<hash>.js, /kb-chat-generative.<hash>.js, /kb-chat-captcha.<hash>.js
 *                                        named by content: immutable for a year
 *   /ort/<ORT version>/ort-wasm-simd-threaded.wasm        the embedder asks for its own ORT's version: immutable
 *   /models/v-<version>/<model id>/…     versioned by the model files (names, sizes, times): immutable
 *   /models/<model id>/…                 the same files unversioned (e.g. `model-base-url`): revalidated
 *
 * JS and wasm come precompressed from `npm run build` (dist/); model files are compressed on first request.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Hono } from 'hono';
import { DIST_DIR, ortWasmDir } from './paths.ts';
import { IMMUTABLE, OnTheFly, REVALIDATE, serveFiles } from './static.ts';

/** Hashed bundle names as esbuild.config.mjs writes them: `kb-chat-ui.0123456789.js` (and `.map`). */
const HASHED = /^\/kb-chat-(ui|embedder|generator|generative|captcha)\.[0-9a-f]{10}\.js(\.map)?$/;

export interface AssetOptions {
  /** Folder with `<model id>/…`. */
  modelDir: string;
  embedModel: string;
}

/**
 * A version of the model's files: a hash of their paths, sizes and modification times (not their bytes:
 * hashing a 90 MB full-precision model on every start would be slow, and replacing a file changes its time).
 * Null when the model is not there (yet): its URLs are then unversioned.
 */
export function modelVersion(modelDir: string, embedModel: string): string | null {
  const dir = join(modelDir, embedModel);
  if (!existsSync(dir)) return null;
  const hash = createHash('sha256');
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const { size, mtimeMs } = statSync(path);
        hash.update(`${relative(dir, path)}\0${size}\0${Math.floor(mtimeMs)}\n`);
      }
    }
  };
  walk(dir);
  return hash.digest('hex').slice(0, 10);
}

/**
 * The ONNX Runtime version the embedder bundle was built against: the build's manifest says (an `npm install`
 * since the build may have brought another version into node_modules); without a build, the installed one.
 */
function ortVersion(): string {
  const manifest = join(DIST_DIR, 'manifest.json');
  if (existsSync(manifest)) return (JSON.parse(readFileSync(manifest, 'utf8')) as { ort_version: string }).ort_version;
  return (JSON.parse(readFileSync(join(ortWasmDir(), '..', 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * Mounts the widget files, the ORT wasm and the model files on `app`, and returns the URLs the widget learns
 * from /api/config. The model's version is taken once, at start: /api/config and the route agree, and a model
 * replaced while the server runs is served from the next start on.
 */
export function mountAssets(
  app: Hono,
  { modelDir, embedModel }: AssetOptions,
): { modelsUrl: string; ortWasmUrl: string } {
  const onTheFly = new OnTheFly();
  const currentModel = modelVersion(modelDir, embedModel);
  const ort = ortVersion();
  // The embedder appends `<ORT version>/<file>` to ort_wasm_url itself (its bundle knows which build it needs).
  const urls = { modelsUrl: currentModel ? `/models/v-${currentModel}/` : '/models/', ortWasmUrl: '/ort/' };

  app.use(
    '/kb-chat*',
    serveFiles({
      root: DIST_DIR,
      rewrite: (path) => (/^\/kb-chat[\w.-]*$/.test(path) ? path : null),
      cacheControl: (path) => (HASHED.test(path) ? IMMUTABLE : REVALIDATE),
    }),
  );

  // Only the wasm of the installed ORT version; the folder also holds builds we do not need to expose.
  const ortPath = (path: string) => {
    const match = /^\/ort\/([^/]+)\/(ort-wasm-[\w.-]+\.wasm)$/.exec(path);
    return match && match[1] === ort ? match[2]! : null;
  };
  app.use('/ort/*', serveFiles({ root: join(DIST_DIR, 'ort', ort), rewrite: ortPath, cacheControl: () => IMMUTABLE }));
  // Without `npm run build` (dist/ort missing): the package's own file, compressed on first request.
  app.use('/ort/*', serveFiles({ root: ortWasmDir(), rewrite: ortPath, cacheControl: () => IMMUTABLE, onTheFly }));
  app.use('/ort/*', async (c) => c.notFound());

  // The folder may not exist yet (no model downloaded): then /models/ is simply a 404, without a warning.
  if (!existsSync(modelDir)) return urls;
  app.use(
    '/models/*',
    serveFiles({
      root: modelDir,
      rewrite: (path) => {
        const rest = path.slice('/models'.length);
        const versioned = /^\/v-([0-9a-f]+)(\/.*)$/.exec(rest);
        // An older version (the model changed while a page was open) is gone: 404, the widget's Retry reloads.
        if (versioned) return versioned[1] === currentModel ? versioned[2]! : null;
        return rest;
      },
      cacheControl: (path) => (path.startsWith('/models/v-') ? IMMUTABLE : REVALIDATE),
      onTheFly,
    }),
  );
  return urls;
}
