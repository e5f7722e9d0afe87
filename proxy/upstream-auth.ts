// What the proxy does about the connector's token when the upstream refuses it, shared by every
// request of the process:
//
// - refresh: a 401 to a request that carried the connector's token asks the registry to refresh
//   that token. Reports about the same token share one call (the workflow coalesces as well,
//   across proxy processes), and its outcome is remembered for `memoryMs` (default 10 s):
//   requests that were already in flight with the old token when the refresh finished get the
//   new route without another round trip, and a connector that cannot refresh (a static token,
//   no refresh token) is not asked again for every 401 it causes. The memory is short because
//   a remembered token may itself be replaced later, and retrying with a replaced token could
//   be taken for a refused fresh one. A refresh that takes longer than
//   `refreshTimeoutMs` counts as failed for the requests waiting on it.
// - refused: a 401 that no refresh mends (no token at all, a token that cannot be refreshed, a
//   fresh token refused again) is reported to the registry with the upstream's challenge, which
//   asks the user to authorize anew (auth_required, with a fresh authorization URL). Reports
//   about the same token share one call and its answer, like refreshes. The challenge itself
//   never reaches the MCP client: it names an authorization server only the service may talk to.
// - step-up: a 403 with a Bearer challenge error="insufficient_scope" and a scope is reported
//   to the registry, which offers a step-up authorization URL while the connector stays
//   connected. Reports about the same token and scope set share one call and its answer for
//   `memoryMs`, so that a client calling the tool in a loop does not turn into a stream of
//   updates (the workflow also reuses the URL on offer while it covers the scopes).
import { findBearerChallenge } from '../contract/www-authenticate';
import type { Logger } from '../platform/logger';
import type { ConnectedRoute, Route, RouteSource, StepUpAnswer } from './route';
import { errorCode } from './upstream-errors';

export interface UpstreamAuthOptions {
  refreshTimeoutMs?: number;
  memoryMs?: number;
  /** Bound on the connectors (times tokens) remembered by each memory. */
  maxEntries?: number;
}

/** A connected route with a token the registry can be asked about. */
export type RefreshableRoute = ConnectedRoute & { token: string; sealedToken: string };

/** What to do with an upstream's answer before anything of it reaches the caller. */
export type Verdict =
  | { kind: 'relay' }
  /** A 401 a refresh may cure: the request goes again, once, with the new token. */
  | { kind: 'refresh'; route: RefreshableRoute }
  /** A refusal no refresh mends: reported to the registry, answered with what it says. */
  | { kind: 'refuse'; status: 401 | 403 }
  /** A 403 asking the token for more scope: the registry offers a step-up authorization. */
  | { kind: 'step-up'; scope: string };

const RELAY: Verdict = Object.freeze({ kind: 'relay' });

interface Outcome {
  route: Promise<Route | StepUpAnswer | null>;
  settledAt?: number;
}

export class UpstreamAuth {
  private readonly outcomes = new Map<string, Outcome>();
  private readonly timeoutMs: number;
  private readonly memoryMs: number;
  private readonly maxEntries: number;

