/**
 * The widget's view of the kb-chat HTTP API except the chat stream: anonymous sign-in with a token cached in
 * localStorage, and the client config. Shapes come from the shared wire contract in `protocol/`.
 */
import * as v from 'valibot';
import {
  API_PATHS,
  AnonymousAuthSchema,
  ClientConfigSchema,
  ErrorBodySchema,
  type ClientConfig,
} from '../../protocol/index.ts';

/** An HTTP failure with the server's error code (never its message: 5xx messages are not for users). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message = `HTTP ${status} (${code})`,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface StoredToken {
  access_token: string;
  /** Epoch ms after which the token is not reused. */
  expires_at: number;
}

// Refresh a little early so a token does not expire between reading it and the server checking it.
const EXPIRY_MARGIN_MS = 30_000;

export class ApiClient {
  readonly origin: string;
  private readonly storageKey: string;
  private tokenRequest?: Promise<string>;
  private configRequest?: Promise<ClientConfig>;

  constructor(readonly baseUrl: string) {
    this.origin = new URL(baseUrl).origin;
    // One token per API origin: two widgets on one page talking to different servers must not mix tokens.
    this.storageKey = `kb-chat:token:${this.origin}`;
  }

  /** Absolute URL of an API path or of a config URL that may be relative to the API origin. */
  url(pathOrUrl: string): string {
    return new URL(pathOrUrl, this.baseUrl).href;
  }

  /** A cached, still-valid token, or a fresh one. Concurrent callers share one sign-in request. */
  async token(): Promise<string> {
    const stored = this.readToken();
    if (stored) return stored;
    this.tokenRequest ??= this.signIn().finally(() => (this.tokenRequest = undefined));
    return this.tokenRequest;
  }

  /** Forget the cached token (after a 401) so the next `token()` signs in again. */
  invalidateToken(rejected: string): void {
    if (this.readToken() === rejected) this.storage()?.removeItem(this.storageKey);
  }

  config(): Promise<ClientConfig> {
    this.configRequest ??= this.getJson(API_PATHS.config, ClientConfigSchema).catch((error: unknown) => {
      this.configRequest = undefined; // let a retry fetch it again
      throw error;
    });
    return this.configRequest;
  }

  private async signIn(): Promise<string> {
    const auth = await this.getJson(API_PATHS.anonymousAuth, AnonymousAuthSchema, { method: 'POST' });
    const stored: StoredToken = {
      access_token: auth.access_token,
      expires_at: Date.now() + auth.expires_in * 1000 - EXPIRY_MARGIN_MS,
    };
    try {
      this.storage()?.setItem(this.storageKey, JSON.stringify(stored));
    } catch {
      // Storage full or blocked: the token still works for this page view.
    }
    return auth.access_token;
  }

  private readToken(): string | undefined {
    try {
      const raw = this.storage()?.getItem(this.storageKey);
      if (!raw) return undefined;
      const stored = JSON.parse(raw) as Partial<StoredToken>;
      if (typeof stored.access_token !== 'string' || typeof stored.expires_at !== 'number') return undefined;
      return stored.expires_at > Date.now() ? stored.access_token : undefined;
    } catch {
      return undefined;
    }
  }

  private storage(): Storage | undefined {
    // Accessing localStorage throws in some privacy modes and sandboxed iframes.
    try {
      return globalThis.localStorage;
    } catch {
      return undefined;
    }
  }

  private async getJson<T extends v.GenericSchema>(
    path: string,
    schema: T,
    init: RequestInit = {},
  ): Promise<v.InferOutput<T>> {
    const response = await fetch(this.url(path), { ...init, headers: { Accept: 'application/json' } });
    if (!response.ok) throw await errorFromResponse(response);
    return v.parse(schema, await response.json());
  }
}

/** Turn a non-2xx response into an ApiError, reading `{error:{code}}` when the body has it. */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  let code = 'http_error';
  try {
    const body = v.safeParse(ErrorBodySchema, await response.json());
    if (body.success) code = body.output.error.code;
  } catch {
    // Not JSON (a proxy's HTML error page, say): the status alone decides the message.
  }
  return new ApiError(response.status, code);
}
