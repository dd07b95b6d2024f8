/**
 * A vitest reporter that writes where a run's time went, one row per test file, slowest first:
 *
 *   npx vitest run --reporter=default --reporter=./scripts/lib/durations-reporter.mjs   → test-results/durations-node.json
 *   npx vitest run --config vitest.e2e.config.ts --reporter=default --reporter=…        → test-results/durations-e2e.json
 *
 * The JSON reporter's per-file times span first test start to last test end, so a file's beforeAll (a server
 * start, a corpus ingest, a model load) and its imports are missing from them; this reporter reads vitest's
 * own per-module diagnostic instead (import, hooks and tests) and the wall-clock span the module occupied a
 * worker, so the slow files and the idle tail of a run can be seen. scripts/test.mjs passes it to each vitest
 * step; the file is only written, never read by a test.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export default class DurationsReporter {
  /** @type {Map<string, number>} */
  started = new Map();
  /** @type {Map<string, number>} */
  ended = new Map();
  runStart = Date.now();

  onInit(vitest) {
    this.root = vitest.config.root;
  }

  // Queued, not started: the start event comes after the module's imports, which are part of its cost.
  onTestModuleQueued(module) {
    this.started.set(module.moduleId, Date.now());
  }

  onTestModuleEnd(module) {
    this.ended.set(module.moduleId, Date.now());
  }

  onTestRunEnd(modules) {
    const seconds = (ms) => Math.round(ms) / 1000;
    const rows = modules.map((module) => {
      const d = module.diagnostic();
      const start = this.started.get(module.moduleId) ?? this.runStart;
      const end = this.ended.get(module.moduleId) ?? start;
      return {
        file: path.relative(this.root ?? process.cwd(), module.moduleId),
        tests: [...module.children.allTests()].length,
        wall: seconds(end - start),
        import: seconds(d.collectDuration),
        environment: seconds(d.environmentSetupDuration + d.prepareDuration + d.setupDuration),
        run: seconds(d.duration),
        from: seconds(start - this.runStart),
        to: seconds(end - this.runStart),
      };
    });
    rows.sort((a, b) => b.wall - a.wall);
    // Named after the config (vitest.e2e.config.ts → e2e), so the steps of one `npm test` keep their own files.
    const config = process.argv[process.argv.indexOf('--config') + 1] ?? '';
    const name = process.argv.includes('--config') ? /vitest\.(\w+)\.config/.exec(config)?.[1] : undefined;
    const out = `test-results/durations-${name ?? 'node'}.json`;
    mkdirSync(path.dirname(out), { recursive: true });
    const total = rows.reduce((s, r) => s + r.wall, 0);
    writeFileSync(
      out,
      `${JSON.stringify({ wall: seconds(Date.now() - this.runStart), fileSeconds: seconds(total * 1000), files: rows }, null, 1)}\n`,
    );
  }
}
