/**
 * Builds the browser widget, three files with fixed names next to each other:
 *   dist/kb-chat.js           the loader: defines <kb-chat> and paints the bubble          budget ≤ 4 KB gz
 *   dist/kb-chat-ui.js        the chat UI, imported by the loader on intent (hover/focus)  budget ≤ 40 KB gz
 *   dist/kb-chat-embedder.js  the Web Worker with transformers.js, started when the panel opens
 * Separate entry points rather than code splitting, so each file can be found from a fixed name next to the
 * loader (`new URL('./kb-chat-ui.js', import.meta.url)`) and no shared chunk sneaks into the loader.
 * The sizes are written to `<outdir>/sizes.json`; widget/kb-chat.bundle.test.ts fails when a budget is exceeded.
 *
 *   node esbuild.config.mjs          build into dist/ and print sizes (npm run build)
 *   import { buildWidget } from …    used by web-test-runner.config.mjs to test the built bundles
 */
import { build } from 'esbuild';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

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
};

const ENTRIES = [
  { entry: 'widget/kb-chat.ts', file: 'kb-chat.js' },
  { entry: 'widget/ui/chat-ui.ts', file: 'kb-chat-ui.js' },
  { entry: 'widget/embedder/embedder.worker.ts', file: 'kb-chat-embedder.js' },
];

/** The files the widget build writes (each with a .map), e.g. for scripts/build-worker.mjs to copy. */
export const WIDGET_FILES = ENTRIES.map(({ file }) => file);

/** gzip budgets in bytes (issue 4): the loader paints the bubble; the chat UI is everything but the worker. */
export const BUDGETS = { 'kb-chat.js': 4 * 1024, 'kb-chat-ui.js': 40 * 1024 };

/** Build both bundles into `outdir`; returns [{ file, min, gzip }] sizes in bytes. */
export async function buildWidget({ outdir = 'dist' } = {}) {
  const results = await Promise.all(
    ENTRIES.map(({ entry, file }) => build({ ...common, entryPoints: [entry], outfile: join(outdir, file) })),
  );

  // The loader is only the bubble: no Lit, no sanitizer. transformers.js and ONNX Runtime belong in the worker only.
  const leaks = (i, pattern) => Object.keys(results[i].metafile.inputs).filter((path) => pattern.test(path));
  const leaked = [...leaks(0, /node_modules|widget\/(ui|render|controllers|api)\//), ...leaks(1, /@huggingface\/transformers|onnxruntime/)];
  if (leaked.length) throw new Error(`the loader or the chat UI bundles what it must not:\n  ${leaked.join('\n  ')}`);

  const sizes = await Promise.all(
    ENTRIES.map(async ({ file }) => {
      const code = await readFile(join(outdir, file));
      return { file: join(outdir, file), min: code.length, gzip: gzipSync(code, { level: 9 }).length, budget: BUDGETS[file] ?? null };
    }),
  );
  await writeFile(join(outdir, 'sizes.json'), `${JSON.stringify(sizes, null, 2)}\n`);
  return sizes;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
    let over = false;
    for (const { file, min, gzip, budget } of await buildWidget()) {
      const note = budget ? `  (budget ${kb(budget)}${gzip > budget ? ' EXCEEDED' : ''})` : '';
      over ||= budget !== null && gzip > budget;
      console.log(`${file.padEnd(26)} ${kb(min).padStart(10)} min  ${kb(gzip).padStart(10)} gzip${note}`);
    }
    if (over) process.exit(1);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
