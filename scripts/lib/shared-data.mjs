/**
 * The evaluation data in `../shared/data` (beside the repository root): read in place, never copied into
 * the repository. Every test that needs it asks here, so a clone without `../shared` skips those tests the
 * same way everywhere — vitest (`describe.skipIf(!hasSharedData(…))`), the Chromium tests (the fake API
 * answers `GET /__fake/shared?path=…` from this module and the test calls `this.skip()`) — and
 * `npm test` counts them in its `N passed, N failed, N skipped` line.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Absolute path of `../shared/data/` (with a trailing slash). */
export const SHARED_DATA = fileURLToPath(new URL('../../../shared/data/', import.meta.url));

/** Absolute path of a file or folder under `../shared/data`. */
export function sharedData(relative) {
  return fileURLToPath(new URL(relative, new URL('../../../shared/data/', import.meta.url)));
}

/** Whether every given path under `../shared/data` exists. */
export function hasSharedData(...relatives) {
  return relatives.every((relative) => existsSync(sharedData(relative)));
}
