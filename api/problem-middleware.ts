// The one error mapper of the REST API: whatever is thrown becomes an RFC 9457 problem body.
// Only ProblemErrors and errors Koa marks as `expose` show their message; anything else is
// logged and answered with a bare 500.
import type { Context, Next } from 'koa';
import { PROBLEM_CONTENT_TYPE, ProblemError, problemBody } from '../contract/problem';
import type { Logger } from '../platform/logger';

export function problemMiddleware(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new ProblemError(404, 'no such resource');
      if (isRouterMethodRefusal(ctx)) throw methodRefusal(ctx);
    } catch (err) {
      const body = toProblem(err, logger, ctx);
      ctx.status = body.status;
      ctx.type = PROBLEM_CONTENT_TYPE;
      ctx.body = body;
    }
  };
}

/**
 * @koa/router answers a method it routes elsewhere with 405 and one it does not implement at all
 * (PROPFIND, LOCK, ...) with 501, both with an Allow header and no body. A method is the caller's
 * choice, never the service's failure: both become 405 where the path exists, 404 where it does not.
 */
function isRouterMethodRefusal(ctx: Context): boolean {
  return (ctx.status === 405 || ctx.status === 501) && (ctx.body === undefined || typeof ctx.body === 'string');
}

function methodRefusal(ctx: Context): ProblemError {
  if (ctx.response.get('allow') === '') {
    ctx.remove('allow');
    return new ProblemError(404, 'no such resource');
  }
  return new ProblemError(405, `method ${ctx.method} is not allowed here`);
}

function toProblem(err: unknown, logger: Logger, ctx: Context) {
  if (err instanceof ProblemError) return err.toBody();
  const e = err as { status?: number; statusCode?: number; expose?: boolean; message?: string; type?: string };
  const status = e.status ?? e.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 400) return problemBody(400, 'the body is not valid JSON');
    if (status === 413) return problemBody(413, 'the body is larger than the service accepts');
    return problemBody(status, e.expose ? e.message : undefined);
  }
  if (isDecompressionError(err)) return problemBody(400, 'the body does not match its Content-Encoding');
  if (isDatabaseUnavailable(err)) return problemBody(503, 'the database is unavailable; try again');
  logger.error({ err, method: ctx.method, path: ctx.path }, 'unhandled error');
  return problemBody(500, 'the service failed to handle the request');
}

/** A gzip/deflate/br body that does not decode fails in zlib, with zlib's codes and no status. */
function isDecompressionError(err: unknown): boolean {
  const e = err as { code?: unknown; errno?: unknown };
  return typeof e.errno === 'number' && typeof e.code === 'string' && /^(Z_|ERR__ERROR_|ERR_BROTLI)/.test(e.code);
}

/** The driver could not reach the database (selection timeout, network error, pool cleared). */
function isDatabaseUnavailable(err: unknown): boolean {
  const name = (err as { name?: string }).name ?? '';
  return /^Mongo(ServerSelection|Network|NetworkTimeout|PoolCleared|TopologyClosed)Error$/.test(name);
}
