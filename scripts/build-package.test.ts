/**
 * The npm package as a site gets it: built (scripts/build-package.mjs), packed with `npm pack`, unpacked into
 * a folder's node_modules, then imported by name in a Node process with no DOM — what a framework's server
 * rendering does with `import 'kb-chat'` and `import { KbChat } from 'kb-chat/react'`.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildPackage } from './build-package.mjs';

const run = promisify(execFile);
const DIR = join(process.cwd(), 'test-results/package');
const BUILT = join(DIR, 'built');
const SITE = join(DIR, 'site');

interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string; size: number }[];
}
let packed: Packed;

beforeAll(async () => {
  await rm(DIR, { recursive: true, force: true });
  await buildPackage({ outdir: BUILT });
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', DIR], { cwd: BUILT });
  packed = (JSON.parse(stdout) as Packed[])[0]!;
  // Unpacked into a site's node_modules; React and @lit/react resolve from this repository's node_modules above.
  await mkdir(join(SITE, 'node_modules'), { recursive: true });
  await run('tar', ['-xzf', join(DIR, packed.filename), '-C', DIR]);
  await symlink(join(DIR, 'package'), join(SITE, 'node_modules/kb-chat'), 'dir');
}, 180_000);

describe('npm pack', () => {
  it('packs the entries, their chunks, the types and the manifest, and nothing else', () => {
    const paths = packed.files.map((f) => f.path).sort();
    console.log(
      `${packed.filename}: ${packed.size} B packed, ${packed.unpackedSize} B unpacked\n  ${paths.join('\n  ')}`,
    );
    const expected = [
      /^README\.md$/,
      /^package\.json$/,
      /^custom-elements\.json$/,
      /^kb-chat\.js$/,
      /^react\.js$/,
      /^chunks\/chat-ui-[A-Z0-9]+\.js$/,
      /^chunks\/chunk-[A-Z0-9]+\.js$/,
      /^types\/(widget|protocol)\/[\w/.-]+\.d\.ts$/,
    ];
    for (const path of paths)
      expect(
        expected.some((pattern) => pattern.test(path)),
        path,
      ).toBe(true);
    for (const needed of [
      'kb-chat.js',
      'react.js',
      'custom-elements.json',
      'types/widget/package/index.d.ts',
      'types/widget/package/react.d.ts',
    ]) {
      expect(paths).toContain(needed);
    }
    expect(paths.some((path) => /test|fixture|server|\.map$/.test(path))).toBe(false);
    // The chat UI is as large as the script tag's (≈ 39 KB gz there); the package stays well under a megabyte.
    expect(packed.size).toBeLessThan(200_000);
  });

  it('has an exports map whose targets are all packed, and types that import only what it depends on', async () => {
    const manifest = JSON.parse(await readFile(join(DIR, 'package/package.json'), 'utf8'));
    const paths = new Set(packed.files.map((f) => f.path));
    const leaves = (value: unknown): string[] =>
      typeof value === 'string' ? [value] : Object.values(value as object).flatMap(leaves);
    const targets = leaves(manifest.exports).map((target) => target.replace(/^\.\//, ''));
    expect(targets.length).toBeGreaterThan(5);
    for (const target of targets) expect(paths.has(target), target).toBe(true);
    expect(manifest.private).toBeUndefined();
    expect(manifest.customElements).toBe('custom-elements.json');
    const allowed = new Set(['react', ...Object.keys(manifest.dependencies)]);
    for (const path of paths) {
      if (!path.endsWith('.d.ts')) continue;
      const text = await readFile(join(DIR, 'package', path), 'utf8');
      for (const [, specifier] of text.matchAll(/(?:from |import\()['"]([^'"]+)['"]/g)) {
        if (specifier!.startsWith('.')) {
          expect(specifier, `${path}: ${specifier}`).toMatch(/\.js$/);
          expect(paths.has(join(path, '..', specifier!.replace(/\.js$/, '.d.ts'))), `${path}: ${specifier}`).toBe(true);
        } else expect(allowed.has(specifier!), `${path}: ${specifier}`).toBe(true);
      }
    }
  });
});

describe('import in Node without a DOM', () => {
  it("imports 'kb-chat' and 'kb-chat/react' without throwing, defining or touching any global; renders the wrapper to HTML", async () => {
    const script = join(SITE, 'ssr.mjs');
    await writeFile(
      script,
      `const snapshot = () => Object.getOwnPropertyNames(globalThis).map((name) => [name, globalThis[name]]);
      const before = snapshot();
      const element = await import('kb-chat');
      const react = await import('kb-chat/react');
      const after = snapshot();
      const changed = after.filter(([name, value]) => !before.some(([n, v]) => n === name && Object.is(v, value))).map(([name]) => name);
      const removed = before.filter(([name]) => !after.some(([n]) => n === name)).map(([name]) => name);
      // What Next.js or Docusaurus does next: render the wrapper to HTML on the server.
      const { createElement } = await import('react');
      const { renderToString } = await import('react-dom/server');
      const html = renderToString(createElement(react.KbChat, { apiUrl: 'https://kb.example.com', mode: 'inline', onKbAnswer: () => {} }));
      console.log(JSON.stringify({
        changed, removed,
        element: typeof element.KbChat, sameDefault: element.default === element.KbChat,
        react: typeof react.KbChat, displayName: react.KbChat.displayName, html,
        dom: typeof HTMLElement + ' ' + typeof customElements + ' ' + typeof document,
      }));`,
    );
    const { stdout, stderr } = await run(process.execPath, [script], { cwd: SITE });
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toEqual({
      changed: [],
      removed: [],
      element: 'function',
      sameDefault: true,
      react: 'object', // React.forwardRef's component
      displayName: 'KbChat',
      // The tag, with what React renders as attributes; properties and listeners are set in the browser.
      html: '<kb-chat mode="inline"></kb-chat>',
      dom: 'undefined undefined undefined',
    });
  });
});
