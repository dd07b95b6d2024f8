/**
 * Material for MkDocs' shortcode comments read as the site shows them: a setting's name as its heading, its
 * default value as a line under the section's opening paragraph, other badges dropped.
 */
import { describe, expect, it } from 'vitest';
import { parseMarkdown } from './markdown.ts';
import { placeDefaults, readShortcodes } from './mkdocs-shortcodes.ts';

const page = [
  '# Built-in blog plugin',
  '',
  '#### <!-- md:setting config.blog_dir -->',
  '',
  '<!-- md:version 9.2.0 -->',
  '<!-- md:default `blog` -->',
  '',
  'Use this setting to change the path where your blog is located. You can change it with:',
  '',
  '``` yaml',
  'plugins:',
  '  - blog:',
  '      blog_dir: blog',
  '```',
  '',
  'The provided path is resolved from the docs directory.',
  '',
  '#### <!-- md:setting config.post_excerpt_separator -->',
  '',
  '<!-- md:default <code>&lt;!-- more --&gt;</code> -->',
  '',
  'Use this setting to set the separator.',
].join('\n');

describe('MkDocs Material shortcodes', () => {
  it('a setting heading becomes the setting name; its section no longer merges into the one above', () => {
    const doc = parseMarkdown(page, { fileTitle: 'blog', url: null });
    const headings = doc.sections.map((s) => s.headingPath.join(' › '));
    expect(headings).toContain('Built-in blog plugin › blog_dir');
    expect(headings).toContain('Built-in blog plugin › post_excerpt_separator');
  });

  it('the default value follows the opening paragraph and the block it introduces, version badges go', () => {
    const doc = parseMarkdown(page, { fileTitle: 'blog', url: null });
    const section = doc.sections.find((s) => s.headingPath.at(-1) === 'blog_dir')!;
    const text = section.blocks.map((b) => b.markdown);
    expect(text[0]).toMatch(/^Use this setting/);
    expect(text[1]).toMatch(/^```yaml/);
    expect(text[2]).toBe('Default: `blog`.');
    expect(text.join('\n')).not.toMatch(/9\.2\.0|md:/);
    const separator = doc.sections.find((s) => s.headingPath.at(-1) === 'post_excerpt_separator')!;
    expect(separator.blocks.map((b) => b.markdown)).toContain('Default: `<!-- more -->`.');
  });

  it('reads options and leaves other comments and plain lines alone', () => {
    expect(readShortcodes('<!-- md:option type:note -->')).toBe('`type:note`');
    expect(readShortcodes(':   <!-- md:default none --> <!-- md:flag required -->')).toBe(':   Default: none. ');
    expect(readShortcodes('<!-- a comment -->')).toBe('<!-- a comment -->');
    expect(readShortcodes('No shortcode here.')).toBe('No shortcode here.');
  });

  it('a default inside a definition or list item stays where it is', () => {
    expect(placeDefaults(['`name`', '', '    Default: none.', '    The name of the language.'])).toEqual([
      '`name`',
      '',
      '    Default: none.',
      '    The name of the language.',
    ]);
  });

  it('a default with no paragraph after it stays before the next heading', () => {
    expect(placeDefaults(['Default: `1`.', '', '## Next', 'Text.'])).toEqual([
      '',
      'Default: `1`.',
      '',
      '## Next',
      'Text.',
    ]);
  });
});
