// The fetch a toolset's MCP client uses to reach one member: the member's own route (its target
// and its token, from the proxy's route cache; never the caller's credentials), the proxy's
// per-owner connection pools with the address guard in their lookup (upstream-agents.ts), the
// same refusal of IP literals and of tokens over plain http (upstream-policy.ts), and the same
// refresh of a refused token (upstream-auth.ts). The URL the SDK passes is ignored: the route
// decides where each request goes, so a refreshed token or a moved workload is used at once.
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { GATEWAY_SECRET_HEADER } from '../../contract/gateway-secret';
import type { ConnectedRoute, Route, RouteSource } from '../route';
import type { UpstreamAgents } from '../upstream-agents';
import type { UpstreamAuth } from '../upstream-auth';
import type { TargetPolicy } from '../upstream-policy';
import { upstreamTarget } from '../upstream-target';

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface MemberUpstream {
  routes: RouteSource;
  agents: UpstreamAgents;
  targets: TargetPolicy;
  auth: UpstreamAuth;
}

/** The member is not connected (or is gone): its state decides what the caller is told. */
export class MemberUnavailable extends Error {
  constructor(readonly connectorId: string, readonly route: Exclude<Route, ConnectedRoute>) {
    super(`member ${connectorId} is not connected`);
  }
}

/** The MemberUnavailable behind an error the SDK may have wrapped it in, if any. */
export function unavailableIn(err: unknown): MemberUnavailable | null {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof MemberUnavailable) return e;
  }
  return null;
}

/** The member's address is refused by the address policy or the token rule. */
export class MemberRefused extends Error {}

// Headers the SDK sets that go upstream; anything else (an Authorization above all) does not.
const PASSED = new Set(['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'mcp-method', 'mcp-name', 'last-event-id']);

export function memberFetch(connectorId: string, upstream: MemberUpstream): FetchLike {
  return async (_url, init = {}) => {
    const route = await upstream.routes.get(connectorId);
    if (route.kind !== 'connected') throw new MemberUnavailable(connectorId, route);
    const response = await send(route, init, upstream);
    if (response.status !== 401) return response;
    await response.body?.cancel();
    const fresh = upstream.auth.canRefresh(route) ? await upstream.auth.refresh(connectorId, route) : null;
    if (fresh) {
      const retried = await send(fresh, init, upstream);
      if (retried.status !== 401) return retried;
      void upstream.auth.refused(connectorId, fresh, 401, retried.headers.get('www-authenticate') ?? undefined);
      return retried;
    }
    // No refresh mends it: the registry disconnects the member, keeping the challenge.
    const now = await upstream.auth.refused(connectorId, route, 401, response.headers.get('www-authenticate') ?? undefined);
    if (now && now.kind !== 'connected') throw new MemberUnavailable(connectorId, now);
    return new Response(null, { status: 401 });
  };
}

function send(route: ConnectedRoute, init: RequestInit, upstream: MemberUpstream): Promise<Response> {
  const target = upstreamTarget(route.target, '');
  const refused = upstream.targets.refusal(target, route);
  if (refused) return Promise.reject(new MemberRefused(`the member's address is refused: ${refused.why}`));
  const body = typeof init.body === 'string' ? Buffer.from(init.body) : undefined;
  const headers: Record<string, string> = { host: target.host };
  for (const [name, value] of new Headers(init.headers)) if (PASSED.has(name)) headers[name] = value;
  if (body) headers['content-length'] = String(body.length);
  if (route.token) headers.authorization = `Bearer ${route.token}`;
  if (route.gatewaySecret) headers[GATEWAY_SECRET_HEADER] = route.gatewaySecret;
  const request = (target.protocol === 'https:' ? https : http).request({
    hostname: target.hostname, port: target.port, path: target.path, method: init.method ?? 'GET', headers,
    agent: upstream.agents.agentFor(target, route), signal: init.signal ?? undefined,
  });
  return new Promise((resolve, reject) => {
    request.once('error', reject);
    request.once('response', (res) => {
      const out = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        for (const one of [value ?? []].flat()) out.append(name, one);
      }
      const empty = res.statusCode === 204 || res.statusCode === 304 || init.method === 'HEAD';
      if (empty) res.resume();
      const stream = empty ? null : (Readable.toWeb(res) as unknown as WebReadableStream<Uint8Array> as unknown as ReadableStream<Uint8Array>);
      resolve(new Response(stream, { status: res.statusCode ?? 502, headers: out }));
    });
    request.end(body);
  });
}
