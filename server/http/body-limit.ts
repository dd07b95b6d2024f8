/**
 * Hono's body limit, without touching the body of a request that declares its length. Hono's middleware
 * first asks `c.req.raw.body` whether there is a body; on @hono/node-server that question alone builds the
 * whole web Request around the Node request (an AbortController, undici's Request, a web stream over the
 * socket), and the route's `request.json()` then reads through that stream. Left untouched, the same
 * `json()` reads the Node request directly. A `Content-Length` without `Transfer-Encoding` is what Hono's
 * middleware compares anyway (Node's parser never hands over more bytes than it declares), so this answers
 * exactly as Hono's does: too large → `onError`, else the route. A body of undeclared length (chunked) and
 * a request without either header go to Hono's middleware, which counts the bytes as they arrive.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

export interface DeclaredBodyLimitOptions {
  maxSize: number;
  onError: (c: Context) => Response | Promise<Response>;
}

export function declaredBodyLimit(options: DeclaredBodyLimitOptions): MiddlewareHandler {
  const counted = bodyLimit(options);
  return function declaredBodyLimitMiddleware(c, next) {
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      // As Hono compares it: parseInt, so a value it cannot read (NaN) is not "too large" there either.
      return Number.parseInt(length, 10) > options.maxSize ? Promise.resolve(options.onError(c)) : next();
    }
    return counted(c, next);
  };
}
