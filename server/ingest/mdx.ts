/**
 * Removes MDX components and raw HTML from Markdown source, keeping what a reader would see as text.
 *
 * Docs written for MDX sites (Railway's, Next.js's, …) wrap prose in components such as
 * `<Banner variant="info">…</Banner>` and sprinkle `<Image … />`, `<a href>` and `{" "}`. Those tags are
 * noise for embeddings and for the widget, which renders chunk content as Markdown. Fenced code blocks and
 * inline code spans are copied untouched, and `<placeholder>`-style words that are not HTML elements or
 * PascalCase components (e.g. `railway link <project>`) are left alone.
 */

/** Lower-case names treated as HTML tags (everything else in lower case is kept as literal text). */
const HTML_TAGS = new Set(
  (
    'a abbr address article aside audio b bdi bdo blockquote body br button caption center cite code col ' +
    'colgroup dd del details dfn div dl dt em embed figcaption figure font footer form h1 h2 h3 h4 h5 h6 ' +
    'head header hr html i iframe img input ins kbd label legend li link main mark meta nav noscript object ' +
    'ol p picture pre q s samp script section small source span strike strong style sub summary sup svg ' +
    'table tbody td template tfoot th thead time tr track u ul var video wbr path g'
  ).split(' '),
);

/** Elements whose whole content is dropped, not just their tags. */
const DROP_CONTENT = new Set(['script', 'style', 'svg', 'template', 'noscript']);

const FENCE = /^\s*(`{3,}|~{3,})/;
/** MDX's one-line ESM statements (`import { Banner } from '…'`), outside code blocks. */
const ESM =
  /^(?:import\s.*\sfrom\s+['"][^'"]+['"];?|import\s+['"][^'"]+['"];?|export\s+(?:const|let|default|function)\b.*)\s*$/;

/**
 * Strips tags outside fenced code blocks. The result may contain runs of blank lines and indentation left
 * over from components; the Markdown reader copes with both (see markdown.ts).
 */
export function stripMdx(source: string): string {
  const lines = source.split('\n');
  const out: string[] = [];
  let prose: string[] = [];
  let fence: string | null = null;
  const flush = (): void => {
    if (prose.length > 0) out.push(stripTags(notes(prose.join('\n'))));
    prose = [];
  };
  for (const line of lines) {
    const match = FENCE.exec(line);
    if (fence !== null) {
      out.push(line);
      // A closing fence uses the same character, at least as many times, and nothing after it.
      if (match && match[1]![0] === fence[0] && match[1]!.length >= fence.length && line.trim() === match[1]) {
        fence = null;
      }
    } else if (match) {
      flush();
      fence = match[1]!;
      out.push(line);
    } else if (!ESM.test(line)) {
      prose.push(line);
    }
  }
  flush();
  return out
    .join('\n')
    .replace(/^[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n');
}

/**
 * Callout components (`<Banner variant="info">…</Banner>`, `<Note>`, `<Callout>`, …) become Markdown block
 * quotes, so a note stays a block of its own through chunking and an answer can quote it whole (the widget
 * shows it as a callout). Their bodies are single paragraphs in the docs we have seen (all 63 in Railway's).
 */
const CALLOUT = /<(Banner|Note|Callout|Admonition|Warning|Tip|Info)\b[^>]*>([\s\S]*?)<\/\1>/g;

function notes(text: string): string {
  return text.replace(CALLOUT, (whole, _name: string, body: string) => {
    if (/\n\s*\n|```/.test(body)) return whole;
    const lines = body
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    return lines.length > 0 ? `\n\n${lines.map((l) => `> ${l}`).join('\n')}\n\n` : '';
  });
}

/** Strips tags, JSX comments and `{" "}` from prose, skipping inline code spans. */
function stripTags(text: string): string {
  let result = '';
  let i = 0;
  let dropUntil: string | null = null; // inside <script>…</script> and similar
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '`' && dropUntil === null) {
      const end = codeSpanEnd(text, i);
      result += text.slice(i, end);
      i = end;
      continue;
    }
    if (ch === '{') {
      const jsx = /^\{\s*(?:"\s*"|'\s*'|\/\*[\s\S]*?\*\/)\s*\}/.exec(text.slice(i, i + 2000));
      if (jsx) {
        if (dropUntil === null) result += jsx[0].includes('/*') ? '' : ' ';
        i += jsx[0].length;
        continue;
      }
    }
    if (ch === '<') {
      const tag = readTag(text, i);
      if (tag) {
        if (dropUntil !== null) {
          if (tag.closing && tag.name.toLowerCase() === dropUntil) dropUntil = null;
        } else {
          const lower = tag.name.toLowerCase();
          if (!tag.closing && !tag.selfClosing && DROP_CONTENT.has(lower)) dropUntil = lower;
          else result += replacement(tag);
        }
        i = tag.end;
        continue;
      }
    }
    if (dropUntil === null) result += ch;
    i += 1;
  }
  return result;
}

