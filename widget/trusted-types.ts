/**
 * Trusted Types: on a page whose CSP says `require-trusted-types-for 'script'`, the browser refuses strings
 * at script sinks (`innerHTML`, `new Worker(url)`, …) unless a policy made them. The widget has exactly two
 * such sinks of its own (Lit and DOMPurify bring their own policies); this policy is what lets them through,
 * and it only lets through what the widget itself builds:
 * - `scriptURL`: the embedder Worker — a URL on the widget's own origin or a blob: URL the widget created —
 *   and the CAPTCHA script the server named, by its exact URL;
 * - `html`: the loader's fixed bubble markup (never visitor or server content; that goes through Lit).
 * Without Trusted Types (most pages, older browsers) the strings pass as they are.
 */
interface Policy {
  createHTML(input: string): string;
  createScriptURL(input: string): string;
}
type TrustedTypesFactory = { createPolicy(name: string, rules: Partial<Policy>): Policy };

let policy: Policy | null | undefined;
/** Third-party scripts the server named in /api/config (the CAPTCHA's), admitted by exact URL. */
const allowed = new Set<string>();

export function allowScriptURL(url: string): void {
  allowed.add(new URL(url, location.href).href);
}

function kbPolicy(): Policy | null {
  if (policy !== undefined) return policy;
  const factory = (globalThis as { trustedTypes?: TrustedTypesFactory }).trustedTypes;
  try {
    policy = factory
      ? factory.createPolicy('kb-chat', {
          createHTML: (input) => input,
          createScriptURL: (input) => {
            const url = new URL(input, location.href);
            // Cross-origin embedder scripts are always started through a blob the widget made.
            if (url.protocol === 'blob:' || url.origin === location.origin || allowed.has(url.href)) return url.href;
            throw new TypeError(`kb-chat: refusing script URL ${url.href}`);
          },
        })
      : null;
  } catch {
    // A CSP `trusted-types` allow-list without `kb-chat`: the sinks below then fail loudly, as they should.
    policy = null;
  }
  return policy;
}

/** A script URL for `new Worker()`: the widget's own origin or a blob it created. */
export function scriptURL(url: string | URL): string {
  const href = String(url);
  return (kbPolicy()?.createScriptURL(href) ?? href) as string;
}

/** The loader's own static markup. Never pass anything a visitor or the server wrote. */
export function staticHTML(html: string): string {
  return (kbPolicy()?.createHTML(html) ?? html) as string;
}
