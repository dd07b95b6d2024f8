/**
 * The owner's support address and starter questions: the bounds the console, the API (valibot in api.ts)
 * and the widget share with kb_settings' CHECKs (20261126040000), and how the widget turns the address
 * into the link "Contact support" opens.
 */

export const SUPPORT_URL_MAX_CHARS = 2000;
export const STARTERS_MAX = 4;
export const STARTER_MAX_CHARS = 120;

// The same rule as kb_support_url_ok: https: or mailto:, no whitespace or control characters. The widget
// opens it from a visitor's click, so javascript:, data: or plain http: are never accepted.
const SUPPORT_URL = /^(?:https:\/\/|mailto:)[^\s\p{Cc}]+$/u;

/** Whether `value` may be a support address (`support-url`, the `support_url` setting). */
export function isSupportUrl(value: unknown): value is string {
  return typeof value === 'string' && value.length <= SUPPORT_URL_MAX_CHARS && SUPPORT_URL.test(value);
}

/**
 * The link "Contact support" opens: `{question}` replaced by the URL-encoded question; for `mailto:` the
 * subject and body carry the question and the page's URL, unless the address already sets them.
 * Undefined when the result is not an https: or mailto: URL.
 *
 * @example
 * supportLink('https://help.example/new?q={question}', 'Do you ship to Mars?', 'https://shop.example/')
 * // 'https://help.example/new?q=Do%20you%20ship%20to%20Mars%3F'
 */
export function supportLink(address: string, question: string, pageUrl: string): string | undefined {
  if (!isSupportUrl(address)) return undefined;
  let link = address.replaceAll('{question}', encodeURIComponent(question));
  if (link.startsWith('mailto:')) {
    const query = link.includes('?') ? link.slice(link.indexOf('?') + 1) : '';
    const has = (name: string) => query.split('&').some((pair) => pair.toLowerCase().startsWith(`${name}=`));
    const add: string[] = [];
    if (!has('subject')) add.push(`subject=${encodeURIComponent(`Question: ${question}`.slice(0, 200))}`);
    if (!has('body')) add.push(`body=${encodeURIComponent(`${question}\n\nAsked on ${pageUrl}`)}`);
    if (add.length) link += (query ? '&' : link.includes('?') ? '' : '?') + add.join('&');
  }
  return SUPPORT_URL.test(link) ? link : undefined;
}