interface Tag {
  name: string;
  closing: boolean;
  selfClosing: boolean;
  attributes: string;
  end: number;
}

/** What a tag becomes: inline code for <code>/<kbd>, a bold title for `<Collapse title="…">`, else nothing. */
function replacement(tag: Tag): string {
  const lower = tag.name.toLowerCase();
  if (lower === 'code' || lower === 'kbd') return '`';
  if (lower === 'br' || lower === 'wbr') return ' ';
  if (tag.name === '!--') return '';
  if (!tag.closing && /^[A-Z]/.test(tag.name)) {
    // Code-tab components carry their example in an attribute (`<GraphQLCodeTabs query={`…`} />`).
    const code = /(?:^|\s)(query|code)=\{\s*`([\s\S]*?)`\s*\}/.exec(tag.attributes);
    if (code && !code[2]!.includes('```')) {
      return `\n\n\`\`\`${code[1] === 'query' ? 'graphql' : ''}\n${code[2]!.trim()}\n\`\`\`\n\n`;
    }
    // Collapsible FAQ entries and cards carry their question or heading in a `title` attribute, a
    // Docusaurus <TabItem> its tab's name in `label`.
    const title = /(?:^|\s)(?:title|label)=(?:"([^"]*)"|'([^']*)')/.exec(tag.attributes);
    const value = (title?.[1] ?? title?.[2] ?? '').trim();
    if (value) return `\n\n**${value}**\n\n`;
    // A VitePress <Badge text="…" /> shows its text inline.
    const text = /(?:^|\s)text=(?:"([^"]*)"|'([^']*)')/.exec(tag.attributes);
    const shown = (text?.[1] ?? text?.[2] ?? '').trim();
    if (shown) return ` ${shown} `;
  }
  return '';
}

/** Reads an HTML comment, an HTML tag or a PascalCase component starting at `start`; null when it is none. */
function readTag(text: string, start: number): Tag | null {
  if (text.startsWith('<!--', start)) {
    const close = text.indexOf('-->', start + 4);
    if (close < 0) return null;
    return { name: '!--', closing: false, selfClosing: true, attributes: '', end: close + 3 };
  }
  const head = /^<(\/?)([A-Za-z][\w.:-]*)/.exec(text.slice(start, start + 100));
  if (!head) return null;
  const name = head[2]!;
  const isComponent = /^[A-Z][A-Za-z0-9.]*$/.test(name) && /[a-z]/.test(name);
  if (!isComponent && !HTML_TAGS.has(name.toLowerCase())) return null;
  let i = start + head[0].length;
  const attrStart = i;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '>') {
      const selfClosing = text[i - 1] === '/';
      return {
        name,
        closing: head[1] === '/',
        selfClosing,
        attributes: text.slice(attrStart, selfClosing ? i - 1 : i),
        end: i + 1,
      };
    }
    if (ch === '"' || ch === "'") {
      const close = text.indexOf(ch, i + 1);
      if (close < 0) return null;
      i = close + 1;
    } else if (ch === '{') {
      const close = skipBraces(text, i);
      if (close < 0) return null;
      i = close;
    } else if (ch === '<' || (ch === '\n' && text[i + 1] === '\n' && !isComponent)) {
      // Not a tag after all: HTML tags do not contain `<` nor (for plain HTML) a blank line.
      return null;
    } else {
      i += 1;
    }
  }
  return null;
}

/** Index just past the `}` matching the `{` at `start` (JSX expression), or -1. Handles strings and templates. */
function skipBraces(text: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '{') depth += 1;
    else if (ch === '}') {
      depth -= 1;
      if (depth === 0) return i + 1;
    } else if (ch === '"' || ch === "'" || ch === '`') {
      const close = skipString(text, i);
      if (close < 0) return -1;
      i = close;
      continue;
    }
    i += 1;
  }
  return -1;
}

function skipString(text: string, start: number): number {
  const quote = text[start]!;
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '\\') i += 2;
    else if (ch === quote) return i + 1;
    else if (quote === '`' && ch === '$' && text[i + 1] === '{') {
      const close = skipBraces(text, i + 1);
      if (close < 0) return -1;
      i = close;
    } else i += 1;
  }
  return -1;
}

/** End of the inline code span opened by the backtick run at `start` (CommonMark: same-length closing run). */
function codeSpanEnd(text: string, start: number): number {
  let run = start;
  while (text[run] === '`') run += 1;
  const ticks = text.slice(start, run);
  let search = run;
  while (search < text.length) {
    const found = text.indexOf(ticks, search);
    if (found < 0) break;
    let after = found + ticks.length;
    if (text[after] !== '`' && text[found - 1] !== '`') return after;
    while (text[after] === '`') after += 1;
    search = after;
  }
  return run; // an unmatched run is literal backticks
}
