/**
 * Markdown whose front matter is JavaScript that writes `marker` when evaluated — what gray-matter with no
 * options would run (its `javascript` engine is `eval` with `require` in scope). Tests assert the marker
 * never appears.
 */
export function codeFrontMatter(language: string, marker: string): string {
  return `---${language}
{ title: (require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran'), 'EVAL-' + process.pid) }
---
# Harmless looking

The body of a page whose front matter is code.
`;
}
