// Keep-alive connection pools to the MCP servers. Every new connection resolves its host through
// the address guard; IP literals skip DNS in Node, so mcp-proxy.ts checks those itself.
import http from 'node:http';
import https from 'node:https';
import { guardedLookup, type AddressPolicy } from '../core/address-guard';

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
    lookup: guardedLookup(policy),
  };
  const agents = { http: new http.Agent(common), https: new https.Agent(common) };
  return {
    ...agents,
    destroy() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