  constructor(private readonly routes: RouteSource, private readonly logger: Logger, options: UpstreamAuthOptions = {}) {
    this.timeoutMs = options.refreshTimeoutMs ?? 15_000;
    this.memoryMs = options.memoryMs ?? 10_000;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  /**
   * The verdict on an upstream status for a request that carried `route` (the relay and the
   * toolsets' members alike); `mayRetry`: a second attempt is still possible (the first attempt,
   * with its body at hand).
   */
  verdict(route: ConnectedRoute, status: number, wwwAuthenticate: string | undefined, mayRetry: boolean): Verdict {
    if (status === 401) return mayRetry && this.canRefresh(route) ? { kind: 'refresh', route } : { kind: 'refuse', status: 401 };
    if (status !== 403) return RELAY;
    const scope = route.token && this.canStepUp(route) ? this.stepUpScopes(wwwAuthenticate) : null;
    if (scope) return { kind: 'step-up', scope };
    // No token, and the server wants one for this call: as good as a 401.
    return !route.token && this.asksForScope(wwwAuthenticate) ? { kind: 'refuse', status: 403 } : RELAY;
  }

  /** Whether a 401 to this route can be answered by a refresh (and so a retry is worth preparing). */
  canRefresh(route: ConnectedRoute): route is RefreshableRoute {
    return this.routes.refresh !== undefined && route.token !== undefined && route.sealedToken !== undefined;
  }

  /** The route to retry with, or null when there is no new token to try. Never rejects. */
  refresh(connectorId: string, used: RefreshableRoute): Promise<RefreshableRoute | null> {
    return this.shared(`refresh\n${connectorId}\n${used.sealedToken}`, () => this.askRefresh(connectorId, used)) as Promise<RefreshableRoute | null>;
  }

  /**
   * The upstream refused `used` (or its lack of a token) for good: the registry's route after
   * the report, or null when the registry could not be told. Never rejects.
   */
  refused(connectorId: string, used: ConnectedRoute, status: 401 | 403, wwwAuthenticate: string | undefined): Promise<Route | null> {
    this.routes.invalidate?.(connectorId);
    if (!this.routes.refused) return Promise.resolve(null);
    const challenge = findBearerChallenge(wwwAuthenticate ?? null);
    const report = {
      sealedToken: used.sealedToken ?? null, status,
      challenge: challenge && { resourceMetadata: challenge.resourceMetadata, scope: challenge.scope },
    };
    return this.shared(`refused\n${connectorId}\n${report.sealedToken ?? ''}`, () => {
      this.logger.warn({ connectorId, status }, 'the MCP server refused the connector; reporting it to the registry');
      return this.withTimeout(this.routes.refused!(connectorId, report), connectorId, 'refusal report');
    });
  }

  /** Whether a challenge asks for more scope (RFC 6750 insufficient_scope). */
  asksForScope(wwwAuthenticate: string | undefined): boolean {
    return findBearerChallenge(wwwAuthenticate ?? null)?.error === 'insufficient_scope';
  }

  /** The scopes a 403's challenge asks for (RFC 6750 insufficient_scope), normalised; null when it asks for none. */
  stepUpScopes(wwwAuthenticate: string | undefined): string | null {
    const challenge = findBearerChallenge(wwwAuthenticate ?? null);
    if (challenge?.error !== 'insufficient_scope' || !challenge.scope) return null;
    return [...new Set(challenge.scope.split(' ').filter(Boolean))].sort().join(' ') || null;
  }

  /** Whether a 403 asking this route's token for scope can be reported (else it is relayed as it came). */
  canStepUp(route: ConnectedRoute): boolean {
    return this.routes.stepUp !== undefined && route.sealedToken !== undefined;
  }

  /**
   * A 403 insufficient_scope to a request that carried the connector's token: the step-up
   * authorization URL the registry offers, or null when it could not be asked. Never rejects.
   */
  stepUp(connectorId: string, used: ConnectedRoute, wwwAuthenticate: string | undefined): Promise<StepUpAnswer | null> {
    const scope = this.stepUpScopes(wwwAuthenticate);
    if (!this.routes.stepUp || !scope || !used.sealedToken) return Promise.resolve(null);
    const challenge = findBearerChallenge(wwwAuthenticate ?? null);
    const report = { sealedToken: used.sealedToken, scope, challenge: challenge && { resourceMetadata: challenge.resourceMetadata, scope: challenge.scope } };
    return this.shared(`step-up\n${connectorId}\n${used.sealedToken}\n${scope}`, () => {
      this.logger.info({ connectorId, scope }, 'the MCP server asked for more scope; asking the registry for a step-up authorization');
      return this.withTimeout(this.routes.stepUp!(connectorId, report), connectorId, 'step-up report').then((answer) => {
        if (answer?.stale) this.routes.invalidate?.(connectorId); // the next request asks for the new token
        return answer;
      });
    }) as Promise<StepUpAnswer | null>;
  }

  /** One call per key while it runs, and its answer for `memoryMs` after. */
  private shared<T extends Route | StepUpAnswer>(key: string, ask: () => Promise<T | null>): Promise<T | null> {
    const known = this.outcomes.get(key);
    if (known && (known.settledAt === undefined || performance.now() - known.settledAt < this.memoryMs)) return known.route as Promise<T | null>;
    const asked = ask();
    const outcome: Outcome = { route: asked };
    void asked.then(() => (outcome.settledAt = performance.now()));
    this.remember(key, outcome);
    return asked;
  }

  private async askRefresh(connectorId: string, used: RefreshableRoute): Promise<RefreshableRoute | null> {
    const route = await this.withTimeout(this.routes.refresh!(connectorId, used.sealedToken), connectorId, 'token refresh');
    // Only a different token is worth a retry: the same one would be refused again.
    return route?.kind === 'connected' && this.canRefresh(route) && route.token !== used.token ? route : null;
  }

  /** The registry's answer, or null when it failed or took longer than `refreshTimeoutMs`. */
  private async withTimeout<T>(call: Promise<T>, connectorId: string, what: string): Promise<T | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), this.timeoutMs)));
    try {
      const route = await Promise.race([call, timeout]);
      if (route === null) this.logger.warn({ connectorId, ms: this.timeoutMs }, `${what} took too long`);
      return route;
    } catch (err) {
      this.logFailure(err, connectorId, `${what} refused or failed`);
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  private remember(key: string, outcome: Outcome): void {
    this.outcomes.delete(key);
    this.outcomes.set(key, outcome);
    if (this.outcomes.size <= this.maxEntries) return;
    for (const [oldKey, old] of this.outcomes) {
      if (this.outcomes.size <= this.maxEntries) return;
      if (old.settledAt !== undefined) this.outcomes.delete(oldKey); // in-flight ones stay shared
    }
  }

  private logFailure(err: unknown, connectorId: string, msg: string): void {
    this.logger.warn({ connectorId, code: errorCode(err), message: (err as Error)?.message }, msg);
  }
}
