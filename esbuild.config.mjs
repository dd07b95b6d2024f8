/**
 * Builds the browser widget into dist/:
 *   kb-chat.js                   the loader: defines <kb-chat> and paints the bubble          budget ≤ 4 KB gz
 *   kb-chat-ui.<hash>.js         the chat UI, imported by the loader on intent (hover/focus)  budget ≤ 40 KB gz
 *   kb-chat-generative.<hash>.js generative mode's part of the chat UI, imported by it only when the server's
 *                                answer mode is generative (extractive visitors never fetch it)
 *   kb-chat-captcha.<hash>.js    the CAPTCHA step, imported by the chat UI only when the server asks for one
 *   kb-chat-embedder.<hash>.js   the Web Worker with transformers.js
 *   kb-chat-generator.<hash>.js  the Web Worker writing generative answers (loaded only in that mode)
 *   ort/<version>/ort-wasm-simd-threaded.wasm   the ONNX Runtime binary the embedder was built against
 * and, for each, `.br` and `.gz` (compressed once here, at the best levels, instead of on every request).
 * The loader keeps its name (it is what sites paste; served short-lived with an ETag); everything it loads
 * is named by content or version, so it can be cached for a year (`immutable`): a new build is new names.
 * `kb-chat-ui.js` and `kb-chat-embedder.js` are written too (unhashed copies, for loaders cached before a
 * deploy and for the tests). Separate entry points rather than code splitting, so no shared chunk sneaks
 * into the loader. Sizes go to `<outdir>/sizes.json` (widget/kb-chat.bundle.test.ts fails when a budget is
 * exceeded) and the names to `<outdir>/manifest.json` (scripts/build-worker.mjs, the Node server).
 *
 *   node esbuild.config.mjs          build into dist/ and print sizes (npm run build)
 *   import { buildWidget } from …    used by web-test-runner.config.mjs to test the built bundles
 */
import { build, transform } from 'esbuild';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip as gzipAsync, gzipSync } from 'node:zlib';
import { upToDate, writeStamp } from './scripts/lib/build-stamp.mjs';

/**
 * The widget's stylesheets are CSS in template strings (widget/*.styles.ts), which the JS minifier keeps as
 * written, indentation and all: they are minified as CSS here (no target, so nothing is rewritten for older
 * browsers). A string with `${…}` in it is left alone.
 */
