import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMarkdown } from './markdown.ts';
import { stripMdx } from './mdx.ts';
import { parseText } from './text.ts';
import { RAILWAY_DOCS, RAILWAY_DOCS_PATH } from './fixtures/paths.ts';
import { hasSharedData } from '../../scripts/lib/shared-data.mjs';

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const noDefaults = { fileTitle: 'file-name', url: null };

describe('parseMarkdown', () => {
  const doc = parseMarkdown(fixture('guide.mdx'), { fileTitle: 'guide', url: 'https://ignored.example/guide' });
  const all = doc.sections.flatMap((s) => s.blocks.map((b) => b.markdown)).join('\n\n');

  it('reads title, description and url from front matter', () => {
    expect(doc.title).toBe('Widget guide');
    expect(doc.description).toBe('Installing and configuring the widget.');
    expect(doc.url).toBe('https://docs.example.com/guide');
    expect(doc.format).toBe('markdown');
  });

  it('puts every block under its heading path and GitHub anchor, duplicates numbered', () => {
    expect(doc.sections.map((s) => [s.headingPath.join(' › '), s.anchor])).toEqual([
      ['', null],
      ['Installing the widget', 'installing-the-widget'],
      ['Installing the widget › Self-hosting', 'self-hosting'],
      ['Rotating API keys', 'rotating-api-keys'],
      ['Installing the widget', 'installing-the-widget-1'],
    ]);
    expect(doc.sections[0]!.blocks.map((b) => b.markdown)).toEqual(['This guide explains the widget for site owners.']);
  });

  it('strips MDX components, ESM imports, raw HTML and comments but keeps their text', () => {
    const prose = all.replace(/```[\s\S]*?```/g, '');
    expect(prose).not.toMatch(/<Banner|<\/Banner>|<Image|<a |<\/a>|<!--|import \{|\{" "\}|width=\{/);
    expect(all).toContain('The script tag must use `type="module"`, otherwise browsers ignore it.');
    expect(all).toContain('Serve the bundle from your own origin with a CDN of your choice.');
    // Placeholders that are not HTML stay; so does everything inside code.
    expect(all).toContain('Run `railway link <project>` first.');
    expect(all).toContain('<Banner>not a component inside code</Banner>');
    // A collapsible's title is the question it answers.
    expect(all).toContain('**What happens to the old key?**\n\nThe old key stops working');
    expect(all).not.toContain('Screenshot of the install dialog');
  });

  it('reads component bodies as Markdown, not as indented code; a callout becomes a note located in the source', () => {
    const installing = doc.sections[1]!;
    expect(installing.blocks.map((b) => b.kind)).toEqual(['text', 'note']);
    const note = installing.blocks[1]!;
    expect(note.markdown).toBe('> The script tag must use `type="module"`, otherwise browsers ignore it.');
    // Offsets point at the callout's text in the file (the "> " is ours, not the source's).
    expect(fixture('guide.mdx').slice(note.start, note.end)).toBe(
      'The script tag must use `type="module"`, otherwise browsers ignore it.',
    );
  });

  it('falls back to the first H1, then the file name; url to the default', () => {
    expect(parseMarkdown('# Real title\n\nText.', noDefaults).title).toBe('Real title');
    const bare = parseMarkdown('Just text.', { fileTitle: 'notes', url: 'https://x.example/notes' });
    expect(bare.title).toBe('notes');
    expect(bare.url).toBe('https://x.example/notes');
    expect(bare.description).toBeNull();
  });

  it('uses plain heading text for paths and slugs', () => {
    const doc = parseMarkdown('## Run `railway up` & [deploy](/x)\n\nText.', noDefaults);
    expect(doc.sections[0]!.headingPath).toEqual(['Run railway up & deploy']);
    expect(doc.sections[0]!.anchor).toBe('run-railway-up--deploy');
  });
});

describe('stripMdx', () => {
  it('turns code-tab components into fenced code and <code>/<br> into Markdown', () => {
    const out = stripMdx(
      '<GraphQLCodeTabs query={`query me {\n  me { id }\n}`} variables={{ a: { b: 1 } }} />\n\nUse <code>x</code>.<br/>Done.',
    );
    expect(out).toContain('```graphql\nquery me {\n  me { id }\n}\n```');
    expect(out).toContain('Use `x`. Done.');
  });

  it('leaves unbalanced or non-HTML angle brackets alone', () => {
    expect(stripMdx('a < b and <your-token> and Array<T>')).toBe('a < b and <your-token> and Array<T>');
  });
});

describe('parseText', () => {
  it('makes one heading-less section of paragraphs titled by the file name', () => {
    const doc = parseText(fixture('notes.txt'), { fileTitle: 'notes', url: null });
    expect(doc.title).toBe('notes');
    expect(doc.sections).toHaveLength(1);
    expect(doc.sections[0]!.headingPath).toEqual([]);
    expect(doc.sections[0]!.blocks).toHaveLength(2);
  });
});

describe.skipIf(!hasSharedData(RAILWAY_DOCS_PATH))('Railway docs (../shared corpus)', () => {
  it('pricing/refunds.md: front-matter title, sections, no MDX left', () => {
    const doc = parseMarkdown(readFileSync(`${RAILWAY_DOCS}/pricing/refunds.md`, 'utf8'), {
      fileTitle: 'refunds',
      url: 'https://docs.railway.com/pricing/refunds',
    });
    expect(doc.title).toBe('Refunds');
    expect(doc.description).toMatch(/refund policy/);
    expect(doc.sections.map((s) => s.headingPath.join(' › '))).toEqual([
      '',
      'Requesting a refund',
      'FAQs › Why was my refund request denied?',
      'FAQs › Can I get a refund for an invoice on an account I deleted?',
    ]);
    const text = doc.sections.flatMap((s) => s.blocks.map((b) => b.markdown)).join('\n');
    expect(text).not.toMatch(/<Image|src=|width=\{/);
    expect(text).toContain('If you do not see a refund button next to your invoice, you are ineligible for a refund.');
  });
});
