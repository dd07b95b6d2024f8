/**
 * Trusted Types: on a page whose CSP says `require-trusted-types-for 'script'`, the browser refuses strings
 * at script sinks (`innerHTML`, `new Worker(url)`, `script.src`) unless a policy made them. The widget's own
 * sinks go through one policy, `kb-chat` (Lit and DOMPurify bring theirs), and it only lets through what the
 * widget itself builds:
 * - `scriptURL`: the embedder Worker — a URL on the page's origin or a blob: URL the widget created — and
 *   the CAPTCHA script the server named, by its exact URL;
 * - `html`: the loader's fixed bubble markup (never visitor or server content; that goes through Lit).
 * Without Trusted Types (most pages, older browsers) the strings pass as they are.
 *
 * The loader and the chat UI are separate bundles, each with a copy of this module; a policy name can be
 * created once only under a `trusted-types` allow-list, so the first copy creates it and keeps it (and the
 * allowed URLs) on the page for the other.
 */
interface Policy {
  createHTML(input: string): string;
  createScriptURL(input: string): string;
}
type TrustedTypesFactory = { createPolicy(name: string, rules: Partial<Policy>): Policy };
interface Shared {
  policy: Policy | null;
  /** Third-party scripts the server named in /api/config (the CAPTCHA's), admitted by exact URL. */
  allowed: Set<string>;
}

const SHARED = Symbol.for('kb-chat.trusted-types');

function shared(): Shared {
  const page = globalThis as { [SHARED]?: Shared; trustedTypes?: TrustedTypesFactory };
  if (page[SHARED]) return page[SHARED];
  const allowed = new Set<string>();
  let policy: Policy | null = null;
  try {
    policy =
      page.trustedTypes?.createPolicy('kb-chat', {
        createHTML: (input) => input,
        createScriptURL: (input) => {
          const url = new URL(input, location.href);
          // Cross-origin embedder scripts are always started through a blob the widget made.
          if (url.protocol === 'blob:' || url.origin === location.origin || allowed.has(url.href)) return url.href;
          throw new TypeError(`kb-chat: refusing script URL ${url.href}`);
        },
      }) ?? null;
  } catch {
    // A CSP `trusted-types` allow-list without `kb-chat`: the sinks below then fail loudly, as they should.
  }
  return (page[SHARED] = { policy, allowed });
}

export function allowScriptURL(url: string): void {
  shared().allowed.add(new URL(url, location.href).href);
}

/** A script URL for `new Worker()` or a script element (see above for what passes). */
export function scriptURL(url: string | URL): string {
  const href = String(url);
  return (shared().policy?.createScriptURL(href) ?? href) as string;
}

/** The loader's own static markup. Never pass anything a visitor or the server wrote. */
export function staticHTML(html: string): string {
  return (shared().policy?.createHTML(html) ?? html) as string;
}