const minifyStyles = {
  name: 'minify-styles',
  setup(build) {
    build.onLoad({ filter: /widget[\\/].*\.styles\.ts$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      const match = /export default `([^`]*)`/.exec(source);
      if (!match || match[1].includes('${')) return undefined;
      const { code } = await transform(match[1], { loader: 'css', minify: true });
      return {
        contents: source.replace(match[0], () => `export default ${JSON.stringify(code.trim())}`),
        loader: 'ts',
      };
    });
  },
};

const common = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  // 'production' picks Lit's production build; with platform 'browser' the 'node' condition is never used,
  // so transformers.js resolves to dist/transformers.web.js and onnxruntime-web to its bundled ESM build
  // (ort.wasm.bundle.min.mjs via the alias below, whose Emscripten glue is inlined: only the .wasm is fetched).
  conditions: ['production'],
  // transformers.js imports the WebGPU build of ONNX Runtime, whose glue needs the 26.9 MB asyncify wasm —
  // over Cloudflare Workers' 25 MiB per-asset limit. Embedding a question needs only the CPU (wasm) build:
  // same results (checked: identical vectors), a 14 MB wasm, and a smaller worker bundle.
  alias: { 'onnxruntime-web/webgpu': 'onnxruntime-web/wasm' },
  metafile: true,
  logLevel: 'warning',
  tsconfig: 'tsconfig.json',
  plugins: [minifyStyles],
};

const ENTRIES = [
  { entry: 'widget/kb-chat.ts', file: 'kb-chat.js' },
  { entry: 'widget/ui/chat-ui.ts', file: 'kb-chat-ui.js' },
  { entry: 'widget/embedder/embedder.worker.ts', file: 'kb-chat-embedder.js' },
  { entry: 'widget/generator/generator.worker.ts', file: 'kb-chat-generator.js' },
  { entry: 'widget/ui/generative.ts', file: 'kb-chat-generative.js' },
  { entry: 'widget/api/captcha.ts', file: 'kb-chat-captcha.js' },
];

/** gzip budgets in bytes: the loader paints the bubble; the chat UI is everything but the workers. */
export const BUDGETS = { 'kb-chat.js': 4 * 1024, 'kb-chat-ui.js': 40 * 1024 };

/** The one ONNX Runtime binary the workers ask for (widget/workers/transformers-setup.ts, ORT_WASM_FILE). */
export const ORT_WASM_FILE = 'ort-wasm-simd-threaded.wasm';

/**
 * onnxruntime-web as transformers.js resolves it (the copy the embedder bundles): its dist folder and version.
 * The version names the wasm's folder (/ort/<version>/), so a new ORT is a new URL.
 */
export async function ortRuntime() {
  const fromTransformers = createRequire(createRequire(import.meta.url).resolve('@huggingface/transformers'));
  const entry = fromTransformers.resolve('onnxruntime-web');
  const root = entry.slice(0, entry.lastIndexOf('/onnxruntime-web/') + '/onnxruntime-web/'.length);
  const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  return { dir: join(root, 'dist'), version };
}

const brotli = promisify(brotliCompress);
const gzip = promisify(gzipAsync);

/**
 * `<file>.br` and `<file>.gz` beside `file`. Brotli quality 11 for the small bundles; 9 for the 14 MB wasm
 * (11 would take a minute of the build for ≈ 3 % less; 9 takes ≈ 2.5 s here and gives 2.7 MB against gzip's 3.7 MB).
 */
export async function precompress(file) {
  const data = await readFile(file);
  const quality = data.length > 2 * 1024 * 1024 ? 9 : 11;
  const [br, gz] = await Promise.all([
    brotli(data, {
      params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
    }),
    gzip(data, { level: 9 }),
  ]);
  await Promise.all([writeFile(`${file}.br`, br), writeFile(`${file}.gz`, gz)]);
  return { br: br.length, gzip: gz.length };
}

const contentHash = (data) => createHash('sha256').update(data).digest('hex').slice(0, 10);

/** Copy `dir/file` (and its map) to a name with the content's hash; returns the new name. */
async function hashed(dir, file) {
  const code = await readFile(join(dir, file), 'utf8');
  const name = file.replace(/\.js$/, `.${contentHash(code)}.js`);
  await writeFile(
    join(dir, name),
    code.replace(`//# sourceMappingURL=${file}.map`, `//# sourceMappingURL=${name}.map`),
  );
  await copyFile(join(dir, `${file}.map`), join(dir, `${name}.map`));
  return name;
}

/** Every source file the builds of this process read (esbuild's metafile inputs), for the build stamp. */
const inputsRead = new Set();

