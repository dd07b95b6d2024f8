// Long file: one server stands in for PostgREST (rpc and table endpoints), Supabase Auth and fault injection, sharing its token checks.
/**
 * Test support: the part of a Supabase project that kb-chat talks to, over the embedded PGlite database
 * (the real migrations, roles and RLS). Not a mock of the SQL: every call runs the real SQL functions.
 *
 * - `POST /rest/v1/rpc/<fn>` as PostgREST does it: `apikey` required (the API gateway's check), the
 *   `Authorization` JWT verified (HS256, the project's secret), then in one transaction
 *   `set_config('request.jwt.claims', …, true)` and `set local role <role claim>` (anon without a user
 *   token); JSON named arguments bound through `json_to_record` (one parameter, never interpolated);
 *   PostgREST's error body `{code, details, hint, message}` and status mapping.
 * - `GET/POST/PATCH/DELETE /rest/v1/<table>`: PostgREST's table endpoints, simplified (eq filters only), so
 *   an attacker's test can try every table as PostgREST would expose it.
 * - `POST /auth/v1/signup` with an empty body: Supabase Auth's anonymous sign-up; `POST /auth/v1/token?
 *   grant_type=refresh_token`: its refresh (the refresh token is used up, a new one issued).
 * - Faults on demand (`inject`), per function (or `signup`): a 5xx, a timeout (no answer at all), a dropped
 *   connection, or a slow answer; before the SQL runs, or after it committed (the response is what is lost).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decode, sign, verify } from 'hono/jwt';
import type { SqlQueryable } from '../../server/store/sql-db.ts';
import type { OpenStore } from '../../server/store/sql-store.ts';

const ROLES = new Set(['anon', 'authenticated', 'service_role']);
const TOKEN_TTL = 3600;

export interface RpcServerOptions {
  store: OpenStore;
  jwtSecret: string;
  /** Supabase Auth's "Allow anonymous sign-ins" (on by default here). */
  anonymousSignIns?: boolean;
  /**
   * How Supabase Auth signs user tokens: `legacy` HS256 with the JWT secret (default here), or `asymmetric`
   * ES256 with a key published at `/auth/v1/.well-known/jwks.json` (Supabase's signing keys). The API keys
   * stay HS256 JWTs either way, as Supabase's legacy anon/service_role keys are.
   */
  signingKeys?: 'legacy' | 'asymmetric';
  /**
   * Supabase Auth's CAPTCHA protection: a sign-up must carry `gotrue_meta_security.captcha_token`, and
   * here a token passes when it starts with `turnstile-ok` (Cloudflare's siteverify cannot be reached).
   */
  captcha?: boolean;
  /**
   * Accounts for Supabase Auth's password grant (`POST /auth/v1/token?grant_type=password`), each with the
   * app_metadata Supabase puts in its tokens (e.g. `{ role: 'admin' }` for the console).
   */
  passwordUsers?: { email: string; password: string; appMetadata: Record<string, unknown> }[];
}

/** One handled request, for assertions about who called what. */
export interface RpcLogEntry {
  path: string;
  status: number;
  role: string | null;
  sub: string | null;
  /** Which key the `apikey` header carried. */
  apikeyRole: string | null;
  /** The rpc's argument names as sent (the JSON body's keys). */
  args?: string[];
  /** The fault injected into this request, if any. */
  fault?: RpcFault['kind'];
}

/**
 * What to do to a request instead of answering it normally:
 * - `status`: answer with this 5xx and PostgREST's error body (`code` PGRST000, "could not connect");
 * - `timeout`: never answer (the connection stays open until the client gives up or the server closes);
 * - `drop`: destroy the connection without a response;
 * - `slow`: answer normally after `ms`.
 * `after: true` runs the SQL first (committed), then fails: the client cannot know its call took effect.
 */
export type RpcFault =
  | { kind: 'status'; status: number }
  | { kind: 'timeout' }
  | { kind: 'drop' }
  | { kind: 'slow'; ms: number };

export interface FaultRule {
  /** An rpc function name, or `signup` for Supabase Auth's anonymous sign-up. */
  target: string;
  fault: RpcFault;
  after?: boolean;
  /** How many requests it hits, the next ones first (default: all until cleared). */
  times?: number;
}

