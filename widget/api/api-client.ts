/**
 * The widget's view of the kb-chat HTTP API: the access token (the host page's own Supabase session via
 * `token`/`getToken`, else an anonymous sign-in kept in sessionStorage and renewed with its refresh token),
 * config, history, chunk text and the chat stream. Every JSON body is checked with the shared wire contract's valibot schemas (`protocol/`,
 * imported file by file so only the schemas used here are bundled).
 */
import { fetchEventSource, type EventSourceMessage } from '@microsoft/fetch-event-source';
import * as v from 'valibot';
import {
  API_PATHS,
  AnonymousAuthSchema,
  ChunkSchema,
  ClientConfigSchema,
  type AnonymousAuth,
  type CaptchaConfig,
  type Chunk,
  type ClientConfig,
} from '../../protocol/api.ts';
import {
  GeneratedSchema,
  generatedPath,
  RefusalSchema,
  type Generated,
  type GeneratedRequest,
  type Refusal,
} from '../../protocol/chat.ts';
import { FeedbackResponseSchema, type FeedbackRequest, type FeedbackResponse } from '../../protocol/feedback.ts';
import { ErrorBodySchema } from '../../protocol/errors.ts';
import {
  SessionDetailSchema,
  SessionListSchema,
  type SessionDetail,
  type SessionSummary,
} from '../../protocol/history.ts';

/** An HTTP failure with the server's error code (never its message: 5xx messages are not for users). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    /** Seconds, from `Retry-After` on a 429. */
    readonly retryAfter?: number,
  ) {
    super(`HTTP ${status} (${code})`);
    this.name = 'ApiError';
  }
}

/** `POST /api/chat` answered with a JSON refusal (no evidence) instead of a stream. */
export class Refused extends Error {
  constructor(readonly refusal: Refusal) {
    super('refused');
  }
}

/** What the host page may supply instead of the anonymous sign-in (e.g. its Supabase session). */
export interface TokenSource {
  token?: string | null;
  getToken?: (() => string | null | undefined | Promise<string | null | undefined>) | null;
}

interface StoredToken {
  access_token: string;
  /** Epoch ms after which the token is not reused. */
  expires_at: number;
  /** Renews the token for the same visitor (their history stays theirs); used once. */
  refresh_token?: string;
}

// Refresh a little early so a token does not expire between reading it and the server checking it.
const EXPIRY_MARGIN_MS = 30_000;

/**
 * sessionStorage that never throws (privacy modes and sandboxed iframes block it). Session, not local,
 * storage: the visitor's token and current chat live as long as the tab, not for days on the device. Scripts
 * of the host page can read it (as they can read anything the page holds); other origins, other tabs and
 * later visits cannot.
 */
