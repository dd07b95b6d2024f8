/**
 * Site-generator Markdown extensions read as the structure they stand for, before marked sees the text.
 *
 * Documentation sites are rarely plain CommonMark: VitePress and Docusaurus wrap notes in `::: tip Title`
 * containers, MkDocs Material in `!!! note "Title"` admonitions with indented bodies and tabs in `=== "Tab"`;
 * all of them add attribute lists, icon shortcodes, snippet includes and template expressions. marked knows
 * none of it, so the syntax would reach chunks as text a visitor reads and matching has to wade through.
 * No maintained library reads all three dialects into one Markdown (markdown-it-container and
 * pymdownx are renderers for their own generator, not readers for ours), so this is a line-based rewrite
 * into the Markdown the rest of the reader already understands:
 *
 * - a note (container, admonition) → a block quote whose first line is its title in bold (`> **Title**`),
 *   which markdown.ts turns into a `note` block with that title; a note holding code keeps its blocks and
 *   gets the title as a bold line, because a block quote would be cut between sentences when too long;
 * - `::: code-group` → its code blocks, each labelled by its `[label]` fence meta (read in fence-meta.ts);
 * - a content tab → its label in bold over its body, or, when the body is one code block, that block's label;
 * - attribute lists, `:material-…:`-style icons, `--8<--` snippet lines, `{{ … }}`/`{% … %}` template
 *   expressions, `[[toc]]` and `<script setup>`/`<style>` blocks → removed.
 *
 * Fenced code is copied untouched (these sites show their own syntax in ```` ```markdown ```` examples);
 * code-level markup (twoslash, line notations, annotation markers) is cleaned per block in fence-meta.ts.
 * Inline code spans in prose are kept as they are for the same reason.
 */

import { placeDefaults, readShortcodes } from './mkdocs-shortcodes.ts';

const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;
/** `::: tip Title`, `:::warning`, `:::note[Title]`, `::: details Title {open}`, `::: code-group`. */
const CONTAINER_OPEN = /^(\s*)(:{3,})\s*([A-Za-z][\w-]*)\s*(?:\[([^\]]*)\])?\s*(.*?)\s*(?:\{[^}]*\})?\s*$/;
const CONTAINER_CLOSE = /^\s*(:{3,})\s*$/;
/** `!!! note "Title"`, `??? tip`, `???+ warning inline end "Title"`. */
const ADMONITION = /^(\s*)(?:!!!|\?\?\?\+?)\s+([\w-]+)((?:\s+[\w-]+)*)\s*(?:"(.*)")?\s*$/;
/** `=== "Tab"`, `===+ "Tab"` (selected), `===! "Tab"` (new tab group). */
const TAB = /^(\s*)===[+!]?\s+"(.*)"\s*$/;
/** A definition (Python-Markdown's def_list): `:   text` under the term. */
const DEFINITION = /^(\s*):[ \t]{3}(\S.*)$/;
const SNIPPET = /^\s*;?--8<--/;
const TOC = /^\s*\[\[toc\]\]\s*$/i;
const BLOCK_DROP = /^\s*<(script|style)\b[^>]*>/i;
const HEADING = /^\s{0,3}#{1,6}\s/;

/** The generator's default title of an untitled note: its type, capitalised (`tip` → `Tip`). */
const UNTITLED = new Set(['details']);

export function rewriteGeneratorMarkup(text: string): string {
  return placeDefaults(rewrite(text.split('\n'))).join('\n');
}

