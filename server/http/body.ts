/**
 * Reading a request body strictly: JSON, then a wire schema from protocol/. Every route that takes a body
 * reads it here, so a malformed one is the same 400 `{error:{code,message}}` naming the first bad field.
 */
import * as v from 'valibot';
import { AppError } from './errors.ts';

export async function readJson(request: Request): Promise<unknown> {
  try {
    return await request.json();
  } catch {
    throw new AppError(400, 'invalid_request', 'body: must be JSON.');
  }
}

/** Validates against a wire schema; a 400 names the first offending field. */
export function parseBody<S extends v.GenericSchema>(schema: S, body: unknown): v.InferOutput<S> {
  const parsed = v.safeParse(schema, body);
  if (parsed.success) return parsed.output;
  const issue = parsed.issues[0];
  const field = issue ? v.getDotPath(issue) : null;
  // Issues of the body as a whole (not an object, say) have no path: they are the body's.
  throw new AppError(400, 'invalid_request', `${field ?? 'body'}: ${issue?.message ?? 'is not a valid request'}`);
}
