/**
 * Material for MkDocs' own documentation writes a setting's name and its default value as HTML comments
 * (`#### <!-- md:setting config.blog_dir -->`, `<!-- md:default `blog` -->`), which the site's build hook
 * turns into a heading `blog_dir` and a "default value" badge showing `blog`. Read as comments they vanish:
 * 182 headings of that corpus came out empty (the setting's section merged into the one above it, under
 * the wrong heading) and 265 defaults were lost, so "What is the default blog directory?" had no answer in
 * the knowledge base although the page shows it.
 *
 * - `md:setting a.b.name` and `md:option name` → `` `name` `` (the part after the last dot, as the site shows);
 * - `md:default value` → `Default: value.` (`none` and `computed` as written), placed after the section's
 *   first paragraph (and the block it introduces) rather than above it: the section's opening sentence says
 *   what the setting is for, and extraction reads a section's first unit as the answer to its heading;
 * - every other shortcode (`md:version`, `md:plugin`, `md:flag`, `md:feature`, …) is a badge linking
 *   elsewhere and is dropped, as any comment is.
 */
const SHORTCODE = /<!--\s*md:(\w+)(?:[ \t]+(.*?))?\s*-->/g;

/** One line outside fenced code with its `md:` shortcodes read; other text unchanged. */
export function readShortcodes(line: string): string {
  if (!line.includes('<!--')) return line;
  return line.replace(SHORTCODE, (comment, type: string, argument = '') => {
    const value = argument.trim();
    if ((type === 'setting' || type === 'option') && value) return `\`${value.slice(value.lastIndexOf('.') + 1)}\``;
    if (type === 'default' && value) return `${DEFAULT_LINE}${codeOf(value)}.`;
    return /^(version|plugin|extension|feature|flag|example|demo|utility|sponsors|insiders)$/.test(type) ? '' : comment;
  });
}

const DEFAULT_LINE = 'Default: ';
const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&', '&quot;': '"' };

/** `<code>&lt;!-- more --&gt;</code>` → `` `<!-- more -->` ``: the site shows the value as code. */
function codeOf(value: string): string {
  return value.replace(
    /<code>(.*?)<\/code>/g,
    (_, code: string) => `\`${code.replace(/&(lt|gt|amp|quot);/g, (e) => ENTITIES[e]!)}\``,
  );
}

const FENCE = /^\s*(`{3,}|~{3,})/;
const HEADING = /^\s{0,3}#{1,6}\s/;

/**
 * Moves each `Default: …` line (readShortcodes' output, alone on its line) below the first paragraph that
 * follows it, or below the block that paragraph introduces when it ends with ":"; before the next heading at
 * the latest.
 */
export function placeDefaults(lines: string[]): string[] {
  const out: string[] = [];
  let pending: string[] = [];
  /** Lines of the paragraph or block read since the pending line; whether the paragraph asked for a block. */
  let content = false;
  let leadIn = false;
  const flush = () => {
    if (pending.length === 0) return;
    if (out.length > 0 && out[out.length - 1]!.trim() !== '') out.push('');
    out.push(pending.join(' '), '');
    pending = [];
    content = false;
    leadIn = false;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // Only a line of its own at the margin: a default inside a list item or definition stays with it.
    if (line.startsWith(DEFAULT_LINE) && /\.$/.test(line.trim())) {
      pending.push(line.trim());
      continue;
    }
    if (pending.length > 0 && HEADING.test(line)) flush();
    const fence = FENCE.exec(line);
    if (fence) {
      // Fenced code is copied whole; a block closes what its lead-in opened.
      let end = i + 1;
      while (end < lines.length && !lines[end]!.trim().startsWith(fence[1]!)) end += 1;
      out.push(...lines.slice(i, end + 1));
      i = end;
      if (pending.length > 0) {
        content = true;
        leadIn = false;
      }
      continue;
    }
    if (pending.length > 0 && line.trim() === '') {
      if (content && !leadIn) flush();
      out.push(line);
      continue;
    }
    if (pending.length > 0 && line.trim() !== '') {
      content = true;
      leadIn = /:\s*$/.test(line);
    }
    out.push(line);
  }
  flush();
  return out;
}
