/**
 * Front matter, YAML only. gray-matter reads the language named after the opening `---` (`---js`,
 * `---javascript`, `---coffee`…) and, for JavaScript, passes the block to `eval` with `require` in scope
 * (node_modules/gray-matter/lib/engines.js) — so one contributor's Markdown file, an upload or a crawled
 * `.md` page could run code on the server. Here the language is checked before anything is parsed, and the
 * YAML that is read goes through js-yaml's safe loader (no `!!js/function` or other code-bearing tags).
 */
import matter from 'gray-matter';

export interface FrontMatter {
  /** The front matter's fields ({} without front matter). */
  data: Record<string, unknown>;
  /** The text after the front matter. */
  content: string;
}

/** A document whose front matter is in a language other than YAML: it fails alone, with this message. */
export class FrontMatterError extends Error {
  override name = 'FrontMatterError';
}

const YAML_NAMES = new Set(['', 'yaml', 'yml']);

/**
 * gray-matter's own YAML engine: js-yaml's `safeLoad` (lib/engines.js), the default schema without the
 * `!!js/*` types. Not in gray-matter's type declarations, hence the cast.
 */
const safeYaml = (matter as unknown as { engines: { yaml: { parse(text: string): unknown } } }).engines.yaml;

function refuse(language: string): never {
  throw new FrontMatterError(`front matter in '${language}' is refused: only YAML front matter is read`);
}

/**
 * Every engine gray-matter ships is replaced: YAML by its safe loader, the others by a refusal. The
 * language check in readFrontMatter comes first; these engines only matter if gray-matter ever detected a
 * language differently from it.
 */
const ENGINES = {
  // Called with the block alone: gray-matter would pass its own options on to js-yaml as well.
  yaml: { parse: (text: string) => (safeYaml.parse(text) ?? {}) as object },
  javascript: { parse: (): object => refuse('javascript') },
  json: { parse: (): object => refuse('json') },
  coffee: { parse: (): object => refuse('coffee') },
};

/**
 * Splits a Markdown source into its YAML front matter and body; throws FrontMatterError for any other
 * front-matter language (`---js`, `---javascript`, `---json`, `---toml`…).
 *
 * @example
 * readFrontMatter('---\ntitle: Refunds\n---\n# Refunds') // → { data: { title: 'Refunds' }, content: '# Refunds' }
 * readFrontMatter('---js\n{ title: "x" }\n---\n')         // throws FrontMatterError
 */
export function readFrontMatter(source: string): FrontMatter {
  const text = source.replace(/^\uFEFF/, '');
  // The same test gray-matter makes (index.js, parseMatter): an opening `---` not followed by another `-`,
  // then the rest of that first line names the language.
  if (matter.test(text) && text.charAt(3) !== '-') {
    const language = matter.language(text).name;
    if (!YAML_NAMES.has(language.toLowerCase())) refuse(language);
  }
  // Passing options also turns off gray-matter's cache: without options it keeps every input it was ever
  // given in `matter.cache`, keyed by the whole text, and never drops one (index.js: "only cache if there
  // are no options passed") — unbounded memory for a long-running server taking uploads.
  const file = matter(text, { language: 'yaml', engines: ENGINES, excerpt: false });
  const data = file.data;
  return {
    data: data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {},
    content: file.content,
  };
}
