// One HTTP server that dispatches by path: the MCP path goes to the proxy, everything else to
// the REST API. Used by the embedded stack (API and proxy on one port, no extra hop) and by the
// production entry points (each with only its own half).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { Tracer } from '@opentelemetry/api';
import { MCP_ROUTE, METRICS_PATH, statusLabel, type Metrics } from '../platform/metrics';
import { BoundCounter } from '../platform/bound-series';
import { PROBLEM_CONTENT_TYPE, problemBody } from '../contract/problem';
import { capConnections, serverOptions, type ServerLimits } from '../platform/server-limits';
import { originRefusal, type OriginPolicy } from '../callers/request-origin';
import { connectorIdFromPath } from '../proxy/mcp-path';
import type { McpProxy } from '../proxy/mcp-proxy';
import { toolsetIdFromPath } from '../proxy/toolset/toolset-path';
import type { ToolsetEndpoint } from '../proxy/toolset/toolset-endpoint';
import { traced } from './http-trace';

export interface Handlers {
  api?: Koa;
  proxy?: McpProxy;
  /** The toolsets' MCP path (served beside the connectors' by the proxy role). */
  toolsets?: ToolsetEndpoint;
  /** Applied to every request, whichever half serves it. */
  origin: OriginPolicy;
  /** Timeouts and the connection cap, so that slow or numerous clients cannot hold the process. */
  limits: ServerLimits;
  /** Where HTTP requests are counted (by route template and status). */
  metrics?: Metrics;
  /** GET /metrics on this server; absent when CONNECTOR__METRICS_PORT serves it apart. */
  metricsEndpoint?: http.RequestListener;
  /** A server span per REST request (the proxy makes its own); absent: tracing is off. */
  tracer?: Tracer | null;
}

export function createHttpServer(handlers: Handlers): http.Server {
  if ((handlers.metrics || handlers.tracer) && handlers.api) handlers.api.middleware.unshift(keepRouteTemplate);
  const api = handlers.api?.callback();
  const tracer = handlers.tracer;
  const observed = handlers.metrics && observer(handlers.metrics);
  const server = http.createServer(serverOptions(handlers.limits), (req, res) => {
    if (observed) {
      (req as WithRoute)[STARTED] = performance.now();
      res.on('close', observed);
    }
    const refused = originRefusal(req.headers, handlers.origin);
    if (refused) {
      res.writeHead(403, { 'content-type': PROBLEM_CONTENT_TYPE, 'cache-control': 'no-store' });
      res.end(JSON.stringify(problemBody(403, refused)));
      return;
    }
    const id = connectorIdFromPath(req.url ?? '/');
    if (id !== null && handlers.proxy) {
      setRoute(req, MCP_ROUTE);
      return handlers.proxy.handle(req, res, id);
    }
    const toolsetId = handlers.toolsets ? toolsetIdFromPath(req.url ?? '/') : null;
    if (toolsetId !== null) {
      setRoute(req, TOOLSET_MCP_ROUTE);
      return handlers.toolsets!.handle(req, res, toolsetId);
    }
    if (handlers.metricsEndpoint && pathOf(req.url) === METRICS_PATH) {
      setRoute(req, METRICS_PATH);
      return handlers.metricsEndpoint(req, res);
    }
    if (api && tracer) return traced(tracer, req, res, () => (req as WithRoute)[ROUTE], () => void api(req, res));
    if (api) return void api(req, res);
    res.writeHead(404, { 'content-type': PROBLEM_CONTENT_TYPE });
    res.end(JSON.stringify(problemBody(404, 'this process serves only the MCP path')));
  });
  server.on('clientError', answerClientError);
  capConnections(server, handlers.limits);
  return server;
}

// The route template rides on the request (set by the koa router's match, or here for the
// paths served beside koa), so that the label never holds a raw path or an id.
const ROUTE = Symbol('route-template');
const STARTED = Symbol('started');
type WithRoute = http.IncomingMessage & { [ROUTE]?: string; [STARTED]?: number };
const setRoute = (req: http.IncomingMessage, route: string) => { (req as WithRoute)[ROUTE] = route; };
const TOOLSET_MCP_ROUTE = '/api/v1/toolsets/:id/mcp';
const pathOf = (url = '/') => url.split('?', 1)[0];
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Outermost koa middleware: the router's matched template, once the routers have run. */
async function keepRouteTemplate(ctx: Koa.Context, next: Koa.Next): Promise<void> {
  try {
    await next();
  } finally {
    const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
    if (typeof matched === 'string') setRoute(ctx.req, matched);
  }
}

// One counter bound per label set (platform/bound-series.ts) for each registry.
const boundRequests = new WeakMap<Metrics, BoundCounter<'method' | 'route' | 'status'>>();

/**
 * The 'close' listener that counts a request: one function for every response of a server (no
 * closure per request); what it needs rides on the request.
 */
function observer(metrics: Metrics): (this: http.ServerResponse) => void {
  let requests = boundRequests.get(metrics);
  if (!requests) boundRequests.set(metrics, (requests = new BoundCounter(metrics.httpRequests)));
  const bound = requests;
  return function observed(this: http.ServerResponse) {
    const req = this.req as WithRoute;
    const method = METHODS.has(req.method ?? '') ? req.method! : 'other';
    const route = req[ROUTE] ?? 'unmatched';
    const status = statusLabel(this);
    const cell = bound.cell(`${method}\u0000${route}\u0000${status}`, () => ({ method, route, status }));
    cell.n++;
    metrics.httpDuration.observe(cell.labels, (performance.now() - req[STARTED]!) / 1000);
  };
}

const CLIENT_ERRORS: Record<string, { status: number; reason: string; detail: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', detail: 'the request headers are too large' },
  // Headers or body not received within the headers or request timeout (a slow client).
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', detail: 'the request was not received in time' },
};
const MALFORMED = { status: 400, reason: 'Bad Request', detail: 'the request is malformed' };

/**
 * Requests Node's parser refuses (bad bytes, huge headers, too slow) still get a problem body.
 * So does one refused in its body (a malformed chunk, say), whose headers were fine and whose
 * handler already started: unless that handler's answer has begun, the 400 is written here, as
 * Node's own default does, and the connection closes; the handler's answer then goes nowhere.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void {
  const inFlight = (socket as { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const { status, reason, detail } = CLIENT_ERRORS[err.code ?? ''] ?? MALFORMED;
  const body = JSON.stringify(problemBody(status, detail));
  socket.end(`HTTP/1.1 ${status} ${reason}\r\n` +
    `content-type: ${PROBLEM_CONTENT_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

export async function listen(server: http.Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
