// Limits of an HTTP server against slow and numerous clients, shared by the service's server and
// the stdio gateway's. Node's requestTimeout bounds receiving a request (headers and body), never
// sending the response, so SSE streams and streamed answers run as long as they need; the socket
// inactivity timeout (server.timeout) stays off because it would cut quiet streams.
import type { Server, ServerOptions } from 'node:http';

export interface ServerLimits {
  /** From a connection's (or a request's) first byte to the end of its headers. */
  headersTimeoutMs: number;
  /** From a request's first byte to the end of its body; at least headersTimeoutMs. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept between requests. */
  keepAliveTimeoutMs: number;
  /** Open connections beyond this are closed as soon as they are accepted. */
  maxConnections: number;
}

/** Open MCP sessions one stdio gateway serves at once (CONNECTOR__GATEWAY_MAX_SESSIONS). */
export const DEFAULT_GATEWAY_MAX_SESSIONS = 256;

/** Options for http.createServer; apply capConnections to the server it returns. */
export function serverOptions(limits: ServerLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node looks for expired requests every 30 s by default, which would let a 20 s headers
    // timeout run to 50 s; a quarter of the timeout keeps the overshoot at a quarter.
    connectionsCheckingInterval: Math.min(5_000, Math.max(25, Math.floor(limits.headersTimeoutMs / 4))),
  };
}

export function capConnections(server: Server, limits: ServerLimits): void {
  server.maxConnections = limits.maxConnections;
}
