/**
 * The order vitest hands test files to its workers. Without a cache of earlier runs' durations (a fresh
 * clone, as in CI) vitest starts the largest files first, and the slowest files here are small ones that
 * ingest whole corpora: scripts/eval/floor.test.ts (51 lines, 137 s in the last CI run) came 80th of 99 and
 * ran alone on one core at the end while the other had nothing left. Starting the files named here first,
 * in this order, leaves the many short files to fill both workers at the end.
 *
 * Update the list from a run's test-results/durations-node.json (scripts/lib/durations-reporter.mjs; `wall`
 * is the time a file held a worker): a file that is gone from the list only loses its place.
 */
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export function longestFirst(files: readonly string[]) {
  return class LongestFirst extends BaseSequencer {
    override async sort(specs: TestSpecification[]): Promise<TestSpecification[]> {
      const sorted = await super.sort(specs);
      const rank = (spec: TestSpecification) => {
        const i = files.indexOf(path.relative(spec.project.config.root, spec.moduleId).split(path.sep).join('/'));
        return i < 0 ? files.length : i;
      };
      // Stable: the unlisted files keep vitest's own order (failed first, then by duration or size).
      return sorted
        .map((spec, i) => ({ spec, i, rank: rank(spec) }))
        .sort((a, b) => a.rank - b.rank || a.i - b.i)
        .map(({ spec }) => spec);
    }
  };
}
