// Keep-alive connection pools to the MCP servers, one set per owner. Every new connection
// resolves its host through the address guard; IP literals skip DNS in Node, so mcp-proxy.ts
// checks those itself.
//
// Why per owner: a kept-alive socket carries the next request of whoever takes it from the pool.
// Should anything ever get one request's bytes past its end (issue 22: a smuggled request inside a
// DELETE's body swallowed the next request on the socket, another owner's connector token
// included), the damage stays within the owner who sent them. The owner is the connector's
// (`created_by`), not the caller's: an admin calling someone's connector uses that owner's pool,
// and its requests carry that connector's token, never the admin's own credential.
//
// Bounded as before per pool (sockets and idle sockets per origin, idle timeout) and in the number
// of pools: past `maxPools` the owner unused the longest loses its pool. Its idle sockets close at
// once; requests under way finish on theirs, which then close instead of waiting in a pool.
import http from 'node:http';
import https from 'node:https';
import { guardedLookup, type AddressPolicy } from '../platform/address-guard';
import { tokenTransportRefusal } from '../platform/token-transport';
import type { ConnectedRoute } from './route';
import { carriesCredential } from './upstream-policy';
import type { UpstreamTarget } from './upstream-target';

export interface UpstreamPoolOptions {
  /**
   * Per owner and upstream origin. An open SSE stream (a GET stream, or a POST answered with SSE)
   * holds its socket for as long as it lasts, so this bounds concurrent streams per MCP server too.
   */
  maxSockets?: number;
  /**
   * Requests and streams one connector may hold open at once (default a quarter of maxSockets),
   * so that one connector's streams cannot take every socket to an origin that others share.
   */
  maxSocketsPerConnector?: number;
  /** Idle sockets kept per owner and origin. */
  maxFreeSockets?: number;
  /** Idle sockets are closed after this; Node also honours a shorter Keep-Alive hint. */
  idleTimeoutMs?: number;
  /** Owners whose pools are kept at once (default 1000); the one unused the longest goes first. */
  maxPools?: number;
}

type Kind = 'http' | 'https' | 'httpWithToken' | 'managed';

/** One owner's pools, made as they are first needed. */
export type OwnerPool = Partial<Record<Kind, http.Agent>>;

export interface UpstreamAgents {
  /** The pool for one request: the route owner's, of the kind its target and token call for. */
  agentFor(target: UpstreamTarget, route: ConnectedRoute): http.Agent;
  /** The pools kept for an owner (null: connectors made with caller authentication off). */
  poolOf(owner: string | null): OwnerPool | undefined;
  readonly poolCount: number;
  destroy(): void;
}

/** The key of connectors without an owner; no subject can be it. */
const NO_OWNER = '\u0000';

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
  const tokenLookup = guardedLookup(policy, (address) => tokenTransportRefusal('http:', address, policy));
  const make: Record<Kind, () => http.Agent> = {
    http: () => new http.Agent(guarded),
    https: () => new https.Agent(guarded),
    // Plain http carrying the connector's token: refuses, besides, where a token may not travel.
    httpWithToken: () => new http.Agent({ ...common, lookup: tokenLookup }),
    // The service's own stdio workloads (managed routes) and nothing else: without the address
    // policy, because their address comes from the service, not from whoever named an MCP server.
    managed: () => new http.Agent(common),
  };
  const maxPools = options.maxPools ?? 1000;
  const pools = new Map<string, OwnerPool>();
  let newest: string | undefined;

  function poolFor(owner: string): OwnerPool {
    let pool = pools.get(owner);
    if (pool === undefined) {
      pool = {};
      pools.set(owner, pool);
      if (pools.size > maxPools) retire(pools.keys().next().value!);
    } else if (owner !== newest) {
      // Map order is the LRU order; the busiest owner is usually the newest already.
      pools.delete(owner);
      pools.set(owner, pool);
    }
    newest = owner;
    return pool;
  }

  function retire(owner: string): void {
    const pool = pools.get(owner);
    pools.delete(owner);
    for (const agent of Object.values(pool ?? {})) letGo(agent);
  }

  return {
    agentFor(target, route) {
      const pool = poolFor(route.owner ?? NO_OWNER);
      const kind = kindOf(target, route);
      return (pool[kind] ??= make[kind]());
    },
    poolOf: (owner) => pools.get(owner ?? NO_OWNER),
    get poolCount() {
      return pools.size;
    },
    destroy() {
      for (const pool of pools.values()) for (const agent of Object.values(pool)) agent.destroy();
      pools.clear();
    },
  };
}

/**
 * The pool kind for one request: a managed route's own, which skips the address policy (its
 * target is the service's workload); plain http with a token through the one that also applies
 * the token rule to every address a name resolves to.
 */
function kindOf(target: UpstreamTarget, route: ConnectedRoute): Kind {
  if (target.protocol === 'https:') return 'https';
  if (route.managed) return 'managed';
  return carriesCredential(route) ? 'httpWithToken' : 'http';
}

/** An agent no longer handed out: idle sockets close now, busy ones when their request ends. */
function letGo(agent: http.Agent): void {
  // Node's 'free' handler reads this (untyped) field, and destroys each socket it gets back.
  (agent as http.Agent & { keepAlive: boolean }).keepAlive = false;
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}
