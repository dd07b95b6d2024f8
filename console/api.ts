/**
 * The console's API client: the admin's access token (kept for this tab only, in sessionStorage), JSON calls
 * with `{error:{code,message}}` turned into an `ApiError`, and uploads whose progress arrives as NDJSON.
 */
import { ADMIN_PATHS, type AdminSession, type UploadEvent } from '../protocol/index.ts';

const TOKEN_KEY = 'kb-admin-token';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export class AdminApi {
  /** Called when the server says the session is over (401): the shell shows the sign-in again. */
  onSignedOut: (message: string) => void = () => {};

  get token(): string | null {
    return sessionStorage.getItem(TOKEN_KEY);
  }

  signOut(): void {
    sessionStorage.removeItem(TOKEN_KEY);
  }

  async signInWithLink(linkToken: string): Promise<void> {
    this.keep(await this.request<AdminSession>('POST', ADMIN_PATHS.session, { link_token: linkToken }, false));
  }

  async signInWithPassword(email: string, password: string): Promise<void> {
    this.keep(await this.request<AdminSession>('POST', ADMIN_PATHS.password, { email, password }, false));
  }

  /** A token handed over in the URL (Supabase Auth's magic-link redirect: `#access_token=…`). */
  adoptToken(accessToken: string): void {
    sessionStorage.setItem(TOKEN_KEY, accessToken);
  }

  get<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query))
      if (value !== undefined && value !== '') params.set(name, String(value));
    const search = params.toString();
    return this.request<T>('GET', search ? `${path}?${search}` : path);
  }

  /** Fetches a file the server sends as an attachment and saves it under the name the server gives. */
  async download(path: string, query: Record<string, string | undefined>): Promise<void> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
    const res = await fetch(`${path}?${params}`, { headers: { Authorization: `Bearer ${this.token ?? ''}` } });
    if (!res.ok) throw await this.failure(res, true);
    const name = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? 'kb-chat-export';
    const url = URL.createObjectURL(await res.blob());
    try {
      const link = Object.assign(document.createElement('a'), { href: url, download: name });
      document.body.append(link);
      link.click();
      link.remove();
    } finally {
      // After the click has handed the file to the browser's download.
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    }
  }

  async request<T>(method: string, path: string, body?: unknown, authed = true): Promise<T> {
    const res = await fetch(path, {
      method,
      headers: {
        Accept: 'application/json',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...(authed && this.token ? { Authorization: `Bearer ${this.token}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw await this.failure(res, authed);
    return (await res.json()) as T;
  }

  /**
   * Uploads one file, asks for a URL to be crawled, or ("Sync now") for the server's sources to be synced,
   * and reports the pipeline's progress events.
   */
  async upload(
    what: { file: File } | { url: string } | { sync: true },
    onEvent: (event: UploadEvent) => void,
  ): Promise<void> {
    const isFile = 'file' in what;
    let body: BodyInit | undefined;
    if (isFile) {
      const form = new FormData();
      form.set('file', what.file);
      body = form;
    } else if ('url' in what) {
      body = JSON.stringify({ url: what.url });
    }
    const path = isFile ? ADMIN_PATHS.uploads : 'url' in what ? ADMIN_PATHS.url : ADMIN_PATHS.sync;
    const res = await fetch(path, {
      method: 'POST',
      headers: {
        ...(isFile ? {} : { 'Content-Type': 'application/json' }),
        Authorization: `Bearer ${this.token ?? ''}`,
      },
      ...(body === undefined ? {} : { body }),
    });
    if (!res.ok || !res.body) throw await this.failure(res, true);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += value;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line) onEvent(JSON.parse(line) as UploadEvent);
      }
    }
  }

  private keep(session: AdminSession): void {
    sessionStorage.setItem(TOKEN_KEY, session.access_token);
  }

  private async failure(res: Response, authed: boolean): Promise<ApiError> {
    const body = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
    const error = new ApiError(
      res.status,
      body?.error?.code ?? 'error',
      body?.error?.message ?? `The server answered ${res.status}.`,
    );
    if (authed && res.status === 401) {
      this.signOut();
      this.onSignedOut(error.message);
    }
    return error;
  }
}

/** Only http(s) and same-site paths become links; anything else (javascript:, data:) is shown as text. */
export function safeHref(url: string | null | undefined): string | null {
  if (!url) return null;
  if (/^https?:\/\//i.test(url)) return url;
  if (url.startsWith('/') && !url.startsWith('//')) return url;
  return null;
}

export function formatTime(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—';
}

/** "—" for anything but a finite number (a stored value of the wrong type included): never throws. */
export function formatNumber(value: unknown, digits = 3): string {
  return typeof value === 'number' && Number.isFinite(value) ? value.toFixed(digits) : '—';
}
