// The gateway as a library: serve one stdio MCP server as Streamable HTTP, in this process.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, type Logger } from '../platform/logger';
import { capConnections, DEFAULT_GATEWAY_MAX_SESSIONS, serverOptions, type ServerLimits } from '../platform/server-limits';
import { gatewayAuth } from './gateway-auth';
import { createHttpHandler, type GatewayHealth } from './http-handler';
import { LazyModernEndpoint } from './lazy-modern';
import { Router, type SessionSummary } from './router';
import type { StdioExit, StdioSource } from './stdio-source';
import { Upstream } from './upstream';

export interface GatewayOptions {
  source: StdioSource;
  /** Default 127.0.0.1 (the entry point defaults to 0.0.0.0). */
  host?: string;
  /** Default 8080; 0 picks a free port. */
  port?: number;
  /** How long a session may sit with nothing open and nothing pending; default 30 minutes. */
  idleTimeoutMs?: number;
  /** How long after its initialize a session may go without a request or a GET stream; default 60 s. */
  firstRequestTimeoutMs?: number;
  /** Sessions open at once; an initialize beyond gets 503. Default 256. */
  maxSessions?: number;
  /** Timeouts and connection cap of the HTTP server; default GATEWAY_SERVER_LIMITS. */
  server?: Partial<ServerLimits>;
  logger?: Logger;
  /** How long the stdio server may leave server/discover unanswered before it is initialized; default 10 s. */
  discoverTimeoutMs?: number;
  /**
   * MCP requests must carry it in the x-connector-gateway-secret header (401 otherwise); the
   * service always sets one. Without it the gateway serves anyone who can reach it.
   */
  secret?: string;
}

export interface Gateway {
  /** The MCP endpoint, e.g. http://127.0.0.1:8080/mcp. */
  url: string;
  host: string;
  port: number;
  /** Resolves once the stdio server has answered discover or initialize; rejects if it is gone first. */
  ready: Promise<void>;
  /** Resolves when the stdio side is gone, for whatever reason (close() included). */
  exited: Promise<StdioExit>;
  health(): GatewayHealth;
  sessions(): SessionSummary[];
  /** Ends every session, stops the stdio server (its whole process tree) and the HTTP server. */
  close(): Promise<void>;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
export const DEFAULT_FIRST_REQUEST_TIMEOUT_MS = 60 * 1000;
export { DEFAULT_GATEWAY_MAX_SESSIONS };
/**
 * Its only client is the proxy, which sends headers at once; the request timeout is longer than
 * the service's own (60 s by default), so that a slow caller's body is cut by the proxy first.
 */
export const GATEWAY_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 20_000, requestTimeoutMs: 300_000, keepAliveTimeoutMs: 5_000, maxConnections: 1_024,
};
// setTimeout fires at once for anything longer.
const MAX_TIMER_MS = 2 ** 31 - 1;

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { source, host = '127.0.0.1', port = 8080 } = options;
  const idleMs = Math.min(options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, MAX_TIMER_MS);
  const firstRequestMs = Math.min(options.firstRequestTimeoutMs ?? DEFAULT_FIRST_REQUEST_TIMEOUT_MS, MAX_TIMER_MS);
  const maxSessions = options.maxSessions ?? DEFAULT_GATEWAY_MAX_SESSIONS;
  const logger = options.logger ?? createLogger('gateway');
  const upstream = new Upstream(source, logger.child({ stdio: source.description }), options.discoverTimeoutMs);
  const modern = new LazyModernEndpoint(upstream, logger);
  const router = new Router(upstream, logger, { idleMs, firstRequestMs, maxSessions }, modern.news);
  let closed = false;
  const health = (): GatewayHealth => {
    const sessions = router.sessions.size;
    if (closed) return { ok: false, state: 'closed', reason: 'gateway closed', sessions };
    if (upstream.state === 'exited') return { ok: false, state: 'exited', reason: upstream.exit?.reason, sessions };
    return { ok: upstream.state === 'ready', state: upstream.state, sessions };
  };
  const limits = { ...GATEWAY_SERVER_LIMITS, ...options.server };
  const server = createServer(serverOptions(limits), createHttpHandler({ router, modern, health, logger, authorized: gatewayAuth(options.secret) }));
  capConnections(server, limits);
  await listen(server, port, host);
  const bound = (server.address() as AddressInfo).port;
  void upstream.start();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      closed = true;
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([router.closeAll(), modern.close()]);
      await upstream.close();
      server.closeAllConnections();
      await serverClosed;
      logger.info('gateway closed');
    })();
    return closing;
  };
  const ready = upstream.ready.then(() => undefined);
  ready.catch(() => undefined);
  return {
    url: `http://${urlHost(host)}:${bound}/mcp`,
    host,
    port: bound,
    ready,
    exited: upstream.exited,
    health,
    sessions: () => router.summaries(),
    close,
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** A host to reach the server at: wildcard binds are reached on loopback. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
