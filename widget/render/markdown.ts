/**
 * Markdown → sanitized HTML for assistant answers.
 *
 * Answers are model output grounded in documents we do not fully control, so they are treated as hostile:
 * raw HTML in the Markdown is shown as text (never parsed), images are reduced to their alt text (no
 * third-party requests, no tracking pixels), and the HTML that marked produces is then passed through
 * DOMPurify with a small allow-list as a second, independent line of defence.
 */
import { Marked, type Tokens } from 'marked';
import DOMPurify from 'dompurify';
import { escapeHtml, safeHref } from './escape.ts';

const ALLOWED_TAGS = [
  'p', 'br', 'hr', 'strong', 'em', 'del', 'code', 'pre', 'blockquote',
  'ul', 'ol', 'li', 'a', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'table', 'thead', 'tbody', 'tr', 'th', 'td', 'sup',
];
const ALLOWED_ATTR = ['href', 'title', 'start', 'align'];

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    // Raw HTML in content is displayed literally: escaping here beats relying on the sanitizer alone.
    html({ text }: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(text);
    },
    image({ text }: Tokens.Image): string {
      return escapeHtml(text);
    },
  },
});

// One DOMPurify instance for the widget, so our hooks never leak into a host page that uses DOMPurify too.
const purify = DOMPurify(window);
purify.addHook('afterSanitizeAttributes', (node) => {
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

/** Render (possibly partial, mid-stream) Markdown to HTML that is safe to insert with `unsafeHTML`. */
export function renderMarkdown(markdown: string): string {
  const html = marked.parse(markdown) as string;
  return purify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
  });
}
