/** Files the Node server serves, resolved from the repository root so the cwd does not matter. */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const DIST_DIR = join(ROOT, 'dist');
export const DEMO_DIR = join(ROOT, 'demo');
export const DEMO_KB_DIR = join(DEMO_DIR, 'kb');

/**
 * onnxruntime-web's dist folder: the wasm runtime the browser embedder loads from our own origin. Resolved
 * from transformers.js, because the wasm must be the exact version the worker bundle was built against.
 */
export function ortWasmDir(): string {
  const fromTransformers = createRequire(createRequire(import.meta.url).resolve('@huggingface/transformers'));
  const entry = fromTransformers.resolve('onnxruntime-web');
  return join(entry.slice(0, entry.lastIndexOf('/onnxruntime-web/') + '/onnxruntime-web/'.length), 'dist');
}
