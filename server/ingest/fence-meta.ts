/**
 * A fenced code block as the site shows it. Generators put more than a language in the fence line —
 * VitePress `[vite.config.js]` labels, `{1,3-5}` line highlights and `twoslash`, MkDocs Material
 * `title="mkdocs.yml"`, `hl_lines`, `linenums` and `{ .yaml .no-copy }` — and hide lines of the code itself:
 * twoslash directives (`// ---cut---` hides everything above it, `// ^?` and `// @errors: 2339` are compiler
 * queries), Shiki's `// [!code ++]` line notations, and MkDocs code annotation markers (`# (1)!`). The
 * label is what a visitor sees on the tab or title bar, so it is kept as the block's label; the rest is
 * dropped. Markdown examples (```` ```markdown ````) are left exactly as written: they show syntax on purpose.
 */

export interface FenceInfo {
  /** The language, '' when none. */
  lang: string;
  /** The tab or title-bar label (`[label]`, `title="…"`), or null. */
  label: string | null;
  /** Twoslash blocks hide their directive lines (VitePress processes them only with this flag). */
  twoslash: boolean;
}

export function readFenceInfo(info: string): FenceInfo {
  const text = info.trim();
  const label = /\[([^\]]*)\]/.exec(text)?.[1] ?? /\btitle=(?:"([^"]*)"|'([^']*)')/.exec(text)?.slice(1).find(Boolean);
  // MkDocs' attribute form: ``` { .yaml .no-copy }
  const braced = /^\{\s*\.([\w+#-]+)/.exec(text)?.[1];
  const first = /^([^\s[{]*)/.exec(text)?.[1] ?? '';
  const lang = braced ?? (first.includes('=') ? '' : first);
  return { lang, label: label?.trim() || null, twoslash: /\btwoslash\b/.test(text) };
}

const MARKDOWN = new Set(['markdown', 'md', 'mdx']);
/** `// ---cut---` / `// ---cut-before---`: what is above is hidden; `// ---cut-after---`: what is below. */
const CUT_BEFORE = /^\s*\/\/\s*---cut(?:-before)?---\s*$/;
const CUT_AFTER = /^\s*\/\/\s*---cut-after---\s*$/;
/** Twoslash queries (`// ^?`, `// ^|`, `//   ^^^`) and compiler flags (`// @errors: 2339`, `// @noErrors`). */
const TWOSLASH_LINE = /^\s*\/\/\s*(?:\^+[?|]?\s*$|@(?!ts-)[A-Za-z]+\b(?::.*)?\s*$)/;
/** Shiki notations: `// [!code ++]`, `# [!code focus]`, `<!-- [!code highlight] -->`. */
const NOTATION = /\s*(?:\/\/|#|<!--|\/\*)\s*\[!code\s+([^\]]+)\](?:\s*(?:-->|\*\/))?\s*$/;
/** A comment holding only an annotation marker: `# (1)!`, `// (2)`, `-- (3)`, `<!-- (1) -->`. */
const ANNOTATION = /\s*(?:#|\/\/|--|;|%|<!--|\/\*)\s*\(\d+\)!?\s*(?:-->|\*\/)?\s*$/;

/** The code a visitor sees. */
export function cleanCode(code: string, info: FenceInfo): string {
  if (MARKDOWN.has(info.lang.toLowerCase())) return code;
  let lines = code.split('\n');
  if (info.twoslash) {
    let cut = -1;
    lines.forEach((l, i) => {
      if (CUT_BEFORE.test(l)) cut = i;
    });
    if (cut >= 0) lines = lines.slice(cut + 1);
    const after = lines.findIndex((l) => CUT_AFTER.test(l));
    if (after >= 0) lines = lines.slice(0, after);
    lines = lines.filter((l) => !TWOSLASH_LINE.test(l));
  }
  const out: string[] = [];
  for (const line of lines) {
    const notation = NOTATION.exec(line);
    // A removed line of a diff notation is the old code: the block shows what to write.
    if (notation && notation[1]!.trim() === '--') continue;
    const kept = notation ? line.slice(0, notation.index) : line;
    const marker = ANNOTATION.exec(kept);
    if (marker && kept.slice(0, marker.index).trim() === '' && kept.trim() !== '') continue;
    out.push(marker ? kept.slice(0, marker.index) : kept);
  }
  while (out.length > 0 && out[0]!.trim() === '') out.shift();
  return out.join('\n');
}

/** A code block's Markdown: its label in bold over a plain fence long enough for the code inside. */
export function codeMarkdown(lang: string, code: string, label: string | null | undefined): string {
  return `${label ? `**${label}**\n\n` : ''}${fenced(lang, code)}`;
}

export function fenced(lang: string, code: string): string {
  const longest = Math.max(0, ...[...code.matchAll(/^\s*(`{3,})/gm)].map((m) => m[1]!.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${code}\n${fence}`;
}
