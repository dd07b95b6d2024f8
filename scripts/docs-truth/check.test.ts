/**
 * The docs-truth check (scripts/docs-truth/check.ts) over the repository itself, with no exceptions, and on a
 * small made-up repository whose every kind of drift it must report with its file and line.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_PATHS } from '../../protocol/api.ts';
import { ADMIN_BASE, ADMIN_PATHS, pathUnder } from '../../protocol/console.ts';
import { WEBHOOK_EVENTS } from '../../protocol/webhooks.ts';
import { checkDocs, format, repositoryPath } from './check.ts';

describe('the repository’s Markdown', () => {
  it('names only npm scripts, paths and environment variables that exist, and documents every variable read', () => {
    expect(checkDocs().map(format)).toEqual([]);
  });
});

describe('docs/api.md', () => {
  const api = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');

  it('documents every path of API_PATHS and every console path of ADMIN_PATHS', () => {
    const missing = Object.entries(API_PATHS)
      .filter(([, path]) => !new RegExp(`(GET|POST|PUT|DELETE) ${path}\\b`).test(api))
      .map(([name, path]) => `API_PATHS.${name} (${path})`);
    // The console table names each path relative to /api/admin: "| `POST documents/upload` |".
    for (const [name, path] of Object.entries(ADMIN_PATHS)) {
      const relative = pathUnder(ADMIN_BASE, path).slice(1);
      if (!new RegExp(`^\\| \`[A-Z/]+ ${relative}[\`/]`, 'm').test(api)) missing.push(`ADMIN_PATHS.${name} (${path})`);
    }
    expect(missing, 'docs/api.md does not document these endpoints').toEqual([]);
  });

  it('lists in its Webhooks table exactly the event types protocol/webhooks.ts defines', () => {
    const section = api.slice(api.indexOf('## Webhooks'), api.indexOf('\n## ', api.indexOf('## Webhooks') + 1));
    const listed = [...section.matchAll(/^\| `([a-z]+\.[a-z]+)` \|/gm)].map((m) => m[1]);
    expect(listed).toEqual(WEBHOOK_EVENTS);
  });
});

describe('the check', () => {
  const root = mkdtempSync(join(tmpdir(), 'kb-docs-truth-'));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write('package.json', JSON.stringify({ scripts: { ingest: 'x', 'build:widget': 'y' } }));
  write('wrangler.toml', '[assets]\nbinding = "ASSETS"\n');
  write('server/config.ts', "export const c = (env) => [env.KB_PORT, number(env, 'KB_LIMIT'), env.ASSETS];\n");
  write('server/config.test.ts', 'process.env.KB_TEST_ONLY;\n');
  write(
    'docs/configuration.md',
    '# Configuration\n\n| `KB_PORT` | port |\n\nRun `npm run ingest` or `npm run build:widget`; see `server/config.ts:1`.\n',
  );
  write(
    'README.md',
    'Start with `npm run serve`.\n\nThe entry is `server/start.ts`; tests are `server/*.test.ts`.\n\nSet KB_GONE or KB_TEST_ONLY.\n',
  );

  it('reports each drift as file:line with what is missing', () => {
    expect(checkDocs(root).map(format)).toEqual([
      'README.md:1: `npm run serve`: package.json has no script "serve"',
      'README.md:3: `server/start.ts`: no such file or folder in the repository',
      'README.md:5: KB_GONE: named as an environment variable, but no code reads it',
      'server/config.ts:1: reads KB_LIMIT, which docs/configuration.md does not list',
    ]);
  });

  it('takes a token for a repository path only when it starts with a top-level entry', () => {
    const tops = new Set(['server', 'docs', 'package.json']);
    expect(repositoryPath('server/app.ts:12', tops)).toBe('server/app.ts');
    expect(repositoryPath('docs/api.md#settings', tops)).toBe('docs/api.md');
    expect(repositoryPath('package.json', tops)).toBe('package.json');
    expect(repositoryPath('dist/public/', tops)).toBeNull();
    expect(repositoryPath('server', tops)).toBeNull();
    expect(repositoryPath('https://example.com/server/x', tops)).toBeNull();
    expect(repositoryPath('server/<name>.ts', tops)).toBeNull();
  });
});