function rewrite(lines: string[]): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence) {
      const end = fenceEnd(lines, i, fence[2]!);
      out.push(...lines.slice(i, end + 1));
      i = end + 1;
      continue;
    }
    const container = CONTAINER_OPEN.exec(line);
    if (container && !/^\s*:{3,}\s*$/.test(line)) {
      const end = containerEnd(lines, i);
      const body = rewrite(lines.slice(i + 1, end));
      const type = container[3]!.toLowerCase();
      if (type === 'code-group') out.push(...body);
      else out.push(...note(container[1]!, container[4] ?? container[5] ?? '', type, body));
      i = end + 1;
      continue;
    }
    const admonition = ADMONITION.exec(line) ?? TAB.exec(line);
    if (admonition) {
      const indent = admonition[1]!;
      const end = indentedEnd(lines, i, indent.length);
      const body = rewrite(dedent(lines.slice(i + 1, end), indent.length + 4, indent));
      const isTab = TAB.test(line);
      if (isTab) out.push(...tab(indent, cleanProse(admonition[2]!), body));
      else out.push(...note(indent, admonition[4] ?? '', admonition[2]!.toLowerCase(), body, admonition[4] === ''));
      i = end;
      continue;
    }
    const definition = DEFINITION.exec(line);
    if (definition) {
      // A definition list's `:   ` marks an indented body; read without it, the body is ordinary Markdown.
      lines[i] = `${definition[1]}    ${definition[2]}`;
      continue;
    }
    const drop = BLOCK_DROP.exec(line);
    if (drop) {
      const close = new RegExp(`</${drop[1]}\\s*>`, 'i');
      let end = i;
      while (end < lines.length && !close.test(lines[end]!)) end += 1;
      // Never closed: only the tag's line goes, rather than the rest of the page.
      i = end < lines.length ? end + 1 : i + 1;
      continue;
    }
    if (/^\s*--8<--\s*$/.test(line)) {
      // The block form lists one included file per line up to the next `--8<--`.
      let end = i + 1;
      while (end < lines.length && !/^\s*--8<--\s*$/.test(lines[end]!)) end += 1;
      i = end + 1;
      continue;
    }
    if (!SNIPPET.test(line) && !TOC.test(line)) out.push(cleanProse(readShortcodes(line)));
    i += 1;
  }
  return out;
}

/** Index of the line closing the fence opened at `start` (the last line when it is never closed). */
function fenceEnd(lines: string[], start: number, marker: string): number {
  // A closing fence is indented at most three columns more than its opening (CommonMark); a deeper one is
  // code, as in an example showing a fence nested in an admonition.
  const limit = indentOf(lines[start]!) + 3;
  for (let j = start + 1; j < lines.length; j++) {
    const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[j]!);
    if (close && close[1]![0] === marker[0] && close[1]!.length >= marker.length && indentOf(lines[j]!) <= limit) {
      return j;
    }
  }
  return lines.length - 1;
}

/** Index of the `:::` closing the container opened at `start`; nested containers and fences are skipped. */
function containerEnd(lines: string[], start: number): number {
  let depth = 1;
  for (let j = start + 1; j < lines.length; j++) {
    const line = lines[j]!;
    const fence = FENCE.exec(line);
    if (fence) {
      j = fenceEnd(lines, j, fence[2]!);
      continue;
    }
    if (CONTAINER_CLOSE.test(line)) depth -= 1;
    else if (CONTAINER_OPEN.test(line)) depth += 1;
    if (depth === 0) return j;
  }
  return lines.length;
}

/** Index just past an indented body: blank lines or lines indented past `base`, trailing blanks left out. */
function indentedEnd(lines: string[], start: number, base: number): number {
  let end = start + 1;
  let last = start;
  while (end < lines.length) {
    const line = lines[end]!;
    if (line.trim() === '') {
      end += 1;
      continue;
    }
    if (indentOf(line) <= base) break;
    last = end;
    end += 1;
  }
  return last + 1;
}

function indentOf(line: string): number {
  return line.replace(/\t/g, '    ').search(/\S|$/);
}

/** Removes `by` columns of indentation (tabs count four) and puts `indent` back in front. */
function dedent(lines: string[], by: number, indent: string): string[] {
  return lines.map((line) => {
    if (line.trim() === '') return '';
    const expanded = line.replace(/^[ \t]+/, (ws) => ws.replace(/\t/g, '    '));
    return indent + expanded.slice(Math.min(by, indentOf(expanded)));
  });
}

function trimBlank(lines: string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a]!.trim() === '') a += 1;
  while (b > a && lines[b - 1]!.trim() === '') b -= 1;
  return lines.slice(a, b);
}

