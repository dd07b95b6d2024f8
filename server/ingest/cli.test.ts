/** `npm run ingest` end to end: a real process, a real data directory, the real test-double model. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFrontMatter } from '../testing/front-matter-attack.ts';
import { FIXTURES_DIR, MODEL, MODEL_DIR } from './fixtures/paths.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// `node --import <tsx's loader>`, not node_modules/.bin/tsx: the tsx command starts a second Node process to
// run the script in, a startup each of the 16 runs here paid for nothing (0.3–0.6 s of CPU per run, measured
// with /usr/bin/time on `scripts/ingest.ts` without arguments). An absolute URL: the runs' cwd is a temporary
// folder, where a bare `tsx` would not resolve.
const TSX_LOADER = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const SCRIPT = path.join(ROOT, 'scripts/ingest.ts');

let dir: string;
let site: Server;
let siteUrl: string;
const siteHits: string[] = [];

const cli = (...args: string[]) => run(SCRIPT, args);
const docs = (...args: string[]) => run(path.join(ROOT, 'scripts/documents.ts'), args);

function run(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', TSX_LOADER, script, ...args],
      {
        cwd: dir,
        env: {
          ...process.env,
          KB_DATA_DIR: path.join(dir, 'data'),
          KB_MODEL_DIR: MODEL_DIR,
          KB_EMBED_MODEL: MODEL,
          ...env,
        },
        timeout: 110_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kb-ingest-cli-'));
  await mkdir(path.join(dir, 'docs'));
  await cp(path.join(FIXTURES_DIR, 'guide.mdx'), path.join(dir, 'docs/guide.mdx'));
  await cp(path.join(FIXTURES_DIR, 'notes.txt'), path.join(dir, 'docs/notes.txt'));
  site = createServer((req, res) => {
    siteHits.push(req.url ?? '');
    if (req.url === '/robots.txt') return void res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<html><head><title>Intranet</title></head><body><main><p>Internal only.</p></main></body></html>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise((resolve) => site?.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

describe('scripts/ingest.ts', () => {
  it('prints the usage and exits 1 without paths', async () => {
    const { code, stderr } = await cli();
    expect(code).toBe(1);
    expect(stderr).toContain('Usage: npm run ingest -- <files|dirs|urls…>');
  });

  // Each run is a fresh process: tsx, PGlite (initdb on first use) and the model, ≈5 s on an idle machine.
  it('ingests a folder and prints the summary as JSON', { timeout: 120_000 }, async () => {
    const first = await cli('docs', '--json', '--base-url', 'https://docs.example.com');
    expect(first.code).toBe(0);
    const summary = JSON.parse(first.stdout);
    expect(summary).toMatchObject({ added: 2, updated: 0, unchanged: 0, failed: [], skipped: [] });
    expect(summary.chunks).toBeGreaterThanOrEqual(5);
    expect(first.stderr).toMatch(/\[2\/2\] added docs\/notes\.txt \(\d+ chunks\)/);
  });

  it('skips unchanged files, updates changed ones, fails a missing path with exit code 1', {
    timeout: 120_000,
  }, async () => {
    await writeFile(path.join(dir, 'docs/notes.txt'), 'Invoices are sent on the fifteenth.\n');
    const second = await cli('docs', 'missing.md');
    expect(second.code).toBe(1);
    expect(second.stdout).toMatch(
      /^Ingested 3 documents \(0 added, 1 updated, 1 unchanged, 1 failed\), 1 chunk in \d+\.\d s( \(\d+ chunks\/s after a \d+\.\d s model load\))?$/m,
    );
    expect(second.stdout).toContain('[3/3] failed missing.md: no such file or directory');
    expect(second.stderr).toContain('✗ missing.md: no such file or directory');
  });

  it('--dry-run --prune reports a deleted file without touching the store; docs list/disable/delete', {
    timeout: 180_000,
  }, async () => {
    await rm(path.join(dir, 'docs/notes.txt'));
    const dry = await cli('docs', '--dry-run', '--prune', '--json');
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dry_run: true, unchanged: 1, pruned: ['docs/notes.txt'] });
    const listed = await docs('list', '--json');
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout) as { id: string; source: string; enabled: boolean }[];
    expect(rows.map((r) => [r.source, r.enabled])).toEqual([
      ['docs/guide.mdx', true],
      ['docs/notes.txt', true],
    ]);
    const disabled = await docs('disable', 'docs/guide.mdx');
    expect(disabled).toMatchObject({ code: 0, stdout: expect.stringContaining('Disabled docs/guide.mdx') });
    const deleted = await docs('delete', rows[1]!.id);
    expect(deleted).toMatchObject({ code: 0, stdout: expect.stringContaining('Deleted docs/notes.txt') });
    const missing = await docs('enable', 'nope.md');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No document with id or source "nope.md"');
  });

  it('refuses ---js and ---javascript front matter without running it, and ingests the other files', {
    timeout: 120_000,
  }, async () => {
    await mkdir(path.join(dir, 'hostile'));
    const markers = ['js', 'javascript'].map((language) => path.join(dir, `cli-${language}.ran`));
    await writeFile(path.join(dir, 'hostile/a-js.md'), codeFrontMatter('js', markers[0]!));
    await writeFile(path.join(dir, 'hostile/b-javascript.md'), codeFrontMatter('javascript', markers[1]!));
    await writeFile(
      path.join(dir, 'hostile/c-good.md'),
      '# Shipping\n\nWe ship to every planet of the solar system.\n',
    );
    // The worker pool (the default) parses: code there would run in a worker thread with `require` at hand.
    const result = await cli('hostile', '--json', '--workers', '1');
    for (const marker of markers) expect(existsSync(marker), marker).toBe(false);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({
      added: 1,
      failed: [
        { source: 'hostile/a-js.md', error: "front matter in 'js' is refused: only YAML front matter is read" },
        {
          source: 'hostile/b-javascript.md',
          error: "front matter in 'javascript' is refused: only YAML front matter is read",
        },
      ],
    });
    expect(result.stderr).toContain(
      "✗ hostile/a-js.md: front matter in 'js' is refused: only YAML front matter is read",
    );
  });
});

describe('scripts/ingest.ts on URLs', () => {
  it('refuses a loopback URL by default, says why, and sends it nothing; --allow-private crawls it', {
    timeout: 120_000,
  }, async () => {
    const refused = await cli(siteUrl);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(`[1/1] failed ${siteUrl}: refused: 127.0.0.1 is a loopback address`);
    expect(refused.stderr).toContain(`✗ ${siteUrl}: refused: 127.0.0.1 is a loopback address`);
    expect(siteHits).toEqual([]);

    const allowed = await cli(siteUrl, '--allow-private', '--dry-run', '--json');
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout)).toMatchObject({ dry_run: true, added: 1, failed: [] });
    expect(siteHits).toEqual(['/robots.txt', '/']);
  });

  it('--allow-private opens only the host it names: a redirect to [::1] or another host is not followed', {
    timeout: 120_000,
  }, async () => {
    const hits: string[] = [];
    const listen = (host: string, handler: Parameters<typeof createServer>[1]) =>
      new Promise<Server>((resolve) => {
        const server = createServer((req, res) => (hits.push(`${host}${req.url}`), handler!(req, res)));
        server.listen(0, host, () => resolve(server));
      });
    const page = (_: unknown, res: import('node:http').ServerResponse) =>
      void res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Inside</title><main>secret</main>');
    const v6 = await listen('::1', page);
    const other = await listen('127.0.0.2', page);
    const v6Url = `http://[::1]:${(v6.address() as AddressInfo).port}/`;
    const otherUrl = `http://127.0.0.2:${(other.address() as AddressInfo).port}/`;
    const named = await listen('127.0.0.1', (req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(404).end();
      res.writeHead(302, { location: req.url === '/to-v6' ? v6Url : otherUrl }).end();
    });
    const base = `http://127.0.0.1:${(named.address() as AddressInfo).port}`;
    try {
      for (const [path, target] of [
        ['/to-v6', v6Url],
        ['/to-other', otherUrl],
      ] as const) {
        const result = await cli(`${base}${path}`, '--allow-private', '--dry-run', '--json');
        expect(result.code).toBe(1);
        expect(JSON.parse(result.stdout).failed[0].error).toContain(`refused: redirect to ${target}`);
      }
      expect(hits.filter((hit) => !hit.startsWith('127.0.0.1'))).toEqual([]);
    } finally {
      for (const server of [v6, other, named]) server.close();
    }
  });

  // A machine that cannot load the model (offline, no KB_MODEL_DIR holding it) can still serve keyword search.
  it('--words-only stores documents without the model, and a run with the model embeds them', {
    timeout: 240_000,
  }, async () => {
    const env = { KB_DATA_DIR: path.join(dir, 'words-only-data') };
    await mkdir(path.join(dir, 'words-only'));
    for (const file of ['guide.mdx', 'notes.txt']) {
      await cp(path.join(FIXTURES_DIR, file), path.join(dir, 'words-only', file));
    }
    const noModel = { ...env, KB_EMBED_MODEL: 'test-double/absent-model' };
    const refused = await run(SCRIPT, ['words-only', '--json'], noModel);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Could not load the embedding model "test-double/absent-model"');
    expect(refused.stderr).toContain('add --words-only');

    const stored = await run(SCRIPT, ['words-only', '--json', '--words-only'], noModel);
    expect(stored.code).toBe(0);
    expect(JSON.parse(stored.stdout)).toMatchObject({ added: 2, failed: [] });
    expect(JSON.parse(stored.stdout).chunks).toBeGreaterThanOrEqual(5);
    expect(stored.stderr).toMatch(/chunks\/s without a model\)/);

    // The documents lack embeddings for the model, so a run that can load it embeds them again.
    const embedded = await run(SCRIPT, ['words-only', '--json'], env);
    expect(embedded.code).toBe(0);
    expect(JSON.parse(embedded.stdout)).toMatchObject({ added: 0, updated: 2, unchanged: 0, failed: [] });
  });
});
