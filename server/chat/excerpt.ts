/** Plain-text excerpts of Markdown chunks: search snippets (200 characters) and citation previews (300). */

/** The text without Markdown markup, cut at a word boundary within `maxChars` (with "…" when cut). */
export function excerpt(markdown: string, maxChars: number): string {
  const plain = markdown
    .replace(/```[\s\S]*?```/g, ' ')
    // Headings are the citation's section already, and a text fragment (#:~:text=) built from the excerpt
    // must match running text on the page, so the excerpt starts with the passage itself.
    .replace(/^#{1,6}\s+.*$/gm, '')
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/gm, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*`>|]/g, '')
    // Underscores as emphasis go (`_word_`, `__word__`); inside a word they are part of it (`KB_JWT_SECRET`).
    .replace(/(?<!\w)_+|_+(?!\w)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (plain.length <= maxChars) return plain;
  const cut = plain.slice(0, maxChars - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), maxChars / 2)).trimEnd()}…`;
}
