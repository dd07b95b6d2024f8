/**
 * The crawler's only way onto the network. Every request, robots.txt and sitemaps included:
 * - goes only to an address the policy allows (server/ingest/address-policy.ts). An IP address in the URL is
 *   checked before anything is sent. A name is resolved by the connection's own `lookup`, which checks every
 *   address and hands back only the allowed ones, so the socket connects to an address that was checked —
 *   a DNS answer that changes between a check and the connect (DNS rebinding) cannot slip through;
 * - follows redirects itself (`redirect: 'manual'`), at most `maxRedirects`, each hop checked again (http
 *   and https only, the address policy);
 * - reads bodies as a stream and stops at `maxResponseBytes` per response and `maxTotalBytes` for the whole
 *   crawl, without buffering past the cap first.
 * A refused or oversized URL throws `CrawlRefusal`, whose message is the reason reported for that URL.
 */
import type { LookupAddress } from 'node:dns';
import { lookup as systemLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import {
  hostKey,
  isIpLiteral,
  privateNetworkAddresses,
  publicAddressesOnly,
  type AddressPolicy,
} from './address-policy.ts';

export const MiB = 1024 * 1024;

/** `fetch` as the guard calls it: with `redirect: 'manual'` and the checking `dispatcher` (undici). */
export type FetchLike = (url: string, init: RequestInit & { dispatcher?: Agent }) => Promise<Response>;

export interface GuardOptions {
  /**
   * Connect to loopback and private addresses too (a crawl on a trusted network), but only for the hosts in
   * `privateHosts`; link-local and cloud-metadata addresses stay refused. Default false.
   */
  allowPrivate?: boolean;
  /**
   * With `allowPrivate`: the host names (or IP literals, IPv6 in brackets) the operator named — the crawl's
   * start URLs. A redirect or link to any other host gets the public-only policy. Default: the host of the
   * URL each `fetch` is called with (its redirects to another host are refused).
   */
  privateHosts?: readonly string[];
  /** Redirects followed per request. Default 5. */
  maxRedirects?: number;
  /** Bytes read from one response at most. Default 10 MiB. */
  maxResponseBytes?: number;
  /** Bytes read during the whole crawl at most (pages, robots.txt, sitemaps). Default 200 MiB. */
  maxTotalBytes?: number;
  /** Tests only: a host name's addresses (default: the system resolver, every address it knows). */
  resolve?: (hostname: string) => Promise<string[]>;
  /** Tests only: which addresses are refused when `allowPrivate` is off (default: all but public unicast). */
  addressPolicy?: AddressPolicy;
  /** Default: undici's fetch, which honours the `dispatcher`. */
  fetch?: FetchLike;
}

/** Why a URL was not fetched or not read to the end; the message is the reason shown for that URL. */
export class CrawlRefusal extends Error {
  override name = 'CrawlRefusal';
  constructor(
    readonly kind: 'refused' | 'too large',
    readonly detail: string,
  ) {
    super(`${kind}: ${detail}`);
  }
}

export interface GuardedResponse {
  /** The URL the response came from, after redirects. */
  url: string;
  status: number;
  ok: boolean;
  headers: Headers;
  /** The body, up to the caps (else `CrawlRefusal`). */
  bytes(): Promise<Uint8Array>;
  text(): Promise<string>;
  /** Drops the body unread. */
  discard(): Promise<void>;
}

export interface FetchGuard {
  /** `body`: sent as is with the request (a webhook POST; the fetch given in the options sets the method). */
  fetch(
    url: string,
    init: { headers: Record<string, string>; signal?: AbortSignal; body?: string },
  ): Promise<GuardedResponse>;
  /** The crawl's byte budget is spent: nothing more is fetched. */
  readonly exhausted: boolean;
  /** Body bytes read so far (what the byte budget counts; headers not included). */
  readonly bytesRead: number;
  close(): Promise<void>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export function createFetchGuard(options: GuardOptions = {}): FetchGuard {
  const {
    allowPrivate = false,
    maxRedirects = 5,
    maxResponseBytes = 10 * MiB,
    maxTotalBytes = 200 * MiB,
    resolve = systemResolve,
    fetch: fetchImpl = undiciFetch as unknown as FetchLike,
  } = options;
  const publicPolicy = options.addressPolicy ?? publicAddressesOnly;
  const named = new Set((options.privateHosts ?? []).map(hostKey));
  // Which policy a host gets: the private-network one only for a host the operator named (`allowPrivate`),
  // so a named internal site cannot redirect the crawler to another internal host.
  const policyFor = (host: string, requested: string): AddressPolicy => {
    if (!allowPrivate) return publicPolicy;
    const key = hostKey(host);
    const allowed = options.privateHosts ? named.has(key) : key === hostKey(requested);
    return allowed ? privateNetworkAddresses : publicPolicy;
  };
  // The host names a connection in flight was asked for by `fetch` (undici's lookup sees only the host).
  const requestedBy = new Map<string, string>();
  let spent = 0;
  let exhausted = false;
  const totalReached = () => new CrawlRefusal('too large', `the crawl's total of ${size(maxTotalBytes)} was reached`);

  // net.connect calls this for host names (never for IP addresses, which are checked before the request).
  const lookup: LookupFunction = (hostname, opts, callback) => {
    const policy = policyFor(hostname, requestedBy.get(hostKey(hostname)) ?? '');
    resolve(hostname).then(
      (addresses) => {
        const family =
          opts.family === 4 || opts.family === 'IPv4' ? 4 : opts.family === 6 || opts.family === 'IPv6' ? 6 : 0;
        const found: LookupAddress[] = addresses
          .map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
          .filter((a) => family === 0 || a.family === family);
        const allowed = found.filter((a) => policy(a.address) === null);
        if (allowed.length === 0) {
          const refused = found[0];
          if (!refused)
            return callback(Object.assign(new Error(`no address found for ${hostname}`), { code: 'ENOTFOUND' }), '');
          return callback(
            new CrawlRefusal('refused', `${hostname} resolves to ${refused.address}, ${policy(refused.address)}`),
            '',
          );
        }
        if (opts.all) callback(null, allowed);
        else callback(null, allowed[0]!.address, allowed[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
  const agent = new Agent({ connect: { lookup } });

  /** Why this hop may not be requested, or null. */
  const problem = (url: URL, requested: string): string | null => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'only http and https URLs are fetched';
    if (isIpLiteral(url.hostname)) {
      const why = policyFor(url.hostname, requested)(url.hostname);
      if (why) return `${url.hostname} is ${why}`;
    }
    return null;
  };

  const read = async (res: Response): Promise<Uint8Array> => {
    const declared = Number(res.headers.get('content-length') ?? NaN);
    const overResponse = () => new CrawlRefusal('too large', `over ${size(maxResponseBytes)}`);
    if (declared > maxResponseBytes) {
      await discard(res);
      throw overResponse();
    }
    if (!res.body) return new Uint8Array();
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let length = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        length += value.byteLength;
        if (length > maxResponseBytes) throw overResponse();
        if (spent + value.byteLength > maxTotalBytes) {
          exhausted = true;
          throw totalReached();
        }
        spent += value.byteLength;
        chunks.push(value);
      }
    } catch (error) {
      // Cancelling the stream closes the connection: the rest is never downloaded.
      await reader.cancel().catch(() => {});
      throw error;
    }
    const bytes = new Uint8Array(length);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return bytes;
  };

  return {
    get exhausted() {
      return exhausted;
    },
    get bytesRead() {
      return spent;
    },
    async fetch(url, { headers, signal, body }) {
      let current = new URL(url);
      const requested = current.hostname;
      for (let hop = 0; ; hop++) {
        const refuse = (why: string) =>
          new CrawlRefusal('refused', hop === 0 ? why : `redirect to ${current.href} (${why})`);
        const why = problem(current, requested);
        if (why) throw refuse(why);
        if (exhausted) throw totalReached();
        let res: Response;
        // Without named hosts, a name is private-allowed only when it is the one this fetch was called with.
        if (!isIpLiteral(current.hostname)) requestedBy.set(hostKey(current.hostname), requested);
        try {
          res = await fetchImpl(current.href, {
            headers,
            redirect: 'manual',
            dispatcher: agent,
            ...(signal ? { signal } : {}),
            ...(body !== undefined ? { body } : {}),
          });
        } catch (error) {
          const refusal = refusalIn(error);
          if (refusal) throw refuse(refusal.detail);
          throw error;
        }
        const location = res.headers.get('location');
        if (!REDIRECTS.has(res.status) || location === null) return guarded(res, current.href, read);
        await discard(res);
        if (hop >= maxRedirects) throw new CrawlRefusal('refused', `more than ${maxRedirects} redirects`);
        try {
          current = new URL(location, current);
        } catch {
          throw new CrawlRefusal('refused', `redirect to an invalid URL (${location.slice(0, 200)})`);
        }
        current.hash = '';
      }
    },
    close: () => agent.close(),
  };
}

function guarded(res: Response, url: string, read: (res: Response) => Promise<Uint8Array>): GuardedResponse {
  return {
    url,
    status: res.status,
    ok: res.ok,
    headers: res.headers,
    bytes: () => read(res),
    text: async () => new TextDecoder().decode(await read(res)),
    discard: () => discard(res),
  };
}

async function discard(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => {});
}

async function systemResolve(hostname: string): Promise<string[]> {
  return (await systemLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);
}

/** The refusal raised inside the connection's lookup, which fetch wraps as the cause of "fetch failed". */
function refusalIn(error: unknown): CrawlRefusal | null {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof CrawlRefusal) return e;
  }
  return null;
}

/** 10485760 → "10 MiB", 65536 → "64 KiB". */
export function size(bytes: number): string {
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