/** Build into `outdir`; returns [{ file, min, gzip, budget }] sizes in bytes. */
export async function buildWidget({ outdir = 'dist', compress = true } = {}) {
  const ort = await ortRuntime();
  const out = (file) => join(outdir, file);
  const entry = (file, define = {}) =>
    build({
      ...common,
      entryPoints: [ENTRIES.find((e) => e.file === file).entry],
      outfile: out(file),
      // The embedder asks for the wasm under its version (/ort/<version>/…): the binary must match the glue.
      define: { __ORT_VERSION__: JSON.stringify(ort.version), ...define },
    });
  // Earlier builds' hashed files would pile up (and be served forever): only this build's stay.
  for (const name of await readdir(outdir).catch(() => [])) {
    if (/^kb-chat-(ui|embedder|generator|generative|captcha)\.[0-9a-f]{10}\.js/.test(name))
      await rm(join(outdir, name));
  }
  // The workers and the UI's lazy chunks first: the UI is compiled with its chunks' hashed names, the loader
  // with the UI's and the workers'.
  const [embedder, generator, generative, captcha] = await Promise.all(
    ['kb-chat-embedder.js', 'kb-chat-generator.js', 'kb-chat-generative.js', 'kb-chat-captcha.js'].map((file) =>
      entry(file),
    ),
  );
  const generativeFile = await hashed(outdir, 'kb-chat-generative.js');
  const captchaFile = await hashed(outdir, 'kb-chat-captcha.js');
  const ui = await entry('kb-chat-ui.js', {
    __KB_GENERATIVE_FILE__: JSON.stringify(generativeFile),
    __KB_CAPTCHA_FILE__: JSON.stringify(captchaFile),
  });
  // Other ORT versions' wasm goes; this version's stays (same version, same file: compressed once, ≈ 3 s saved).
  for (const version of await readdir(out('ort')).catch(() => [])) {
    if (version !== ort.version) await rm(out(join('ort', version)), { recursive: true, force: true });
  }
  const manifest = {
    loader: 'kb-chat.js',
    ui: await hashed(outdir, 'kb-chat-ui.js'),
    embedder: await hashed(outdir, 'kb-chat-embedder.js'),
    generator: await hashed(outdir, 'kb-chat-generator.js'),
    generative: generativeFile,
    captcha: captchaFile,
    ort_version: ort.version,
    ort_wasm: `ort/${ort.version}/${ORT_WASM_FILE}`,
  };
  const loader = await build({
    ...common,
    entryPoints: [ENTRIES[0].entry],
    outfile: out('kb-chat.js'),
    define: {
      __KB_UI_FILE__: JSON.stringify(manifest.ui),
      __KB_EMBEDDER_FILE__: JSON.stringify(manifest.embedder),
      __KB_GENERATOR_FILE__: JSON.stringify(manifest.generator),
    },
  });
  const results = [loader, ui, embedder, generator, generative, captcha];
  for (const result of results) for (const path of Object.keys(result.metafile.inputs)) inputsRead.add(path);

  // The loader is only the bubble: no Lit, no sanitizer. transformers.js and ONNX Runtime belong in the worker
  // only. Generative mode's code stays out of the chat UI (every visitor's download), and generative mode
  // bundles no Lit, no renderer, no sanitizer of its own: the chat UI renders what it changes.
  const leaks = (i, pattern) => Object.keys(results[i].metafile.inputs).filter((path) => pattern.test(path));
  const leaked = [
    ...leaks(0, /node_modules|widget\/(ui|render|controllers|api)\/|^markdown\//),
    ...leaks(
      1,
      /@huggingface\/transformers|onnxruntime|generator-controller|generator\/output|ui\/generative|api\/captcha/,
    ),
    ...leaks(4, /node_modules|widget\/render\/|^markdown\/|chat-ui/),
    ...leaks(5, /node_modules|widget\/render\/|^markdown\/|chat-ui/),
  ];
  if (leaked.length) throw new Error(`a widget bundle has what it must not:\n  ${leaked.join('\n  ')}`);

  const sizes = await Promise.all(
    ENTRIES.map(async ({ file }) => {
      const code = await readFile(out(file));
      return {
        file: out(file),
        min: code.length,
        gzip: gzipSync(code, { level: 9 }).length,
        budget: BUDGETS[file] ?? null,
      };
    }),
  );
  await writeFile(out('sizes.json'), `${JSON.stringify(sizes, null, 2)}\n`);
  await writeFile(out('manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  if (compress) {
    const files = [
      manifest.loader,
      manifest.ui,
      manifest.embedder,
      manifest.generator,
      manifest.generative,
      manifest.captcha,
      'kb-chat-ui.js',
      'kb-chat-embedder.js',
      'kb-chat-generator.js',
      'kb-chat-generative.js',
      'kb-chat-captcha.js',
    ];
    const wasmDone = await Promise.all(
      ['', '.br', '.gz'].map((ext) =>
        stat(out(manifest.ort_wasm + ext)).then(
          () => true,
          () => false,
        ),
      ),
    );
    if (!wasmDone.every(Boolean)) {
      await mkdir(dirname(out(manifest.ort_wasm)), { recursive: true });
      await copyFile(join(ort.dir, ORT_WASM_FILE), out(manifest.ort_wasm));
      files.push(manifest.ort_wasm);
    }
    for (const file of files) await precompress(out(file));
  }
  return sizes;
}

/**
 * The site-owner console (/admin) into `<outdir>/admin/`: its own entry, so nothing of it reaches
 * the widget's loader or chat UI (and nothing of theirs reaches it but Lit, the protocol module and the Markdown
 * renderer of markdown/, bundled again), plus its page and stylesheet. Served by the Node server and copied into the Worker's assets.
 */
export async function buildConsole({ outdir = 'dist', compress = true } = {}) {
  const dir = join(outdir, 'admin');
  await mkdir(dir, { recursive: true });
  const result = await build({ ...common, entryPoints: ['console/kb-admin.ts'], outfile: join(dir, 'kb-admin.js') });
  const leaked = Object.keys(result.metafile.inputs).filter((path) =>
    /widget\/|@huggingface\/transformers|onnxruntime|marked/.test(path),
  );
  for (const path of Object.keys(result.metafile.inputs)) inputsRead.add(path);
  if (leaked.length) throw new Error(`the console bundles what it must not:\n  ${leaked.join('\n  ')}`);
  for (const file of ['index.html', 'admin.css']) await copyFile(join('console', file), join(dir, file));
  if (compress) for (const file of ['kb-admin.js', 'index.html', 'admin.css']) await precompress(join(dir, file));
  const code = await readFile(join(dir, 'kb-admin.js'));
  return { file: join(dir, 'kb-admin.js'), min: code.length, gzip: gzipSync(code, { level: 9 }).length, budget: null };
}

/**
 * `--if-changed` (what `npm start` runs): build only when a source changed since the last build into dist/
 * (scripts/lib/build-stamp.mjs); `npm run build` always builds. The stamp lists what was read and written.
 */
const STAMP = 'dist/build-stamp.json';
const BUILD_SCRIPTS = ['esbuild.config.mjs', 'scripts/lib/build-stamp.mjs', 'package-lock.json'];

async function writeBuildStamp() {
  const manifest = JSON.parse(await readFile('dist/manifest.json', 'utf8'));
  const built = [...new Set(Object.values(manifest).filter((v) => /\.(js|wasm)$/.test(v)))];
  const outputs = ['dist/manifest.json', 'dist/sizes.json'];
  for (const file of [...built, ...ENTRIES.map((e) => e.file)])
    outputs.push(`dist/${file}`, `dist/${file}.br`, `dist/${file}.gz`);
  for (const file of ['kb-admin.js', 'index.html', 'admin.css']) outputs.push(`dist/admin/${file}`);
  await writeStamp(STAMP, {
    inputs: [...inputsRead, ...BUILD_SCRIPTS, 'console/index.html', 'console/admin.css'],
    outputs,
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    if (process.argv.includes('--if-changed') && (await upToDate(STAMP, BUILD_SCRIPTS))) {
      console.log('Widget and console bundles are up to date (no source changed since the last build).');
      process.exit(0);
    }
    const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
    let over = false;
    for (const { file, min, gzip, budget } of [...(await buildWidget()), await buildConsole()]) {
      const note = budget ? `  (budget ${kb(budget)}${gzip > budget ? ' EXCEEDED' : ''})` : '';
      over ||= budget !== null && gzip > budget;
      console.log(`${file.padEnd(26)} ${kb(min).padStart(10)} min  ${kb(gzip).padStart(10)} gzip${note}`);
    }
    if (over) process.exit(1);
    await writeBuildStamp();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
