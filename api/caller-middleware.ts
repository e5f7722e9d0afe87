// Authenticates every request of the REST API except those its declaration marks `auth: 'open'`
// (health, the OpenAPI document, the OAuth consent and callback, well-known documents, the
// console's pages and files), and
// keeps the caller on the context for the routes' ownership checks; an owner past its request
// rate (CONNECTOR__RATE_LIMIT_PER_OWNER) gets 429 before any route runs.
import type { Context, Next } from 'koa';
import { IdentityProviderUnavailable, OPEN_CALLER, Unauthenticated, type Caller } from '../callers/caller';
import { authorizationOf, type Authenticator } from '../callers/authenticator';
import type { OwnerRateLimit } from '../callers/owner-rate-limit';
import { ProblemError } from '../contract/problem';
import { openPathMatcher } from './routes/open-paths';

// The consent page and the callback are opened by the user's browser, which holds no API credential;
// so are the console's pages and files (the console then sends the user's credential itself).
const isOpen = openPathMatcher();

export function callerMiddleware(auth: Authenticator, rateLimit: OwnerRateLimit | null = null) {
  return async (ctx: Context, next: Next) => {
    if (!isOpen(ctx.path)) {
      const caller = await authenticate(ctx, auth, ctx.req.rawHeaders);
      if (rateLimit && caller.subject !== null) refuseOverRate(ctx, rateLimit, caller.subject);
      ctx.state.caller = caller;
    }
    await next();
  };
}

function refuseOverRate(ctx: Context, rateLimit: OwnerRateLimit, owner: string): void {
  const refused = rateLimit.take(owner);
  if (!refused) return;
  ctx.set(refused.headers);
  throw new ProblemError(429, 'this owner sends more requests than it may (CONNECTOR__RATE_LIMIT_PER_OWNER); try again after Retry-After', 'rate-limited');
}

export function callerOf(ctx: Context): Caller {
  return ctx.state.caller as Caller;
}

async function authenticate(ctx: Context, auth: Authenticator, rawHeaders: string[]): Promise<Caller> {
  if (!auth.enabled) return OPEN_CALLER;
  try {
    return await auth.authenticate(authorizationOf(rawHeaders));
  } catch (err) {
    if (err instanceof Unauthenticated) {
      ctx.set('WWW-Authenticate', err.given ? 'Bearer error="invalid_token"' : 'Bearer');
      throw new ProblemError(401, err.message);
    }
    if (err instanceof IdentityProviderUnavailable) throw new ProblemError(503, 'the identity provider cannot be reached; try again');
    throw err;
  }
}
