/** The demo's /docs pages read front matter as ingestion does: YAML only, never code. */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFrontMatter } from '../../testing/front-matter-attack.ts';
import { demoDocsRoute } from './docs.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kb-demo-docs-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('demoDocsRoute', () => {
  it('renders a page with its YAML title', async () => {
    await writeFile(path.join(dir, 'refunds.md'), '---\ntitle: Refunds\n---\n## Asking for one\n\nWrite to us.\n');
    const res = await demoDocsRoute(dir).request('/refunds');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<title>Refunds · kb-chat docs</title>');
    expect(html).toContain('<h2 id="asking-for-one">Asking for one</h2>');
  });

  it('refuses a page whose front matter is JavaScript, without running it', async () => {
    const marker = path.join(dir, 'docs-js.ran');
    await writeFile(path.join(dir, 'evil.md'), codeFrontMatter('js', marker));
    const res = await demoDocsRoute(dir).request('/evil');
    expect(res.status).toBe(500);
    expect(existsSync(marker)).toBe(false);
  });
});