export const storage = {
  get(key: string): string | null {
    try {
      return globalThis.sessionStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key: string, value: string | null): void {
    try {
      if (value === null) globalThis.sessionStorage.removeItem(key);
      else globalThis.sessionStorage.setItem(key, value);
    } catch {
      // Storage full or blocked: it still works for this page view.
    }
  },
};

/** Earlier versions kept a week-long token (and the current session) in localStorage: remove them. */
function forgetLegacyStorage(origin: string): void {
  try {
    globalThis.localStorage.removeItem(`kb-chat:token:${origin}`);
    globalThis.localStorage.removeItem(`kb-chat:session:${origin}`);
  } catch {
    // Blocked storage holds nothing to forget.
  }
}

export class ApiClient {
  readonly origin: string;
  private readonly storageKey: string;
  private tokenRequest?: Promise<string>;
  private configRequest?: Promise<ClientConfig>;
  /** The config once it has arrived (sign-in reads it without waiting for it). */
  private knownConfig?: ClientConfig;

  constructor(
    readonly baseUrl: string,
    private readonly source: () => TokenSource = () => ({}),
    /** Solves the CAPTCHA the server asks for before an anonymous sign-in (widget/api/captcha.ts). */
    private readonly captcha?: (config: CaptchaConfig) => Promise<string>,
  ) {
    this.origin = new URL(baseUrl).origin;
    // One token per API origin: two widgets on one page talking to different servers must not mix tokens.
    this.storageKey = `kb-chat:token:${this.origin}`;
    forgetLegacyStorage(this.origin);
  }

  /** Absolute URL of an API path or of a config URL that may be relative to the API origin. */
  url(pathOrUrl: string): string {
    return new URL(pathOrUrl, this.baseUrl).href;
  }

  /** The host's token if it supplies one, else a cached anonymous token, else a fresh sign-in. */
  async token(): Promise<string> {
    const { token, getToken } = this.source();
    if (getToken) {
      const supplied = await getToken();
      if (supplied) return supplied;
    }
    if (token) return token;
    const stored = this.readToken();
    if (stored && stored.expires_at > Date.now()) return stored.access_token;
    // Expired (tokens live an hour): renew it for the same visitor, or sign in anew when the server says the
    // refresh token is no good. A busy server (429, 5xx) or a dropped connection says nothing about the token:
    // signing in anew then would start a new visitor and lose this tab's history, so the error is passed on
    // (the question shows "try again") and the same refresh token is tried next time.
    const refresh = stored?.refresh_token;
    this.tokenRequest ??= (
      refresh
        ? this.renew(refresh).catch((error) => (isTransient(error) ? Promise.reject(error) : this.signIn()))
        : this.signIn()
    ).finally(() => (this.tokenRequest = undefined));
    return this.tokenRequest;
  }

  /** Stop using a token the server rejected (401): the next `token()` renews it, or signs in again. */
  invalidateToken(rejected: string): void {
    const stored = this.readToken();
    if (stored?.access_token === rejected) this.store({ ...stored, expires_at: 0 });
  }

  /** True when a 401 can be cured by signing in again (not when the host supplies a fixed token). */
  get canRenewToken(): boolean {
    const { token, getToken } = this.source();
    return Boolean(getToken) || !token;
  }

  config(): Promise<ClientConfig> {
    this.configRequest ??= this.getJson(API_PATHS.config)
      .then((body) => (this.knownConfig = v.parse(ClientConfigSchema, body)))
      .catch((error: unknown) => {
        this.configRequest = undefined; // let a retry fetch it again
        throw error;
      });
    return this.configRequest;
  }

  async sessions(): Promise<SessionSummary[]> {
    return v.parse(SessionListSchema, await this.authed(API_PATHS.sessions)).sessions;
  }

  async session(id: string): Promise<SessionDetail> {
    return v.parse(SessionDetailSchema, await this.authed(`${API_PATHS.sessions}/${encodeURIComponent(id)}`));
  }

  async chunk(id: string): Promise<Chunk> {
    return v.parse(ChunkSchema, await this.authed(`${API_PATHS.chunks}/${encodeURIComponent(id)}`));
  }

  /** `POST /api/feedback`: rate an answer or a refusal (a second rating replaces the first). */
  async feedback(body: FeedbackRequest): Promise<FeedbackResponse> {
    return v.parse(FeedbackResponseSchema, await this.authed(API_PATHS.feedback, 'POST', JSON.stringify(body)));
  }

  /**
   * `POST /api/chat` and read its SSE stream with @microsoft/fetch-event-source, each message to `onmessage`.
   * Resolves when the server closes the stream or `signal` aborts; rejects with the first error, after which
   * nothing is sent again. The library's defaults are made safe for a question (which must never be re-POSTed
   * behind the user's back):
   *   openWhenHidden  the tab going hidden does not abort the request (and re-POST it when visible again);
   *   onerror throws  no retry at all, instead of one every second: a dropped stream waits for the user's
   *                   Retry, which re-sends the same message_id (so the internal `last-event-id` is unused);
   *   onopen          a refusal, an `{error}` body or any response that is not an event stream rejects.
   * `lastEventId` (a Retry after a dropped stream) asks the server to replay the stored answer after that id.
   */
  chat(
    body: unknown,
    token: string,
    signal: AbortSignal,
    lastEventId: string | undefined,
    onmessage: (message: EventSourceMessage) => void,
  ): Promise<void> {
    // Lower-case names: the library adds `accept` and tracks `last-event-id` under these keys.
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'text/event-stream, application/json',
    };
    if (lastEventId) headers['last-event-id'] = lastEventId;
    return fetchEventSource(this.url(API_PATHS.chat), {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal,
      openWhenHidden: true,
      onopen: checkChatResponse,
      onmessage,
      onerror: (error: unknown) => {
        throw error;
      },
    });
  }

  /**
   * Generative mode: store the answer the visitor's model wrote against their answer `answerId`. Idempotent
   * (the first one stays, and is what this resolves with), so a lost response can be sent again.
   */
  async saveGenerated(answerId: string, generated: GeneratedRequest): Promise<Generated> {
    return v.parse(GeneratedSchema, await this.authed(generatedPath(answerId), 'POST', JSON.stringify(generated)));
  }

  /** A request with the token (GET unless told); one re-sign-in on 401. */
  private async authed(path: string, method?: string, body?: string): Promise<unknown> {
    let token = await this.token();
    try {
      return await this.getJson(path, token, method, body);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401 && this.canRenewToken)) throw error;
      this.invalidateToken(token);
      token = await this.token();
      return this.getJson(path, token, method, body);
    }
  }

  /**
   * A new anonymous user. Without a CAPTCHA it is one request, not waiting for /api/config: a first question
   * must not wait for anything it does not need. When the server asks for one (known from the
   * config, or from its `captcha_required` answer), the challenge is solved and its token sent.
   */
  private async signIn(): Promise<string> {
    if (!this.knownConfig?.captcha) {
      try {
        return this.keep(v.parse(AnonymousAuthSchema, await this.getJson(API_PATHS.anonymousAuth, undefined, 'POST')));
      } catch (error) {
        if (!(error instanceof ApiError && error.code === 'captcha_required')) throw error;
      }
    }
    const { captcha } = await this.config();
    if (!captcha || !this.captcha) throw new ApiError(400, 'captcha_required');
    const body = JSON.stringify({ captcha_token: await this.captcha(captcha) });
    return this.keep(
      v.parse(AnonymousAuthSchema, await this.getJson(API_PATHS.anonymousAuth, undefined, 'POST', body)),
    );
  }

  private async renew(refreshToken: string): Promise<string> {
    const body = JSON.stringify({ refresh_token: refreshToken });
    return this.keep(v.parse(AnonymousAuthSchema, await this.getJson(API_PATHS.refreshAuth, undefined, 'POST', body)));
  }

  private keep(auth: AnonymousAuth): string {
    this.store({
      access_token: auth.access_token,
      expires_at: Date.now() + auth.expires_in * 1000 - EXPIRY_MARGIN_MS,
      ...(auth.refresh_token ? { refresh_token: auth.refresh_token } : {}),
    });
    return auth.access_token;
  }

  private store(token: StoredToken): void {
    storage.set(this.storageKey, JSON.stringify(token));
  }

  private readToken(): StoredToken | undefined {
    try {
      const stored = JSON.parse(storage.get(this.storageKey) ?? 'null') as Partial<StoredToken> | null;
      if (typeof stored?.access_token !== 'string' || typeof stored.expires_at !== 'number') return undefined;
      return stored as StoredToken;
    } catch {
      return undefined;
    }
  }

  private async getJson(path: string, token?: string, method = 'GET', body?: string): Promise<unknown> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(this.url(path), { method, headers, ...(body !== undefined ? { body } : {}) });
    if (!response.ok) throw await errorFromResponse(response);
    return response.json();
  }
}

