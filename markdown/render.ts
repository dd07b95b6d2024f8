/**
 * Markdown → sanitized HTML for everything the widget and the console render from the API (answers,
 * passages): one renderer, so the site owner sees an answer as the visitor saw it. This folder is shared by
 * the two browser apps and imports nothing else of ours (.dependency-cruiser.cjs, markdown-is-self-contained).
 *
 * Content is treated as hostile: the renderer (parse.ts) escapes all source text and emits only its
 * own tags, and its output then goes through DOMPurify with a strict allow-list as a second, independent line
 * of defence: no raw HTML, no `javascript:`/`data:` links, no event handlers, no forms, iframes or images.
 */
import DOMPurify from 'dompurify';
import { markdownToHtml } from './parse.ts';
import { safeHref } from './escape.ts';

const ALLOWED_TAGS = [
  'p',
  'br',
  'hr',
  'strong',
  'em',
  'del',
  'code',
  'pre',
  'blockquote',
  'ul',
  'ol',
  'li',
  'a',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
];
const ALLOWED_ATTR = ['href', 'start', 'class'];
const CONFIG = {
  ALLOWED_TAGS,
  ALLOWED_ATTR,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
};

// One DOMPurify instance of our own, so our hooks never leak into a host page that uses DOMPurify too.
const purify = DOMPurify(window);
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.hasAttribute('class') && node.getAttribute('class') !== 'md-heading') node.removeAttribute('class');
  if (node.nodeName !== 'A') return;
  const href = safeHref(node.getAttribute('href'));
  if (href === null) {
    node.removeAttribute('href');
    return;
  }
  node.setAttribute('href', href);
  // Set after the allow-list has run, so content itself can never choose these attributes.
  // Links open outside the widget and must not get a handle on the host page (reverse tabnabbing).
  node.setAttribute('target', '_blank');
  node.setAttribute('rel', 'noopener noreferrer');
});

/** Render (possibly partial, mid-stream) Markdown to HTML that is safe to insert. */
export function renderMarkdown(markdown: string): string {
  return purify.sanitize(markdownToHtml(markdown), CONFIG);
}

/** The same, as a detached fragment (for further DOM work such as citation badges). */
export function renderMarkdownFragment(markdown: string): DocumentFragment {
  return purify.sanitize(markdownToHtml(markdown), { ...CONFIG, RETURN_DOM_FRAGMENT: true });
}
