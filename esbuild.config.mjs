/**
 * Builds the browser widget: dist/kb-chat.js (the element) and dist/kb-chat-embedder.js (the Web Worker
 * with transformers.js). Two entry points rather than code splitting, so the element can create its worker
 * from a fixed file name next to itself (`new URL('./kb-chat-embedder.js', import.meta.url)`).
 *
 *   node esbuild.config.mjs          build into dist/ and print sizes (npm run build)
 *   import { buildWidget } from …    used by web-test-runner.config.mjs to test the built bundles
 */
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
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
  // (ort.webgpu.bundle.min.mjs, whose Emscripten glue is inlined: only the .wasm is fetched at run time).
  conditions: ['production'],
  metafile: true,
  logLevel: 'warning',
  tsconfig: 'tsconfig.json',
};

const ENTRIES = [
  { entry: 'widget/kb-chat.ts', file: 'kb-chat.js' },
  { entry: 'widget/embedder/embedder.worker.ts', file: 'kb-chat-embedder.js' },
];

/** Build both bundles into `outdir`; returns [{ file, min, gzip }] sizes in bytes. */
export async function buildWidget({ outdir = 'dist' } = {}) {
  const results = await Promise.all(
    ENTRIES.map(({ entry, file }) => build({ ...common, entryPoints: [entry], outfile: join(outdir, file) })),
  );

  // The main bundle must stay small: transformers.js and ONNX Runtime belong in the worker only.
  const leaked = Object.keys(results[0].metafile.inputs).filter((path) =>
    /@huggingface\/transformers|onnxruntime/.test(path),
  );
  if (leaked.length) throw new Error(`kb-chat.js must not include the embedder, but it bundles:\n  ${leaked.join('\n  ')}`);

  return Promise.all(
    ENTRIES.map(async ({ file }) => {
      const code = await readFile(join(outdir, file));
      return { file: join(outdir, file), min: code.length, gzip: gzipSync(code).length };
    }),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
    for (const { file, min, gzip } of await buildWidget()) {
      console.log(`${file.padEnd(26)} ${kb(min).padStart(10)} min  ${kb(gzip).padStart(10)} gzip`);
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
