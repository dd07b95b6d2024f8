/**
 * The evaluation data in `../shared/data` (beside the repository root): read in place, never copied into
 * the repository. Every test that needs it asks here — vitest (`describe.skipIf(!hasSharedData(…))`), the
 * Chromium tests (the fake API answers `GET /__fake/shared?path=…` from this module and the test calls
 * `this.skip()`) — so one rule holds everywhere:
 *   - on a developer's clone without `../shared`, those tests skip, and `npm test` counts them as skipped;
 *   - in CI (`CI=true`, which .ci/run sets) a missing path throws instead, so the file that asked fails and
 *     the run cannot go green by testing less.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = new URL('../../../shared/data/', import.meta.url);

/** Absolute path of `../shared/data/` (with a trailing slash). */
export const SHARED_DATA = fileURLToPath(ROOT);

/** Absolute path of a file or folder under `../shared/data`. */
export function sharedData(relative) {
  return fileURLToPath(new URL(relative, ROOT));
}

/**
 * The lookup itself, with its root and CI flag as arguments so a test can point it at a folder that does not
 * exist. Returns whether every path exists; with `ci` true a missing one throws, naming it.
 * @param {{ root: string | URL, ci: boolean }} where
 * @param {string[]} relatives
 */
export function lookUpSharedData({ root, ci }, relatives) {
  const base = new URL(root);
  const missing = relatives.map((relative) => fileURLToPath(new URL(relative, base))).filter((p) => !existsSync(p));
  if (missing.length > 0 && ci) {
    throw new Error(
      `CI=true and the shared evaluation data is missing: ${missing.join(', ')}. A test that needs it fails in CI ` +
        'instead of skipping; put the data at ../shared/data beside the repository.',
    );
  }
  return missing.length === 0;
}

/** Whether every given path under `../shared/data` exists; in CI (`CI=true`) a missing one throws. */
export function hasSharedData(...relatives) {
  return lookUpSharedData({ root: ROOT, ci: process.env.CI === 'true' }, relatives);
}
