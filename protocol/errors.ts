/** The one error body every endpoint returns before a stream starts: `{error:{code,message}}`. */
import * as v from 'valibot';

export const ERROR_CODES = [
  'invalid_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'payload_too_large',
  'rate_limited',
  // A sign-up without the CAPTCHA token the server asks for (400): solve it (see /api/config) and send again.
  'captcha_required',
  'unavailable',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const ErrorBodySchema = v.object({
  error: v.object({ code: v.string(), message: v.string() }),
});
export type ErrorBody = { error: { code: ErrorCode; message: string } };
