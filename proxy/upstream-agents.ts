// Keep-alive connection pools to the MCP servers. Every new connection resolves its host through
// the address guard; IP literals skip DNS in Node, so mcp-proxy.ts checks those itself.
import http from 'node:http';
import https from 'node:https';
import { guardedLookup, type AddressPolicy } from '../core/address-guard';
import { tokenTransportRefusal } from '../core/token-transport';
import type { ConnectedRoute } from './route';
import type { UpstreamTarget } from './upstream-target';

export interface UpstreamPoolOptions {
  /**
   * Per upstream origin. An open SSE stream (a GET stream, or a POST answered with SSE) holds
   * its socket for as long as it lasts, so this bounds concurrent streams per MCP server too.
   */
  maxSockets?: number;
  /**
   * Requests and streams one connector may hold open at once (default a quarter of maxSockets),
   * so that one connector's streams cannot take every socket to an origin that others share.
   */
  maxSocketsPerConnector?: number;
  /** Idle sockets kept per origin. */
  maxFreeSockets?: number;
  /** Idle sockets are closed after this; Node also honours a shorter Keep-Alive hint. */
  idleTimeoutMs?: number;
}

export interface UpstreamAgents {
  http: http.Agent;
  https: https.Agent;
  /** Plain http carrying the connector's token: refuses, besides, where a token may not travel. */
  httpWithToken: http.Agent;
  /**
   * The service's own stdio workloads (managed routes) and nothing else: without the address
   * policy, because their address comes from the service, not from whoever named an MCP server.
   */
  managed: http.Agent;
  destroy(): void;
}

export function createUpstreamAgents(policy: AddressPolicy, options: UpstreamPoolOptions = {}): UpstreamAgents {
  const common = {
    keepAlive: true,
    maxSockets: options.maxSockets ?? 512,
    maxFreeSockets: options.maxFreeSockets ?? 64,
    timeout: options.idleTimeoutMs ?? 15_000,
    // LIFO reuses the warmest socket and lets the rest expire when traffic drops.
    scheduling: 'lifo' as const,
    noDelay: true,
  };
  const guarded = { ...common, lookup: guardedLookup(policy) };
  const agents = {
    http: new http.Agent(guarded),
    https: new https.Agent(guarded),
    httpWithToken: new http.Agent({ ...common, lookup: guardedLookup(policy, (address) => tokenTransportRefusal('http:', address, policy)) }),
    managed: new http.Agent(common),
  };
  return {
    ...agents,
    destroy() {
      for (const agent of Object.values(agents)) agent.destroy();
    },
  };
}

/**
 * The pool for one request: a managed route's own pool, which skips the address policy (its
 * target is the service's workload); plain http with a token through the pool that also
 * applies the token rule to every address a name resolves to.
 */
export function agentFor(agents: UpstreamAgents, target: UpstreamTarget, route: ConnectedRoute): http.Agent {
  if (target.protocol === 'https:') return agents.https;
  if (route.managed) return agents.managed;
  return route.token === undefined ? agents.http : agents.httpWithToken;
}
