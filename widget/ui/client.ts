/** The chat UI's API client: one per `api-url`, with the element's token and, when a server asks, a CAPTCHA. */
import { ApiClient } from '../api/api-client.ts';
import type { ChatElement } from '../chat-host.ts';

declare const __KB_CAPTCHA_FILE__: string | undefined;
/**
 * The CAPTCHA step (api/captcha.ts), only for a server that asks for one before a sign-in: a chunk next to the
 * chat UI's (its content-hashed name when built, esbuild.config.mjs; the source file when the tests serve the
 * sources), not a literal `import()`, which esbuild would bundle into the chat UI, for every visitor.
 */
const CAPTCHA_URL = new URL(
  typeof __KB_CAPTCHA_FILE__ === 'string' ? `./${__KB_CAPTCHA_FILE__}` : '../api/captcha.ts',
  import.meta.url,
);

/** `current` while the element's `api-url` is still its base URL, else a new client for the new one. */
export function clientFor(host: ChatElement, current: ApiClient | undefined): ApiClient {
  const url = host.apiUrl;
  if (current?.baseUrl === url) return current;
  return new ApiClient(
    url,
    () => host,
    (captcha) =>
      import(/* @vite-ignore */ CAPTCHA_URL.href).then(({ solveCaptcha }: typeof import('../api/captcha.ts')) =>
        solveCaptcha(host, captcha),
      ),
  );
}
