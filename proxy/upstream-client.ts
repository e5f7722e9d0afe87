// The one upstream client of the proxy: what a request to a connector's MCP server takes, for the
// connector relay (http-proxy, relay-exchange.ts) and for the toolsets' members alike. It holds the
// per-owner connection pools with the address guard in their lookup (upstream-agents.ts), the
// refusal of IP literals and of tokens over plain http (upstream-policy.ts), the header allow-list
// (forward-headers.ts: the connector's token, its connect's headers and a managed workload's
// gateway secret are the only credentials that go), the timeouts, and what happens when the upstream refuses the token: the
// verdict (upstream-auth.ts) — 401 → refresh → one retry → refusal reported to the registry, a
// 403 asking for more scope → step-up.
//
// The relay streams the caller's request through http-proxy and takes from here its target, its
// pool, its headers and the verdict; `send` makes a whole request of its own (a toolset's call to
// a member, whose body is always at hand) and settles the token before it answers.
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { AddressPolicy } from '../platform/address-guard';
import type { Logger } from '../platform/logger';
import { ProblemError } from '../contract/problem';
import { upstreamRequestHeaders } from './forward-headers';
import type { ConnectedRoute, Route, RouteSource, StepUpAnswer } from './route';
import { createUpstreamAgents, type UpstreamAgents, type UpstreamPoolOptions } from './upstream-agents';
import { UpstreamAuth, type UpstreamAuthOptions } from './upstream-auth';
import { UpstreamTimeoutError, problemForUpstreamError } from './upstream-errors';
import { TargetPolicy, type TargetRefusal } from './upstream-policy';
import { upstreamTarget, type UpstreamTarget } from './upstream-target';
import { UpstreamDpop } from './upstream-dpop';

export interface UpstreamClientOptions {
  routes: RouteSource;
  policy: AddressPolicy;
  logger: Logger;
  pool?: UpstreamPoolOptions;
  auth?: UpstreamAuthOptions;
  /** Opening a new upstream connection (default 5 s). */
  connectTimeoutMs?: number;
  /** From sending a request to the upstream's status line, a pooled socket's wait included (default 60 s). */
  headersTimeoutMs?: number;
  /** Told of every upstream 401 (the route cache's invalidation, or the registry's refresh). */
  onUpstreamUnauthorized?(connectorId: string): void;
}

/** One request of the proxy's own to an upstream (a toolset's to a member). */
export interface UpstreamCall {
  method: 'GET' | 'POST' | 'DELETE';
  /** Headers as a client names them; only the allow-listed ones go (forward-headers.ts). */
  headers: IncomingHttpHeaders;
  body?: Buffer;
  /** Aborts the request (the caller went away). */
  signal?: AbortSignal;
  /**
   * Path and query on the target's origin in place of the target's own: a legacy SSE server's
   * message endpoint (checked to be on that origin by whoever names it).
   */
  path?: string;
}

export interface UpstreamReply {
  /** The route the answer was got with (a refresh's, after a retry). */
  route: ConnectedRoute;
  answer: IncomingMessage;
}

/** The upstream refused the connector's credentials for good; `route` is the registry's after the report (null: it could not be told). */
export class UpstreamRefused extends Error {
  constructor(readonly route: Route | null, readonly status: 401 | 403) {
    super(`the MCP server refused the connector's credentials (HTTP ${status})`);
  }
}

/** The upstream asked the connector's token for more scope; `answer` is the registry's step-up offer (null: none). */
export class UpstreamScope extends Error {
  constructor(readonly scope: string, readonly answer: StepUpAnswer | null) {
    super(`the MCP server asks for more scope (${scope})`);
  }
}

export class UpstreamClient {
  readonly agents: UpstreamAgents;
  readonly targets: TargetPolicy;
  readonly auth: UpstreamAuth;
  /** DPoP proofs and the upstreams' nonces, shared by every request of the process. */
  readonly dpop = new UpstreamDpop();
  readonly timeouts: { connectMs: number; headersMs: number };

  constructor(private readonly o: UpstreamClientOptions) {
    this.agents = createUpstreamAgents(o.policy, o.pool);
    this.targets = new TargetPolicy(o.policy);
    this.auth = new UpstreamAuth(o.routes, o.logger, o.auth);
    this.timeouts = { connectMs: o.connectTimeoutMs ?? 5000, headersMs: o.headersTimeoutMs ?? 60_000 };
  }

