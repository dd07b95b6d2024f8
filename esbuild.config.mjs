/**
 * Builds the browser widget: dist/kb-chat.js (the element) and dist/kb-chat-embedder.js (the Web Worker
 * with transformers.js). Two entry points rather than code splitting, so the element can create its worker
 * from a fixed file name next to itself.
 *
 *   node esbuild.config.mjs          build and print sizes
 */
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';

const common = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  // 'production' picks Lit's production build; with platform 'browser' the 'node' condition is never used,
  // so transformers.js resolves to dist/transformers.web.js and onnxruntime-web to its bundled ESM build.
  conditions: ['production'],
  metafile: true,
  logLevel: 'warning',
  tsconfig: 'tsconfig.json',
};

const outputs = [
  { entry: 'widget/kb-chat.ts', outfile: 'dist/kb-chat.js' },
  { entry: 'widget/embedder/embedder.worker.ts', outfile: 'dist/kb-chat-embedder.js' },
];

const results = await Promise.all(
  outputs.map(({ entry, outfile }) => build({ ...common, entryPoints: [entry], outfile })),
);

// The main bundle must stay small: transformers.js and ONNX Runtime belong in the worker only.
const mainInputs = Object.keys(results[0].metafile.inputs);
const leaked = mainInputs.filter((path) => /@huggingface\/transformers|onnxruntime/.test(path));
if (leaked.length) {
  console.error(`dist/kb-chat.js must not include the embedder, but it bundles:\n  ${leaked.join('\n  ')}`);
  process.exit(1);
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
for (const { outfile } of outputs) {
  const code = await readFile(outfile);
  console.log(`${outfile.padEnd(26)} ${kb(code.length).padStart(10)} min  ${kb(gzipSync(code).length).padStart(10)} gzip`);
}
