/**
 * Public signing keys from a JWKS URL (Supabase: <project>/auth/v1/.well-known/jwks.json), cached per URL so
 * that verifying a token costs no request. Every token a visitor sends can reach this code, so it must not
 * let tokens turn into requests to the key server:
 * - one fetch at a time per URL (single flight): a burst of first requests waits for the same answer;
 * - each fetch bounded by a timeout, so a hanging key server costs seconds, not the Worker's whole budget;
 * - a failure is remembered for a short while (negative cache): tokens arriving meanwhile fail at once,
 *   and keys fetched earlier keep being used while the key server is failing (stale-if-error);
 * - a token whose `kid` is not among the cached keys (the project rotated its keys) triggers a refetch,
 *   at most once per REFETCH_MIN_MS: made-up `kid`s cannot make each request a fetch.
 */
import type { HonoJsonWebKey } from 'hono/utils/jwt/jws';

/** Keys are trusted this long; Supabase rotates with an overlap of far more than this. */
export const TTL_MS = 10 * 60 * 1000;
/** After a failed fetch, no new attempt for this long. */
export const FAILURE_TTL_MS = 10 * 1000;
/** An unknown `kid` refetches the keys at most this often. */
export const REFETCH_MIN_MS = 30 * 1000;
/** One fetch of the key set at most this long. */
export const FETCH_TIMEOUT_MS = 3 * 1000;

interface Entry {
  keys?: HonoJsonWebKey[];
  fetchedAt: number;
  failure?: { error: Error; at: number };
  inflight?: Promise<HonoJsonWebKey[]>;
}

export interface JwksOptions {
  now?: () => number;
  timeoutMs?: number;
}

export class JwksCache {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly timeoutMs: number;

  constructor({ now = Date.now, timeoutMs = FETCH_TIMEOUT_MS }: JwksOptions = {}) {
    this.now = now;
    this.timeoutMs = timeoutMs;
  }

  /** The keys to verify a token signed with `kid` (or any key, without one). */
  async keys(url: string, kid?: string): Promise<HonoJsonWebKey[]> {
    const now = this.now();
    const entry = this.entries.get(url) ?? { fetchedAt: 0 };
    this.entries.set(url, entry);
    const fresh = entry.keys !== undefined && now - entry.fetchedAt < TTL_MS;
    const knows = kid === undefined || entry.keys?.some((key) => key.kid === kid) === true;
    if (fresh && (knows || now - entry.fetchedAt < REFETCH_MIN_MS)) return entry.keys!;
    if (entry.failure && now - entry.failure.at < FAILURE_TTL_MS) {
      if (entry.keys) return entry.keys;
      throw entry.failure.error;
    }
    entry.inflight ??= this.fetchKeys(url, entry).finally(() => (entry.inflight = undefined));
    try {
      return await entry.inflight;
    } catch (error) {
      if (entry.keys) return entry.keys; // stale-if-error: the old keys still verify the old tokens
      throw error;
    }
  }

  private async fetchKeys(url: string, entry: Entry): Promise<HonoJsonWebKey[]> {
    try {
      const response = await fetch(url, {
        headers: { Accept: 'application/json' },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!response.ok) throw new Error(`JWKS ${url} answered ${response.status}`);
      const body = (await response.json()) as { keys?: HonoJsonWebKey[] };
      if (!Array.isArray(body.keys)) throw new Error(`JWKS ${url} has no keys`);
      entry.keys = body.keys;
      entry.fetchedAt = this.now();
      entry.failure = undefined;
      return body.keys;
    } catch (error) {
      entry.failure = { error: error instanceof Error ? error : new Error(String(error)), at: this.now() };
      throw entry.failure.error;
    }
  }
}

/** The process-wide (isolate-wide, on Workers) cache the token check uses. */
const shared = new JwksCache();

export function jwksKeys(url: string, kid?: string): Promise<HonoJsonWebKey[]> {
  return shared.keys(url, kid);
}
