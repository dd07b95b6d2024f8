/**
 * Each generator construct read through the Markdown reader: the block it becomes, a note's title, a code
 * block's label, and what the visitor reads (the syntax gone). The whole corpora are checked in
 * generator-markup.corpus.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Block } from './document.ts';
import { cleanCode, readFenceInfo } from './fence-meta.ts';
import { parseMarkdown } from './markdown.ts';

const blocks = (markdown: string): Block[] =>
  parseMarkdown(markdown, { fileTitle: 'Page', url: null }).sections.flatMap((s) =>
    s.blocks.map(({ start: _s, end: _e, ...b }) => b),
  );

describe('VitePress', () => {
  it('reads a ::: container as a note with its title, or its type when untitled', () => {
    expect(blocks('::: warning Deprecated\nUse `build.rollupOptions` instead.\n:::\n')).toEqual([
      { kind: 'note', title: 'Deprecated', markdown: '> **Deprecated**\n>\n> Use `build.rollupOptions` instead.' },
    ]);
    expect(blocks('::: tip\nRun it twice.\n:::')[0]).toMatchObject({ kind: 'note', title: 'Tip' });
    // `details` is a click target, not a title a reader needs.
    expect(blocks('::: details\nHidden text.\n:::')).toEqual([{ kind: 'note', markdown: '> Hidden text.' }]);
  });

  it('reads ::: code-group as code blocks labelled from [label] fence meta, {1,3-5} dropped', () => {
    const group =
      '::: code-group\n\n```bash [npm]\n$ npm create vite@latest\n```\n\n```bash [pnpm]\n$ pnpm create vite\n```\n\n:::\n';
    expect(blocks(group)).toEqual([
      {
        kind: 'code',
        lang: 'bash',
        label: 'npm',
        code: '$ npm create vite@latest',
        markdown: '**npm**\n\n```bash\n$ npm create vite@latest\n```',
      },
      {
        kind: 'code',
        lang: 'bash',
        label: 'pnpm',
        code: '$ pnpm create vite',
        markdown: '**pnpm**\n\n```bash\n$ pnpm create vite\n```',
      },
    ]);
    expect(blocks('```ts{1,3-5}\nconst a = 1\n```')).toEqual([
      { kind: 'code', lang: 'ts', code: 'const a = 1', markdown: '```ts\nconst a = 1\n```' },
    ]);
  });

  it('removes twoslash lines: everything above // ---cut---, queries and compiler flags', () => {
    const code =
      "```ts twoslash [vite.config.ts]\nimport 'vite/client'\n// @noErrors\n// ---cut---\nimport.meta.hot.accept()\n//         ^?\n```";
    expect(blocks(code)).toEqual([
      {
        kind: 'code',
        lang: 'ts',
        label: 'vite.config.ts',
        code: 'import.meta.hot.accept()',
        markdown: '**vite.config.ts**\n\n```ts\nimport.meta.hot.accept()\n```',
      },
    ]);
  });

  it('keeps Shiki diff notations as the new code only', () => {
    const info = readFenceInfo('js');
    expect(
      cleanCode('const a = old() // [!code --]\nconst a = next() // [!code ++]\nfocus() // [!code focus]', info),
    ).toBe('const a = next()\nfocus()');
  });

  it('turns <Badge> into its text and drops <script setup>, [[toc]] and {#id}, which names the anchor', () => {
    const doc = parseMarkdown(
      '<script setup>\nimport X from "./x.vue"\n</script>\n\n[[toc]]\n\n## server.port <Badge type="info" text="dev only" /> {#server-port}\n\nDefault: `5173`.',
      { fileTitle: 'Page', url: null },
    );
    expect(doc.sections).toMatchObject([
      { headingPath: ['server.port dev only'], anchor: 'server-port', blocks: [{ markdown: 'Default: `5173`.' }] },
    ]);
  });
});

describe('what is not generator markup', () => {
  it('keeps the page after a <script> line that is never closed', () => {
    expect(blocks('<script src="a.js">\n\nText after.').map((b) => b.markdown)).toEqual(['Text after.']);
  });
});

describe('MkDocs Material', () => {
  it('reads !!! and ??? admonitions (indented bodies) as notes with their title', () => {
    expect(blocks('!!! note "Time zones"\n\n    Dates are in UTC.\n\nAfter.')).toEqual([
      { kind: 'note', title: 'Time zones', markdown: '> **Time zones**\n>\n> Dates are in UTC.' },
      { kind: 'text', markdown: 'After.' },
    ]);
    expect(blocks('???+ warning\n    Careful.\n')[0]).toMatchObject({ kind: 'note', title: 'Warning' });
    // An empty title hides the title bar on the site.
    expect(blocks('!!! info ""\n    Plain.\n')).toEqual([{ kind: 'note', markdown: '> Plain.' }]);
  });

  it('keeps an admonition holding code as its blocks under the title', () => {
    expect(blocks('??? example "Show config"\n\n    Add:\n\n    ``` yaml\n    a: 1\n    ```\n')).toEqual([
      { kind: 'text', markdown: '**Show config**' },
      { kind: 'text', markdown: 'Add:' },
      { kind: 'code', lang: 'yaml', code: 'a: 1', markdown: '```yaml\na: 1\n```' },
    ]);
  });

  it('reads === tabs as labelled code blocks, or labelled sections of prose', () => {
    const tabs =
      '=== ":octicons-file-code-16: `mkdocs.yml`"\n\n    ``` yaml\n    theme: material\n    ```\n\n=== "pip"\n\n    Install it with pip.\n';
    expect(blocks(tabs)).toEqual([
      {
        kind: 'code',
        lang: 'yaml',
        label: 'mkdocs.yml',
        code: 'theme: material',
        markdown: '**mkdocs.yml**\n\n```yaml\ntheme: material\n```',
      },
      { kind: 'text', markdown: '**pip**' },
      { kind: 'text', markdown: 'Install it with pip.' },
    ]);
  });

  it('reads title="…" as the label and drops annotation markers, attribute lists, snippets and icons', () => {
    expect(blocks('``` yaml title="mkdocs.yml" hl_lines="2"\ntheme:\n  name: material # (1)!\n# (2)\n```')).toEqual([
      {
        kind: 'code',
        lang: 'yaml',
        label: 'mkdocs.yml',
        code: 'theme:\n  name: material',
        markdown: '**mkdocs.yml**\n\n```yaml\ntheme:\n  name: material\n```',
      },
    ]);
    const prose =
      '[Subscribe](#){ .md-button .md-button--primary } :material-check: Done\n\n--8<-- "includes/abbr.md"\n\n![x](a.png){ width="300" }';
    expect(blocks(prose).map((b) => b.markdown)).toEqual(['[Subscribe](#) Done', '![x](a.png)']);
  });

  it('drops Jinja but keeps Railway-style variable references and code spans', () => {
    // Railway's `${{ service.VAR }}` reference syntax, joined so it is not read as a template placeholder.
    const railway = ['$', '{{ api.PORT }}'].join('');
    expect(blocks(`Site {{ config.site_name }} uses \`{{ page.title }}\` and ${railway}.`)[0]!.markdown).toBe(
      `Site  uses \`{{ page.title }}\` and ${railway}.`,
    );
  });

  it('leaves Markdown examples in code untouched', () => {
    const example = '```` markdown title="Admonition"\n!!! note\n\n    Body\n````';
    expect(blocks(example)[0]).toMatchObject({
      kind: 'code',
      lang: 'markdown',
      label: 'Admonition',
      code: '!!! note\n\n    Body',
    });
  });
});

describe('Docusaurus / MDX', () => {
  it('reads :::note[Title] and :::tip Title as notes and drops import/export lines', () => {
    const mdx = "import Tabs from '@theme/Tabs';\n\n:::note[Heads up]\nIt changed.\n:::\n\n:::tip Quick\nDo it.\n:::";
    expect(blocks(mdx)).toEqual([
      { kind: 'note', title: 'Heads up', markdown: '> **Heads up**\n>\n> It changed.' },
      { kind: 'note', title: 'Quick', markdown: '> **Quick**\n>\n> Do it.' },
    ]);
  });

  it('labels <TabItem label> content', () => {
    const mdx = '<Tabs>\n<TabItem value="npm" label="npm">\n\n```bash\nnpm i x\n```\n\n</TabItem>\n</Tabs>';
    expect(blocks(mdx).map((b) => b.markdown)).toEqual(['**npm**', '```bash\nnpm i x\n```']);
  });
});