/** A note: a block quote under its bold title, or (holding code) the title as a bold line over its blocks. */
function note(indent: string, rawTitle: string, type: string, body: string[], noTitle = false): string[] {
  const explicit = cleanProse(rawTitle).trim();
  const title = explicit || noTitle || UNTITLED.has(type) ? explicit : type.charAt(0).toUpperCase() + type.slice(1);
  const lines = trimBlank(body);
  if (lines.some((l) => FENCE.test(l))) {
    return ['', ...(title ? [`${indent}**${title}**`, ''] : []), ...lines, ''];
  }
  const quoted = lines.map((l) => (l.trim() === '' ? `${indent}>` : `${indent}> ${l.slice(indent.length)}`));
  if (quoted.length === 0) return title ? ['', `${indent}**${title}**`, ''] : [];
  return ['', ...(title ? [`${indent}> **${title}**`, `${indent}>`] : []), ...quoted, ''];
}

/** A content tab: one code block takes the tab's label as its own; anything else goes under the bold label. */
function tab(indent: string, label: string, body: string[]): string[] {
  const lines = trimBlank(body);
  const first = lines.length > 0 ? FENCE.exec(lines[0]!) : null;
  if (first && fenceEnd(lines, 0, first[2]!) === lines.length - 1 && label && !/\[[^\]]*\]/.test(first[3]!)) {
    // A backtick fence's info string may hold no backtick (CommonMark), so `file.html` loses its ticks.
    return ['', `${lines[0]!.trimEnd()} [${label.replace(/[[\]`]/g, '')}]`, ...lines.slice(1), ''];
  }
  return ['', ...(label ? [`${indent}**${label}**`, ''] : []), ...lines, ''];
}

/** Attribute lists: `{ .md-button }`, `{#id}`, `{: .class }`, `{ width="300" }`, `{ data-x }`. */
const ATTRIBUTES =
  /[ \t]*\{:?[ \t]*(?:[.#][\w-]+|[\w-]+=(?:"[^"]*"|'[^']*'|[^\s}]+)|data-[\w-]+)(?:[ \t]+(?:[.#][\w-]+|[\w-]+(?:=(?:"[^"]*"|'[^']*'|[^\s}]+))?))*[ \t]*\}/g;
const ICONS = /:(?:material|octicons|fontawesome|simple)-[\w-]+:[ \t]?/g;
/** pymdownx.keys: `++ctrl+alt+del++` is a key combination, shown as code. */
const KEYS = /\+\+([\w-]+(?:\+[\w-]+)*)\+\+/g;
/** pymdownx.caret and .mark: `^^inserted^^`, `==highlighted==` are emphasis. */
const MARKS = /(?<![\w=^])(\^\^|==)(?=\S)([^\n^=]*?\S)\1(?![\w=^])/g;
/**
 * `{{ … }}` and `{% … %}` (Jinja, Vue). Railway's `${{ service.VAR }}` variable syntax is content, and
 * `prop={{ … }}` is a JSX object that mdx.ts reads with its tag.
 */
const TEMPLATE = /(?<![$=])\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g;

/**
 * One prose line without attribute lists, icon shortcodes and template expressions (inline code kept).
 * A heading keeps a trailing `{#id}`: markdown.ts uses it as the section's anchor, as the site does.
 */
export function cleanProse(line: string): string {
  if (!/[{:+^=]/.test(line)) return line;
  const heading = HEADING.test(line) ? /\s*\{\s*#[\w-]+\s*\}\s*$/.exec(line) : null;
  const head = heading ? line.slice(0, heading.index) : line;
  let out = '';
  let i = 0;
  while (i < head.length) {
    const tick = head.indexOf('`', i);
    const end = tick < 0 ? head.length : tick;
    out += head
      .slice(i, end)
      .replace(TEMPLATE, '')
      .replace(ATTRIBUTES, '')
      .replace(ICONS, '')
      .replace(KEYS, (_, keys: string) => `\`${keys}\``)
      .replace(MARKS, '$2');
    if (tick < 0) break;
    let run = tick;
    while (head[run] === '`') run += 1;
    const close = head.indexOf(head.slice(tick, run), run);
    const stop = close < 0 ? run : close + (run - tick);
    out += head.slice(tick, stop);
    i = stop;
  }
  return heading ? `${out}${heading[0]}` : out;
}