export interface RpcServer {
  url: string;
  anonKey: string;
  serviceRoleKey: string;
  log: RpcLogEntry[];
  /** Adds a fault rule (the first matching rule with hits left applies). */
  inject(rule: FaultRule): void;
  clearFaults(): void;
  close(): Promise<void>;
}

interface PgError {
  code?: string;
  message: string;
  detail?: string;
  hint?: string;
}

interface Answer {
  status: number;
  body: unknown;
  /** A fault that is not an HTTP answer. */
  fault?: 'timeout' | 'drop';
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message ?? body.msg));
  }
}

export async function startRpcServer({
  store,
  jwtSecret,
  anonymousSignIns = true,
  signingKeys = 'legacy',
  captcha = false,
  passwordUsers = [],
}: RpcServerOptions): Promise<RpcServer> {
  const now = Math.floor(Date.now() / 1000);
  const signing = signingKeys === 'asymmetric' ? await es256Key() : null;
  const key = (role: string) =>
    sign({ iss: 'supabase', role, iat: now, exp: now + 10 * 365 * 86400 }, jwtSecret, 'HS256');
  const anonKey = await key('anon');
  const serviceRoleKey = await key('service_role');
  const log: RpcLogEntry[] = [];
  const rules: (FaultRule & { left: number })[] = [];
  /** The fault for this target, consuming one of its hits. */
  const faultFor = (target: string): FaultRule | undefined => {
    const rule = rules.find((r) => r.target === target && r.left > 0);
    if (rule) rule.left -= 1;
    return rule;
  };

  async function claimsOf(token: string): Promise<Record<string, unknown>> {
    try {
      if (signing && decode(token).header.alg === 'ES256')
        return (await verify(token, signing.publicJwk as never, 'ES256')) as Record<string, unknown>;
      return (await verify(token, jwtSecret, 'HS256')) as Record<string, unknown>;
    } catch (error) {
      const expired = error instanceof Error && /expired/i.test(error.name + error.message);
      throw new HttpError(401, {
        code: expired ? 'PGRST303' : 'PGRST301',
        details: null,
        hint: null,
        message: expired ? 'JWT expired' : 'JWSError JWSInvalidSignature',
      });
    }
  }

  async function handle(req: IncomingMessage, entry: RpcLogEntry): Promise<Answer> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    // Public, as on Supabase: no API key needed to read the signing keys.
    if (url.pathname === '/auth/v1/.well-known/jwks.json' && req.method === 'GET') {
      return { status: 200, body: { keys: signing ? [signing.publicJwk] : [] } };
    }
    const apikey = header(req, 'apikey');
    if (!apikey) {
      throw new HttpError(401, {
        message: 'No API key found in request',
        hint: 'No `apikey` request header or url param was found.',
      });
    }
    const apikeyClaims = await claimsOf(apikey).catch(() => {
      throw new HttpError(401, {
        message: 'Invalid API key',
        hint: 'Double check your Supabase `anon` or `service_role` API key.',
      });
    });
    entry.apikeyRole = String(apikeyClaims.role);
    const table = /^\/rest\/v1\/(?!rpc\/)([^/]+)$/.exec(url.pathname);
    if (req.method !== 'POST' && !table)
      throw new HttpError(405, {
        code: 'PGRST117',
        details: null,
        hint: null,
        message: `Unsupported HTTP method: ${req.method}`,
      });

    const body = await readJson(req);
    if (url.pathname === '/auth/v1/signup') return withFault('signup', entry, () => signUp(body));
    if (url.pathname === '/auth/v1/token' && url.searchParams.get('grant_type') === 'password')
      return passwordSession(body);
    if (url.pathname === '/auth/v1/token' && url.searchParams.get('grant_type') === 'refresh_token') {
      return withFault('refresh', entry, () => refreshSession(body));
    }

    const rpc = /^\/rest\/v1\/rpc\/([^/]+)$/.exec(url.pathname);
    if (!rpc && !table)
      throw new HttpError(404, {
        code: 'PGRST125',
        details: null,
        hint: null,
        message: `Invalid path specified in request URL`,
      });
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new HttpError(400, { code: 'PGRST102', details: null, hint: null, message: 'Empty or invalid json' });
    }

    // PostgREST's db-anon-role when no user token; otherwise the token's role claim.
    const bearer = /^Bearer\s+(\S+)$/i.exec(header(req, 'authorization') ?? '')?.[1];
    const claims = bearer ? await claimsOf(bearer) : { role: 'anon' };
    const role = String(claims.role);
    entry.role = role;
    entry.sub = typeof claims.sub === 'string' ? claims.sub : null;
    if (!ROLES.has(role))
      throw new HttpError(401, {
        code: 'PGRST301',
        details: null,
        hint: null,
        message: `role "${role}" is not allowed`,
      });

    if (table) {
      const name = decodeURIComponent(table[1]!);
      return {
        status: req.method === 'GET' ? 200 : req.method === 'POST' ? 201 : 204,
        body: await tableRequest(
          name,
          req.method ?? 'GET',
          url.searchParams,
          body as Record<string, unknown>,
          claims,
          role,
        ),
      };
    }
    const name = decodeURIComponent(rpc![1]!);
    entry.args = Object.keys(body);
    return withFault(name, entry, async () => ({
      status: 200,
      body: await callFunction(name, body as Record<string, unknown>, claims, role, req),
    }));
  }

  /** Runs `handler` under the target's fault, if one is injected. */
  async function withFault(target: string, entry: RpcLogEntry, handler: () => Promise<Answer>): Promise<Answer> {
    const rule = faultFor(target);
    if (!rule) return handler();
    entry.fault = rule.fault.kind;
    if (rule.fault.kind === 'slow') {
      await new Promise((resolve) => setTimeout(resolve, (rule.fault as { ms: number }).ms));
      return handler();
    }
    // After: the call takes effect (committed), only its answer fails.
    if (rule.after) await handler().catch(() => {});
    if (rule.fault.kind === 'status') {
      return {
        status: rule.fault.status,
        body: { code: 'PGRST000', details: 'injected fault', hint: null, message: 'Could not connect to the database' },
      };
    }
    return { status: 0, body: null, fault: rule.fault.kind };
  }

  async function callFunction(
    name: string,
    args: Record<string, unknown>,
    claims: object,
    role: string,
    req: IncomingMessage,
  ) {
    const fn = await resolveFunction(store, name, Object.keys(args));
    const columns = fn.args.map((a) => `${ident(a.name)} ${a.type}`).join(', ');
    const named = fn.args
      .filter((a) => a.name in args)
      .map((a) => `${ident(a.name)} := _args.${ident(a.name)}`)
      .join(', ');
    const call = `public.${ident(fn.name)}(${named})`;
    const argsRecord = `json_to_record($1::json) as _args(${columns})`;
    // A set or a row comes back as a JSON array of objects, a scalar as that JSON value (as PostgREST does).
    const sql = fn.returnsRows
      ? `select coalesce(json_agg(_r), '[]'::json) as body from (select _call.* from ${fn.args.length ? `${argsRecord} cross join lateral ` : ''}${call} _call) _r`
      : `select to_json(${call}) as body${fn.args.length ? ` from ${argsRecord}` : ''}`;
    return asRole(claims, role, req, async (tx) => {
      const { rows } = await tx.query<{ body: unknown }>(sql, fn.args.length ? [JSON.stringify(args)] : []);
      return rows[0]?.body ?? null;
    });
  }

  /**
   * PostgREST's table endpoints, as far as an attacker's test needs them: `GET` reads (at most 1000 rows),
   * `POST` inserts the body's columns, `PATCH` updates them and `DELETE` deletes, the last two filtered by
   * `column=eq.value` query parameters. Run as the caller's role, so table privileges and RLS decide. Answers
   * the rows read, or for writes `{ rows: n }` (how many rows the statement touched; PostgREST itself would
   * answer 201/204 with no body).
   */
  async function tableRequest(
    name: string,
    method: string,
    query: URLSearchParams,
    body: Record<string, unknown>,
    claims: object,
    role: string,
  ) {
    const { rows: columnRows } = await store.db.query<{ column_name: string }>(
      `select column_name from information_schema.columns where table_schema = 'public' and table_name = $1`,
      [name],
    );
    const columns = new Set(columnRows.map((c) => c.column_name));
    if (columns.size === 0) {
      throw new HttpError(404, {
        code: 'PGRST205',
        details: null,
        hint: null,
        message: `Could not find the table 'public.${name}' in the schema cache`,
      });
    }
    const unknown = [...Object.keys(body), ...query.keys()].filter((c) => !columns.has(c));
    if (unknown.length)
      throw new HttpError(400, {
        code: 'PGRST204',
        details: null,
        hint: null,
        message: `Could not find the '${unknown[0]}' column of '${name}'`,
      });
    const params: unknown[] = [];
    const where = [...query.entries()].map(([column, filter]) => {
      if (!filter.startsWith('eq.'))
        throw new HttpError(400, {
          code: 'PGRST100',
          details: null,
          hint: null,
          message: `only eq filters here: ${filter}`,
        });
      params.push(filter.slice(3));
      return `${ident(column)}::text = $${params.length}`;
    });
    const filter = where.length ? ` where ${where.join(' and ')}` : '';
    const target = `public.${ident(name)}`;
    const set = Object.keys(body).map(ident).join(', ');
    const record = () => {
      params.push(JSON.stringify(body));
      return `json_populate_record(null::${target}, $${params.length}::json)`;
    };
    const sql =
      method === 'GET'
        ? `select coalesce(json_agg(_t), '[]'::json) as body from (select * from ${target}${filter} limit 1000) _t`
        : method === 'POST'
          ? `with _w as (insert into ${target} (${set}) select ${set} from ${record()} returning 1) select json_build_object('rows', count(*)) as body from _w`
          : method === 'PATCH'
            ? `with _w as (update ${target} set (${set}) = (select ${set} from ${record()})${filter} returning 1) select json_build_object('rows', count(*)) as body from _w`
            : method === 'DELETE'
              ? `with _w as (delete from ${target}${filter} returning 1) select json_build_object('rows', count(*)) as body from _w`
              : null;
    if (!sql)
      throw new HttpError(405, {
        code: 'PGRST117',
        details: null,
        hint: null,
        message: `Unsupported HTTP method: ${method}`,
      });
    if (method !== 'GET' && method !== 'DELETE' && !set)
      throw new HttpError(400, { code: 'PGRST102', details: null, hint: null, message: 'Empty or invalid json' });
    return asRole(
      claims,
      role,
      null,
      async (tx) => (await tx.query<{ body: unknown }>(sql, params)).rows[0]?.body ?? null,
    );
  }

  /** One transaction as PostgREST runs a request: the claims (and headers) set, then `set local role`. */
  async function asRole<T>(
    claims: object,
    role: string,
    req: IncomingMessage | null,
    fn: (tx: SqlQueryable) => Promise<T>,
  ): Promise<T> {
    const headers = req ? Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])) : {};
    try {
      return await store.db.transaction(async (tx) => {
        await tx.query("select set_config('request.jwt.claims', $1, true), set_config('request.headers', $2, true)", [
          JSON.stringify(claims),
          JSON.stringify(headers),
        ]);
        // `role` is one of ROLES (checked above), never request text.
        await tx.exec(`set local role ${role}`);
        return fn(tx);
      });
    } catch (error) {
      if (error instanceof HttpError) throw error;
      const pg = error as PgError;
      throw new HttpError(statusFor(pg.code ?? '', role !== 'anon'), {
        code: pg.code ?? null,
        details: pg.detail ?? null,
        hint: pg.hint ?? null,
        message: pg.message,
      });
    }
  }

  async function signUp(body: unknown): Promise<Answer> {
    const fields = (body ?? {}) as Record<string, unknown>;
    if (fields.email || fields.phone)
      throw new HttpError(422, {
        code: 422,
        error_code: 'validation_failed',
        msg: 'Only anonymous sign-ups are supported here',
      });
    if (!anonymousSignIns) {
      throw new HttpError(422, {
        code: 422,
        error_code: 'anonymous_provider_disabled',
        msg: 'Anonymous sign-ins are disabled',
      });
    }
    const captchaToken = (fields.gotrue_meta_security as { captcha_token?: unknown } | undefined)?.captcha_token;
    if (captcha && !(typeof captchaToken === 'string' && captchaToken.startsWith('turnstile-ok'))) {
      throw new HttpError(400, {
        code: 400,
        error_code: 'captcha_failed',
        msg: 'captcha protection: request disallowed (invalid-input-response)',
      });
    }
    const { rows } = await store.db.query<{ id: string; created_at: string }>(
      'insert into auth.users (is_anonymous) values (true) returning id, created_at',
    );
    return { status: 200, body: await sessionFor(rows[0]!) };
  }

  /** Refresh tokens issued and not yet used, each to its user (Supabase Auth rotates them on every use). */
  const refreshTokens = new Map<string, { id: string; created_at: string }>();

  /** `POST /auth/v1/token?grant_type=refresh_token`: a new session for the same user; the old token is spent. */
  async function refreshSession(body: unknown): Promise<Answer> {
    const token = (body as { refresh_token?: unknown } | null)?.refresh_token;
    const user = typeof token === 'string' ? refreshTokens.get(token) : undefined;
    if (!user)
      throw new HttpError(400, {
        code: 400,
        error_code: 'refresh_token_not_found',
        msg: 'Invalid Refresh Token: Refresh Token Not Found',
      });
    refreshTokens.delete(token as string);
    return { status: 200, body: await sessionFor(user) };
  }

  /** Users of the password grant, created on their first sign-in. */
  const passwordAccounts = new Map<string, { id: string; created_at: string }>();

  /** `POST /auth/v1/token?grant_type=password`: a session for a configured account (400 otherwise, as Supabase). */
  async function passwordSession(body: unknown): Promise<Answer> {
    const { email, password } = (body ?? {}) as { email?: unknown; password?: unknown };
    const account = passwordUsers.find((u) => u.email === email && u.password === password);
    if (!account)
      throw new HttpError(400, { code: 400, error_code: 'invalid_credentials', msg: 'Invalid login credentials' });
    let user = passwordAccounts.get(account.email);
    if (!user) {
      const { rows } = await store.db.query<{ id: string; created_at: string }>(
        'insert into auth.users (is_anonymous) values (false) returning id, created_at',
      );
      passwordAccounts.set(account.email, (user = rows[0]!));
    }
    return {
      status: 200,
      body: await sessionFor(user, {
        is_anonymous: false,
        email: account.email,
        app_metadata: account.appMetadata,
        amr: [{ method: 'password', timestamp: Math.floor(Date.now() / 1000) }],
      }),
    };
  }

  async function sessionFor(user: { id: string; created_at: string }, extra: Record<string, unknown> = {}) {
    const iat = Math.floor(Date.now() / 1000);
    const accessToken = await sign(
      {
        iss: `${server.url}/auth/v1`,
        sub: user.id,
        aud: 'authenticated',
        exp: iat + TOKEN_TTL,
        iat,
        role: 'authenticated',
        aal: 'aal1',
        amr: [{ method: 'anonymous', timestamp: iat }],
        session_id: crypto.randomUUID(),
        is_anonymous: true,
        email: '',
        phone: '',
        app_metadata: {},
        user_metadata: {},
        ...extra,
      },
      signing ? (signing.privateJwk as never) : jwtSecret,
      signing ? 'ES256' : 'HS256',
    );
    const refreshToken = crypto.randomUUID();
    refreshTokens.set(refreshToken, user);
    return {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: TOKEN_TTL,
      expires_at: iat + TOKEN_TTL,
      refresh_token: refreshToken,
      user: {
        id: user.id,
        aud: 'authenticated',
        role: 'authenticated',
        is_anonymous: true,
        created_at: user.created_at,
      },
    };
  }

  const httpServer = createServer((req: IncomingMessage, res: ServerResponse) => {
    const entry: RpcLogEntry = { path: req.url ?? '', status: 0, role: null, sub: null, apikeyRole: null };
    handle(req, entry)
      .catch((error: unknown): Answer => {
        if (error instanceof HttpError) return { status: error.status, body: error.body };
        console.error('[rpc-server]', error);
        return { status: 500, body: { code: 'XX000', details: null, hint: null, message: String(error) } };
      })
      .then(({ status, body, fault }) => {
        entry.status = status;
        log.push(entry);
        if (fault === 'drop') return void req.socket.destroy();
        if (fault === 'timeout') return; // no answer; closeAllConnections() ends it
        res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(body));
      });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const server: RpcServer = {
    url: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`,
    anonKey,
    serviceRoleKey,
    log,
    inject: (rule) => void rules.push({ ...rule, left: rule.times ?? Number.POSITIVE_INFINITY }),
    clearFaults: () => void rules.splice(0),
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
  return server;
}

/** An ES256 signing key as Supabase Auth publishes it: the private half signs, the public half is the JWKS. */
async function es256Key(): Promise<{ privateJwk: JsonWebKey; publicJwk: JsonWebKey }> {
  const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  const kid = crypto.randomUUID();
  return {
    privateJwk: { ...(await crypto.subtle.exportKey('jwk', pair.privateKey)), kid, alg: 'ES256' } as JsonWebKey,
    publicJwk: {
      ...(await crypto.subtle.exportKey('jwk', pair.publicKey)),
      kid,
      alg: 'ES256',
      use: 'sig',
    } as JsonWebKey,
  };
}

interface ResolvedFunction {
  name: string;
  args: { name: string; type: string }[];
  returnsRows: boolean;
}

/**
 * Finds `public.<name>` whose input argument names cover the given keys and whose arguments without a
 * default are all given — PostgREST's overload resolution by argument names. The name only ever reaches
 * SQL as a bound parameter here and, once found in pg_proc, as a quoted identifier.
 */
async function resolveFunction(store: OpenStore, name: string, keys: string[]): Promise<ResolvedFunction> {
  const { rows } = await store.db.query<{
    argnames: string[] | null;
    argmodes: string[] | null;
    argtypes: string[];
    required: number;
    retset: boolean;
    typtype: string;
  }>(
    `select p.proargnames as argnames, p.proargmodes::text[] as argmodes,
        array(select format_type(t, null) from unnest(p.proargtypes::oid[]) t) as argtypes,
        p.pronargs - p.pronargdefaults as required, p.proretset as retset, t.typtype
     from pg_proc p join pg_type t on t.oid = p.prorettype
     where p.pronamespace = 'public'::regnamespace and p.proname = $1 and p.prokind = 'f'`,
    [name],
  );
  const candidates = rows.flatMap((row) => {
    // proargnames covers all arguments (including `returns table` columns) when proargmodes is set.
    const names = (row.argnames ?? []).filter((_, i) => !row.argmodes || ['i', 'b', 'v'].includes(row.argmodes[i]!));
    if (names.length !== row.argtypes.length) return [];
    const args = names.map((n, i) => ({ name: n, type: row.argtypes[i]! }));
    const covers = keys.every((k) => names.includes(k)) && names.slice(0, row.required).every((n) => keys.includes(n));
    return covers ? [{ name, args, returnsRows: row.retset || row.typtype === 'c' || row.typtype === 'p' }] : [];
  });
  if (candidates.length === 1) return candidates[0]!;
  const signature = `public.${name}(${[...keys].sort().join(', ')})`;
  if (candidates.length === 0) {
    throw new HttpError(404, {
      code: 'PGRST202',
      details: `Searched for the function ${signature.replace(/\(.*\)/, '')} with parameters ${keys.join(', ') || '(none)'} or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.`,
      hint: null,
      message: `Could not find the function ${signature} in the schema cache`,
    });
  }
  throw new HttpError(300, {
    code: 'PGRST203',
    details: null,
    hint: 'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
    message: `Could not choose the best candidate function between several for ${signature}`,
  });
}

/** PostgREST's SQLSTATE → HTTP status table (docs.postgrest.org, "Errors"). */
export function statusFor(code: string, authenticated: boolean): number {
  if (code === '42501') return authenticated ? 403 : 401;
  const exact: Record<string, number> = {
    '23503': 409,
    '23505': 409,
    '25006': 405,
    P0001: 400,
    '42883': 404,
    '42P01': 404,
    '42P17': 500,
  };
  if (exact[code]) return exact[code]!;
  const byClass: Record<string, number> = {
    '08': 503,
    '09': 500,
    '0L': 403,
    '0P': 403,
    '25': 500,
    '28': 403,
    '2D': 500,
    '38': 500,
    '39': 500,
    '3B': 500,
    '40': 500,
    '53': 503,
    '54': 500,
    '55': 500,
    '57': 500,
    '58': 500,
    F0: 500,
    HV: 500,
    P0: 500,
    XX: 500,
  };
  return byClass[code.slice(0, 2)] ?? 400;
}

function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, { code: 'PGRST102', details: null, hint: null, message: 'Empty or invalid json' });
  }
}
