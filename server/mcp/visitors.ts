/**
 * Who an MCP client is. MCP clients send no credentials (a visitor's editor is configured with a URL only),
 * but every question is stored under a user and every search runs under row-level security as one. So each
 * client network (./../http/client-key.ts: an IPv4 address, an IPv6 /64) gets one anonymous user, signed up
 * the way the widget's visitors are (`POST /api/auth/anonymous`'s sign-in, counted by the same per-client
 * sign-up limiter) and kept in memory until shortly before its token expires. The per-user rate limit in the
 * database then limits each client network, across requests, as it limits a visitor. Nothing of that user is
 * ever handed to the client, so sharing it within one network exposes nothing: MCP has no history to read.
 */
import type { AnonymousAuth } from '../../protocol/index.ts';
import { verifyAccessToken, type TokenVerification } from '../auth/jwt.ts';
import type { ClientLimiter } from '../http/client-limit.ts';
import type { JwtClaims } from '../store/types.ts';

/** Signed up again this long before the token's expiry, so a call never starts with a token about to lapse. */
const RENEW_BEFORE_MS = 5 * 60 * 1000;

export type VisitorLookup = { claims: JwtClaims } | { retryAfter: number };

export class McpVisitors {
  private readonly held = new Map<string, { claims: JwtClaims; until: number }>();

  constructor(
    private readonly signIn: () => Promise<AnonymousAuth>,
    private readonly auth: TokenVerification,
    private readonly limiter?: ClientLimiter,
    private readonly now: () => number = Date.now,
    /** Clients remembered at once; past it the oldest is forgotten (a flood of addresses cannot grow memory). */
    private readonly maxClients = 10_000,
  ) {}

  async lookup(clientKey: string): Promise<VisitorLookup> {
    const now = this.now();
    const held = this.held.get(clientKey);
    if (held && held.until > now) return { claims: held.claims };
    if (this.limiter) {
      const verdict = await this.limiter.hit(clientKey);
      if (!verdict.allowed) return { retryAfter: verdict.retryAfter };
    }
    const session = await this.signIn();
    const claims = await verifyAccessToken(session.access_token, this.auth);
    this.held.delete(clientKey);
    if (this.held.size >= this.maxClients) this.held.delete(this.held.keys().next().value!);
    this.held.set(clientKey, { claims, until: now + Math.max(60_000, session.expires_in * 1000 - RENEW_BEFORE_MS) });
    return { claims };
  }
}
