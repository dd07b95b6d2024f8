#!/usr/bin/env node
/**
 * Builds the npm package into dist/package/ (publish with `npm publish dist/package`):
 *   kb-chat.js            `import 'kb-chat'`: registers <kb-chat>; harmless where there is no DOM
 *   react.js              `import { KbChat } from 'kb-chat/react'`: the @lit/react wrapper
 *   chunks/*.js           shared code and the chat UI, which the entry imports on intent (a site's bundler
 *                         follows that literal import() and makes it a lazily loaded chunk of the site)
 *   types/**\/*.d.ts      declarations, reachable from the two entries only
 *   custom-elements.json  the manifest (attributes, events, parts) editors and Storybook read
 *   package.json, README.md
 * The workers (embedder, generator) are not packed: they load from the kb-chat server at `api-url`, which
 * serves the ONNX Runtime wasm and the models they must match (widget/kb-chat.component.ts, KbChat.bundled).
 *
 * A package.json of its own rather than the root one made publishable: the root's dependencies are the
 * server's (Hono, PGlite, transformers.js, ONNX Runtime …) and npm would install them into every site.
 * The package needs none of them at run time: its code is bundled, React is the site's own.
 *
 *   node scripts/build-package.mjs [outdir]     npm run build:package
 *   import { buildPackage } from …              scripts/build-package.test.ts, test/e2e/package-react.test.ts
 */
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ortRuntime } from '../esbuild.config.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRIES = { 'kb-chat': 'widget/package/index.ts', react: 'widget/package/react.ts' };
/** What the package's code imports at run time: React is the site's, @lit/react is small and version-matched. */
const EXTERNAL = ['react', '@lit/react'];

/** Build the package into `outdir`; `types: false` skips the declarations (≈ 15 s of tsc) for tests that only run it. */
export async function buildPackage({ outdir = join(ROOT, 'dist/package'), types = true } = {}) {
  const root = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  await rm(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ENTRIES,
    outdir,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    // Lit's production build, as in the script-tag bundles (esbuild.config.mjs).
    conditions: ['production'],
    external: EXTERNAL,
    define: { __ORT_VERSION__: JSON.stringify((await ortRuntime()).version) },
    metafile: true,
    logLevel: 'warning',
    tsconfig: join(ROOT, 'tsconfig.json'),
  });
  const leaked = Object.keys(result.metafile.inputs).filter((path) =>
    /@huggingface\/transformers|onnxruntime|server\/|scripts\//.test(path),
  );
  if (leaked.length) throw new Error(`the package bundles what it must not:\n  ${leaked.join('\n  ')}`);

  if (types) await writeTypes(outdir);
  await copyFile(join(ROOT, 'custom-elements.json'), join(outdir, 'custom-elements.json'));
  await copyFile(join(ROOT, 'docs/frameworks.md'), join(outdir, 'README.md'));
  const manifest = {
    name: root.name,
    version: root.version,
    description: root.description,
    license: root.license,
    type: 'module',
    exports: {
      '.': { types: './types/widget/package/index.d.ts', default: './kb-chat.js' },
      './react': { types: './types/widget/package/react.d.ts', default: './react.js' },
      './custom-elements.json': './custom-elements.json',
      './package.json': './package.json',
    },
    types: './types/widget/package/index.d.ts',
    customElements: 'custom-elements.json',
    // @lit/react for react.js; valibot only for types: the answer's citations are typed from the wire schema.
    dependencies: { '@lit/react': `^${root.devDependencies['@lit/react']}`, valibot: `^${root.dependencies.valibot}` },
    peerDependencies: { react: '>=18' },
    peerDependenciesMeta: { react: { optional: true } },
  };
  await writeFile(join(outdir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * tsc's declarations of the entries, then only the files they reach. Two rewrites: the repo imports with
 * `.ts` extensions (allowImportingTsExtensions), which a site's TypeScript reads as `.js`; and the element's
 * contract with the chat UI (widget/chat-host.ts), which is internal: what `load()` returns becomes the one
 * member a caller may use, and the element's side of it plain HTMLElement.
 */
async function writeTypes(outdir) {
  const tmp = join(outdir, '.types');
  await promisify(execFile)(
    process.execPath,
    [
      join(ROOT, 'node_modules/typescript/bin/tsc'),
      ...Object.values(ENTRIES),
      ...['--declaration', '--emitDeclarationOnly', '--stripInternal', '--outDir', tmp, '--rootDir', '.'],
      ...[
        '--target',
        'ES2022',
        '--module',
        'ESNext',
        '--moduleResolution',
        'Bundler',
        '--lib',
        'ES2022,DOM,DOM.Iterable',
      ],
      ...['--strict', '--skipLibCheck', '--allowImportingTsExtensions', '--experimentalDecorators', '--types', 'node'],
    ],
    { cwd: ROOT },
  );
  const queue = Object.values(ENTRIES).map((entry) => entry.replace(/\.ts$/, '.d.ts'));
  const seen = new Set();
  while (queue.length) {
    const file = queue.shift();
    if (seen.has(file)) continue;
    seen.add(file);
    let text = await readFile(join(tmp, file), 'utf8');
    text = text.replace(
      "import type { ChatElement, ChatUiHandle } from './chat-host.ts';",
      '/** The loaded chat UI (internal): wait on `updateComplete` for its rendering. */\ntype ChatUiHandle = { readonly updateComplete: Promise<boolean> };\n/** What the chat UI reads of the element (internal). */\ntype ChatElement = HTMLElement;',
    );
    text = text.replace(/((?:from |import\()['"])(\.{1,2}\/[^'"]+)\.ts(['"])/g, (_, before, path, quote) => {
      queue.push(join(dirname(file), `${path}.d.ts`));
      return `${before}${path}.js${quote}`;
    });
    await mkdir(dirname(join(outdir, 'types', file)), { recursive: true });
    await writeFile(join(outdir, 'types', file), text);
  }
  await rm(tmp, { recursive: true, force: true });
}

/** Every file under `dir`, relative to it (for the size report and the tests). */
export async function listFiles(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outdir = process.argv[2] ?? join(ROOT, 'dist/package');
  await buildPackage({ outdir });
  console.log(`${outdir}:\n  ${(await listFiles(outdir)).join('\n  ')}`);
}