  /** Where a request for `route` goes (the caller's query merged in), or the problem refusing it unsent. */
  target(connectorId: string, route: ConnectedRoute, callerQuery: string): UpstreamTarget | ProblemError {
    const target = upstreamTarget(route.target, callerQuery);
    const refusal = this.targets.refusal(target, route);
    if (!refusal) return target;
    this.o.logger.warn({ connectorId, upstream: target.origin, why: refusal.why }, 'upstream address refused');
    return refusalProblemOf(refusal);
  }

  /** Every upstream 401; `refreshing`: a refresh follows (else the cached route is dropped). */
  unauthorized(connectorId: string, refreshing: boolean): void {
    if (!refreshing) this.o.routes.invalidate?.(connectorId);
    this.o.onUpstreamUnauthorized?.(connectorId);
  }

  /**
   * One request to the connector's MCP server with its token, settled before it answers: a 401 is
   * refreshed and sent once more; a refusal no refresh mends rejects with UpstreamRefused, a 403
   * asking for scope with UpstreamScope, and a request that cannot be made or answered in time with
   * the ProblemError saying why (502, 504). Any other answer resolves, its body unread.
   */
  async send(connectorId: string, route: ConnectedRoute, call: UpstreamCall): Promise<UpstreamReply> {
    let used = route;
    let nonceRetried = false;
    for (let attempt = 1; ; attempt++) {
      const answer = await this.request(connectorId, used, call);
      const status = answer.statusCode ?? 502;
      const challenge = answer.headers['www-authenticate'];
      if (this.dpop.noteAnswer(used, upstreamTarget(used.target, '').origin, status, answer.headers) && !nonceRetried) {
        answer.resume();
        nonceRetried = true;
        attempt--; // the server's nonce, not a refused token: the refresh's one retry is still to come
        continue;
      }
      const verdict = this.auth.verdict(used, status, challenge, attempt === 1);
      if (verdict.kind === 'relay') return { route: used, answer };
      answer.resume(); // read off, so that its socket goes back to the pool
      if (status === 401) this.unauthorized(connectorId, verdict.kind === 'refresh');
      if (verdict.kind === 'refresh') {
        const fresh = await this.auth.refresh(connectorId, verdict.route);
        if (fresh) {
          used = fresh;
          continue;
        }
      }
      if (verdict.kind === 'step-up') throw new UpstreamScope(verdict.scope, await this.auth.stepUp(connectorId, used, challenge));
      const refused = verdict.kind === 'refuse' ? verdict.status : 401;
      throw new UpstreamRefused(await this.auth.refused(connectorId, used, refused, challenge), refused);
    }
  }

  destroy(): void {
    this.agents.destroy();
  }

  private request(connectorId: string, route: ConnectedRoute, call: UpstreamCall): Promise<IncomingMessage> {
    const routed = this.target(connectorId, route, '');
    if (routed instanceof ProblemError) return Promise.reject(routed);
    const target = call.path ? { ...routed, path: call.path } : routed;
    const length = call.body ? call.body.length : call.method === 'POST' ? 0 : undefined;
    const headers = upstreamRequestHeaders(
      call.headers, target.host, length, route.token, route.gatewaySecret, route.headers, this.dpop.proof(route, call.method, target),
    );
    const request = (target.protocol === 'https:' ? https : http).request({
      hostname: target.hostname, port: target.port, path: target.path, method: call.method, headers,
      agent: this.agents.agentFor(target, route), signal: call.signal,
    });
    return new Promise((resolve, reject) => {
      const { connectMs, headersMs } = this.timeouts;
      const headersTimer = setTimeout(() => request.destroy(new UpstreamTimeoutError('headers', headersMs)), headersMs);
      request.once('socket', (socket) => {
        if (!socket.connecting) return;
        const connectTimer = setTimeout(() => request.destroy(new UpstreamTimeoutError('connect', connectMs)), connectMs);
        socket.once('connect', () => clearTimeout(connectTimer));
        request.once('close', () => clearTimeout(connectTimer));
      });
      request.once('error', (err) => {
        clearTimeout(headersTimer);
        reject(call.signal?.aborted ? err : problemForUpstreamError(err));
      });
      request.once('response', (answer) => {
        clearTimeout(headersTimer);
        resolve(answer);
      });
      request.end(call.body);
    });
  }
}

function refusalProblemOf(refusal: TargetRefusal): ProblemError {
  return new ProblemError(502, refusal.token
    ? "The connector's token is not sent over plain http to this MCP server's address."
    : "The MCP server's address is not allowed by the service's address policy.");
}