/** An error that says nothing about the token sent: rate limited, a server error, or no response at all. */
function isTransient(error: unknown): boolean {
  if (error instanceof ApiError) return error.status === 429 || error.status >= 500;
  return error instanceof TypeError; // fetch's network failure
}

/** Turn a non-2xx response into an ApiError, reading `{error:{code}}` and `Retry-After` when present. */
async function errorFromResponse(response: Response): Promise<ApiError> {
  return apiError(response, await readJson(response));
}

function apiError(response: Response, body: unknown, fallback = 'http_error'): ApiError {
  const parsed = v.safeParse(ErrorBodySchema, body);
  const retryAfter = Number(response.headers.get('retry-after'));
  return new ApiError(
    response.status,
    parsed.success ? parsed.output.error.code : fallback,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
}

/** The body as JSON, or undefined when it is not (a proxy's HTML error page, say: the status alone decides). */
function readJson(response: Response): Promise<unknown> {
  return response.json().catch(() => undefined);
}

/**
 * fetch-event-source's `onopen`: only an OK event stream is read. A JSON body is a refusal (HTTP 200) or the
 * `{error}` body; anything else ends the question with an ApiError.
 */
async function checkChatResponse(response: Response): Promise<void> {
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('application/json')) {
    const body = await readJson(response);
    const refusal = v.safeParse(RefusalSchema, body);
    if (response.ok && refusal.success) throw new Refused(refusal.output);
    throw apiError(response, body, response.ok ? 'unexpected_response' : 'http_error');
  }
  if (!response.ok) throw await errorFromResponse(response);
  if (!type.startsWith('text/event-stream') || !response.body)
    throw new ApiError(response.status, 'unexpected_response');
}
