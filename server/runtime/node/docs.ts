/**
 * Demo only: renders the demo knowledge base (demo/kb/*.md) at /docs/<name>, with GitHub-style heading
 * anchors, so that citation links in the demo lead to the quoted section.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import GithubSlugger from 'github-slugger';
import { Hono } from 'hono';
import { Marked } from 'marked';
import { readFrontMatter } from '../../ingest/front-matter.ts';
import { DEMO_KB_DIR } from './paths.ts';

export function demoDocsRoute(dir = DEMO_KB_DIR) {
  const app = new Hono();
  app.get('/:name', async function demoDoc(c) {
    const name = c.req.param('name');
    if (!/^[a-z0-9-]+$/.test(name)) return c.notFound();
    const source = await readFile(join(dir, `${name}.md`), 'utf8').catch(() => null);
    if (source === null) return c.notFound();
    // YAML only, as ingestion reads it: gray-matter on its own would run a `---js` block.
    const { data, content } = readFrontMatter(source);
    const slugger = new GithubSlugger();
    const marked = new Marked({
      renderer: {
        heading({ tokens, depth, text }) {
          return `<h${depth} id="${slugger.slug(text)}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
        },
      },
    });
    const title = escapeHtml(String(data.title ?? name));
    // Pages that open with their own H1 keep it; others get the front-matter title as their heading.
    const heading = /^\s*#\s/.test(content) ? '' : `<h1>${title}</h1>`;
    return c.html(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} · kb-chat docs</title>
<link rel="stylesheet" href="/demo.css"><link rel="icon" href="data:,"></head>
<body><main class="doc"><p><a href="/">← kb-chat demo</a></p>${heading}${await marked.parse(content)}</main>
<script type="module" src="/kb-chat.js"></script><kb-chat heading="Ask the kb-chat docs"></kb-chat></body></html>`);
  });
  return app;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
