// Parsing at the boundary: a schema per request type, one way to turn a mismatch into a 422.
import type { Context } from 'koa';
import type { z } from 'zod';
import { ProblemError } from '../contract/problem';
import { fieldErrors } from '../contract/schemas';

export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ProblemError(422, `the ${what} is invalid`, undefined, fieldErrors(result.error));
}

/** JSON bodies only; an empty body is `{}` so that optional-only bodies may be left out. */
export function jsonBody(ctx: Context): unknown {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
  const request = ctx.request as { body?: unknown; rawBody?: unknown };
  // The body parser leaves rawBody unset for a type it does not parse (e.g. application/merge-patch+json,
  // which ctx.is accepts): such a body would otherwise be read as {} and refused for the wrong reason.
  if (hasBody && (!ctx.is('application/json', 'application/*+json') || request.rawBody === undefined)) {
    throw new ProblemError(415, 'the body must be application/json');
  }
  const body = request.body;
  return body === undefined ? {} : body;
}

/** Query strings: repeated keys are refused rather than silently picking one. */
export function queryObject(ctx: Context): Record<string, string> {
  // No prototype: `?__proto__=x` must be an unknown key (422), not a silent no-op on a plain object.
  const out: Record<string, string> = Object.create(null);
  for (const [key, value] of Object.entries(ctx.query)) {
    if (Array.isArray(value)) throw new ProblemError(422, `query parameter ${key} is given more than once`, undefined, [{ path: key, message: 'repeated' }]);
    if (value !== undefined) out[key] = value;
  }
  return out;
}
