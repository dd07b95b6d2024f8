/** The crawler's GET (crawl.ts): through the fetch guard, retried when asking again may help. */
import { CrawlRefusal, type FetchGuard, type GuardedResponse } from './guarded-fetch.ts';

export interface RetryOptions {
  /** Retries after the first attempt for network errors, 429 and 5xx. Default 3. */
  retries?: number;
  /** First backoff; doubles per retry, ± 25 % jitter. Default 500 ms. */
  backoffMs?: number;
  /** Per request. Default 20 s. */
  timeoutMs?: number;
}

/**
 * GET through the guard with retries: network errors, 408, 429 and 5xx; exponential backoff with jitter,
 * Retry-After ≤ 30 s. A refusal is final (asking again would get the same answer).
 */
export async function fetchWithRetry(
  guard: FetchGuard,
  url: string,
  accept: string,
  options: RetryOptions,
  userAgent: string,
  extra: Record<string, string> = {},
): Promise<GuardedResponse> {
  const { retries = 3, backoffMs = 500, timeoutMs = 20_000 } = options;
  for (let attempt = 0; ; attempt++) {
    let res: GuardedResponse | null = null;
    let failure: unknown = null;
    try {
      res = await guard.fetch(url, {
        headers: { ...extra, 'user-agent': userAgent, accept },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      if (error instanceof CrawlRefusal) throw error;
      failure = error;
    }
    const retryable = res === null || res.status === 408 || res.status === 429 || res.status >= 500;
    if (!retryable || attempt >= retries) {
      if (res) return res;
      throw new Error(`fetch failed: ${message(failure)}`);
    }
    const retryAfter = Number(res?.headers.get('retry-after'));
    await res?.discard();
    const delay =
      Number.isFinite(retryAfter) && retryAfter > 0
        ? Math.min(retryAfter * 1000, 30_000)
        : backoffMs * 2 ** attempt * (0.75 + Math.random() / 2);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** An error's message, with its cause's (a network error's code is in the cause). */
export function message(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
