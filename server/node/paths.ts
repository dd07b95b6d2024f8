/** Files the Node server serves, resolved from the repository root so the cwd does not matter. */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DIST_DIR = join(ROOT, 'dist');
export const DEMO_DIR = join(ROOT, 'demo');
export const DEMO_KB_DIR = join(DEMO_DIR, 'kb');

/** onnxruntime-web's dist folder: the wasm runtime the browser embedder loads from our own origin. */
export function ortWasmDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('onnxruntime-web/package.json')), 'dist');
}
