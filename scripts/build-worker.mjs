/**
 * Builds what `wrangler deploy` uploads, offline:
 *   dist/public   static assets — the loader and its hashed bundles, the ONNX Runtime wasm the embedder requests
 *                 (/ort/<version>/) and the embedding model (/models/v-<hash>/<id>/), each checked against
 *                 Workers' 25 MiB per-file limit; _headers (caching) and kb-assets.json (the model's URL)
 *   dist/worker   the Worker bundle, from `wrangler deploy --dry-run` (the exact bundle a deploy uploads)
 *
 *   node scripts/build-worker.mjs                 after the widget build (node esbuild.config.mjs)
 *   node scripts/build-worker.mjs --skip-assets   the Worker only (tests), whatever dist/public holds
 *   node scripts/build-worker.mjs --outdir DIR    bundle into DIR instead of dist/worker
 *
 * Environment: KB_MODEL_DIR (folder with <model id>/…) and KB_EMBED_MODEL select the model copied to
 * /models/. Without KB_MODEL_DIR no model is copied: host it elsewhere and set MODELS_URL (docs/deploy.md).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { ASSET_HEADERS, ASSET_MANIFEST, MAX_ASSET_BYTES } from './worker-assets.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = join(ROOT, 'dist');
const PUBLIC = join(DIST, 'public');
const DEFAULT_MODEL = 'Xenova/all-MiniLM-L6-v2';

const args = process.argv.slice(2);
const skipAssets = args.includes('--skip-assets');
const outdir = args.includes('--outdir') ? args[args.indexOf('--outdir') + 1] : join(DIST, 'worker');

const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

if (skipAssets) {
  // The Worker alone, independent of whatever dist/public holds: wrangler gets an empty assets folder.
  const empty = await mkdtemp(join(tmpdir(), 'kb-chat-no-assets-'));
  await bundleWorker(outdir, ['--assets', empty]);
  await rm(empty, { recursive: true, force: true });
} else {
  await assembleAssets();
  await bundleWorker(outdir);
}

async function assembleAssets() {
  await rm(PUBLIC, { recursive: true, force: true });
  await mkdir(PUBLIC, { recursive: true });
  const copied = [];
  const copy = async (from, to) => {
    await mkdir(dirname(to), { recursive: true });
    await copyFile(from, to);
    copied.push({ path: relative(PUBLIC, to), bytes: (await stat(to)).size });
  };

  // The widget: the loader and the content-hashed chat UI and embedder it names (dist/manifest.json, written
  // by esbuild.config.mjs), each with its source map. The unhashed copies stay out: only the loader's
  // references are ever requested here. Cloudflare compresses at its edge, so no .br/.gz either.
  const manifestFile = join(DIST, 'manifest.json');
  if (!(await exists(manifestFile)))
    fail('dist/manifest.json is missing: run the widget build first (node esbuild.config.mjs).');
  const manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
  // Generative mode's worker, and the chat UI's lazy chunks (generative mode, the CAPTCHA), when the build has them.
  for (const file of [
    manifest.loader,
    manifest.ui,
    manifest.embedder,
    manifest.generator,
    manifest.generative,
    manifest.captcha,
  ]
    .filter(Boolean)
    .flatMap((name) => [name, `${name}.map`])) {
    const from = join(DIST, file);
    if (!(await exists(from))) {
      if (file.endsWith('.map')) continue;
      fail(`${relative(ROOT, from)} is missing: run the widget build first (node esbuild.config.mjs).`);
    }
    await copy(from, join(PUBLIC, file));
  }

  // The site-owner console (/admin/), built by esbuild.config.mjs into dist/admin.
  for (const file of ['index.html', 'admin.css', 'kb-admin.js', 'kb-admin.js.map']) {
    const from = join(DIST, 'admin', file);
    if (!(await exists(from)))
      fail(`${relative(ROOT, from)} is missing: run the widget build first (node esbuild.config.mjs).`);
    await copy(from, join(PUBLIC, 'admin', file));
  }

  // The ONNX Runtime wasm the embedder asks for, under its version (/ort/<version>/…).
  await copy(join(DIST, manifest.ort_wasm), join(PUBLIC, manifest.ort_wasm));

  // The embedding model: only what transformers.js loads for dtype q8 (configs, tokenizer, the quantized
  // ONNX file) — the full-precision model.onnx is never requested and is often over the limit. Under
  // /models/v-<hash of the files>/, so browsers may cache it for a year and a new model is a new URL.
  const modelDir = process.env.KB_MODEL_DIR?.trim();
  const model = process.env.KB_EMBED_MODEL?.trim() || DEFAULT_MODEL;
  const assetManifest = {};
  if (modelDir) {
    const from = join(modelDir, model);
    const files = (await readdir(from))
      .filter((file) => /\.(json|txt)$/.test(file))
      .map((file) => [join(from, file), file]);
    files.push([join(from, 'onnx', 'model_quantized.onnx'), 'onnx/model_quantized.onnx']);
    const hash = createHash('sha256');
    for (const [path, name] of files)
      hash
        .update(name)
        .update('\0')
        .update(await readFile(path));
    const version = `v-${hash.digest('hex').slice(0, 10)}`;
    for (const [path, name] of files) await copy(path, join(PUBLIC, 'models', version, model, name));
    assetManifest.models_url = `/models/${version}/`;
  } else {
    console.warn(
      'KB_MODEL_DIR is not set: no model copied to dist/public/models (set MODELS_URL to where it is hosted).',
    );
  }
  await writeFile(join(PUBLIC, ASSET_MANIFEST), `${JSON.stringify(assetManifest)}\n`);

  await writeFile(join(PUBLIC, '_headers'), ASSET_HEADERS);

  const over = copied.filter((f) => f.bytes > MAX_ASSET_BYTES);
  for (const f of copied) console.log(`dist/public/${f.path.padEnd(52)} ${mib(f.bytes).padStart(10)}`);
  if (over.length) {
    fail(
      `${over.map((f) => `${f.path} (${mib(f.bytes)})`).join(', ')} exceed Workers' 25 MiB per-asset limit.\n` +
        'The embedder must load the plain ORT build (ort-wasm-simd-threaded.wasm, 13.6 MiB), or host the file ' +
        'elsewhere and set ORT_WASM_URL (docs/deploy.md, "Files over 25 MiB").',
    );
  }
}

async function bundleWorker(dir, extraArgs = []) {
  const env = {
    ...process.env,
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_SEND_ERROR_REPORTS: 'false',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  };
  const wrangler = join(ROOT, 'node_modules', '.bin', 'wrangler');
  await promisify(execFile)(wrangler, ['deploy', '--dry-run', '--outdir', dir, ...extraArgs], { cwd: ROOT, env }).catch(
    (error) => {
      fail(`wrangler deploy --dry-run failed:\n${error.stdout ?? ''}${error.stderr ?? error.message}`);
    },
  );
  const code = await readFile(join(dir, 'worker.js'));
  console.log(
    `${relative(ROOT, join(dir, 'worker.js')).padEnd(30)} ${kib(code.length).padStart(10)} min ${kib(gzipSync(code).length).padStart(10)} gzip`,
  );
}

async function exists(path) {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function fail(message) {
  console.error(message);
  process.exit(1);
}
