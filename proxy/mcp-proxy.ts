// The MCP Streamable HTTP proxy: relays POST, GET (SSE) and DELETE at
// /api/v1/connectors/{id}/mcp to the connector's MCP server, with the connector's token in place
// of whatever credentials the caller sent. Responses are piped as they arrive, never buffered,
// so SSE events reach the client as the server writes them.
//
// Built on http-proxy's request pass, extended through its events. Two things it does not do
// for us: it notices client aborts only through the request's 'aborted' event, which current
// Node no longer fires once the request body has been read (so an SSE client that goes away
// would leave the upstream stream open); and its timeouts are idle timeouts, which would cut
// quiet SSE streams. Both are handled here, per exchange (relay-exchange.ts).
//
// One request in, one request out (issue 22): framing the caller and the proxy could read
// differently is refused before anything else (request-framing.ts), the caller's framing headers
// are never forwarded, the upstream body is framed by the proxy and held to it (upstream-body.ts),
// and kept-alive upstream sockets are never shared between owners (upstream-agents.ts).
//
// The connector's token is kept working here too: an upstream 401 to a request carrying it is
// answered by a refresh through the route source and one retry; a 401 no refresh cures, and a 403
// asking for more scope, are reported to it, and the request is answered with the authorization
// URL the registry then offers (upstream-auth.ts, relay-exchange.ts, url-elicitation.ts).
//
// A connector whose server speaks the HTTP+SSE transport of 2024-11-05 is not relayed but bridged
// (legacy-sse/): the caller still speaks Streamable HTTP.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { context, type Tracer } from '@opentelemetry/api';
import httpProxy from 'http-proxy';
import type { AddressPolicy } from '../platform/address-guard';
import type { Logger } from '../platform/logger';
import { ProblemError } from '../contract/problem';
import { OPEN_CALLER, type Caller } from '../callers/caller';
import { GateRefusal, type CallerGate } from './caller-gate';
import { queryOf } from './mcp-path';
import { notConnectedProblemOf, rpcRequestOf, sendMcpProblem, sendProblem, unreadRpcRequest, type RpcRequest } from './problem-response';
import { RelayExchange } from './relay-exchange';
import type { ConnectedRoute, Route, RouteSource } from './route';
import { checkRpcHeaders, readBody, rpcHeadersOf } from './rpc-headers';
import { mcpSeriesOf, type McpMetrics } from './mcp-metrics';
import { McpTrace } from './mcp-trace';
import { CallObserver } from './call-observer';
import type { CallSink } from './call-audit-queue';
import { OpenExchanges } from './open-exchanges';
import type { UpstreamPoolOptions } from './upstream-agents';
import { FramingRefusal, requestBodyLength, type BodyLength } from './request-framing';
import { framedBody } from './upstream-body';
import type { UpstreamAuthOptions } from './upstream-auth';
import { UpstreamClient } from './upstream-client';
import { upstreamRequestHeaders } from './forward-headers';
import type { UpstreamTarget } from './upstream-target';
import { ElicitingSessions } from './url-elicitation';
import type { GatewayTasks } from './tasks/gateway-tasks';
import { SseBridge, type SseBridgeOptions } from './legacy-sse/sse-bridge';

export interface McpProxyOptions {
  routes: RouteSource;
  /** Who may use which connector; absent: everyone, as with caller authentication off. */
  callers?: CallerGate;
  policy: AddressPolicy;
  logger: Logger;
  /** Opening a new upstream connection (DNS and TCP; default 5 s). Answers 504 when exceeded. */
  connectTimeoutMs?: number;
  /**
   * From relaying the request to the upstream's status line, waiting for a pooled socket
   * included (default 60 s). Answers 504 when exceeded. Streams, once started, never time out.
   */
  headersTimeoutMs?: number;
  pool?: UpstreamPoolOptions;
  /** Refresh waits, and how often the same news is passed on to the route source. */
  auth?: UpstreamAuthOptions;
  /** Largest request body kept so that it can be sent again after a refresh (default 1 MiB). */
  retryBodyLimitBytes?: number;
  /**
   * Largest body of a request carrying Mcp-Method or Mcp-Name, which is read whole and checked
   * against them before it is relayed (default 4 MiB, the MCP SDK servers' own limit); 413 beyond.
   */
  checkedBodyLimitBytes?: number;
  /**
   * Told when an upstream answers 401. When the route source cannot refresh the token, the
   * route is invalidated too; when it can, the refresh replaces it.
   */
  onUpstreamUnauthorized?(connectorId: string): void;
  /** Where MCP requests, their latency, bytes and open streams are counted. */
  metrics?: McpMetrics;
  /** A server and a client span per MCP request; absent: tracing is off, nothing is made. */
  tracer?: Tracer | null;
  /** Where each call to a connector the caller sees is recorded (the per-call audit). */
  audit?: CallSink;
  /** Bounds of the upstream sessions kept for legacy SSE servers (legacy-sse/sse-bridge.ts). */
  legacySse?: Pick<SseBridgeOptions, 'idleMs' | 'maxSessions' | 'maxPerCaller'>;
  /** The tasks the service owns for servers without task support; absent: task requests are relayed. */
  tasks?: (upstream: UpstreamClient) => GatewayTasks;
}

export interface McpProxy {
  handle(req: IncomingMessage, res: ServerResponse, connectorId: string): void;
  /** The proxy's upstream client (pools, address guard, token handling), which the toolsets' members share. */
  readonly upstream: UpstreamClient;
  /** The tasks the service owns for the connectors' servers (absent: none), which the toolsets' members share. */
  readonly tasks?: GatewayTasks;
  /** Forget what is known about a connector: the next request asks the registry. */
  invalidate(connectorId: string): void;
  close(): void;
}

// The exchange rides on the request as a symbol property rather than in a WeakMap: WeakMap
// entries outlived young-generation GCs, so every request's objects were promoted and GC cost
// per request tripled (seen in bench/proxy.ts profiles).
const EXCHANGE = Symbol('relay-exchange');
const NO_HEADERS = { method: null, name: null };
const batchedHeldCall = () => new ProblemError(403, 'A batch may not call a tool held for approval: send that call on its own. Nothing of the batch was relayed.');
type WithExchange = IncomingMessage & { [EXCHANGE]?: RelayExchange };
const exchangeOf = (req: IncomingMessage) => (req as WithExchange)[EXCHANGE];
const TRACE = Symbol('mcp-trace');
type WithTrace = IncomingMessage & { [TRACE]?: McpTrace };

const ALLOWED_METHODS = new Set(['POST', 'GET', 'DELETE']);
const ALLOW = 'GET, POST, DELETE';

export function createMcpProxy(options: McpProxyOptions): McpProxy {
  const { routes, policy, logger } = options;
  const upstream = new UpstreamClient({
    routes, policy, logger, pool: options.pool, auth: options.auth, connectTimeoutMs: options.connectTimeoutMs,
    headersTimeoutMs: options.headersTimeoutMs, onUpstreamUnauthorized: options.onUpstreamUnauthorized,
  });
  const onUnauthorized = upstream.unauthorized.bind(upstream);
  const tasks = options.tasks?.(upstream);
  const server = httpProxy.createProxyServer({});
  const retryBodyLimit = options.retryBodyLimitBytes ?? 1024 * 1024;
  const checkedBodyLimit = options.checkedBodyLimitBytes ?? 4 * 1024 * 1024;
  const elicitation = new ElicitingSessions();
  const sinks = { metrics: options.metrics && mcpSeriesOf(options.metrics), audit: options.audit };
  // A server of the HTTP+SSE transport (2024-11-05) is bridged, not relayed.
  const legacySse = new SseBridge({ ...options.legacySse, upstream, logger, bodyLimitBytes: checkedBodyLimit, heldTool: tasks && ((route, tool) => tasks.holds(route, tool)) });
  const perConnector = new OpenExchanges(options.pool?.maxSocketsPerConnector ?? Math.ceil((options.pool?.maxSockets ?? 512) / 4));

  server.on('proxyReq', (proxyReq, req) => exchangeOf(req)?.onUpstreamRequest(proxyReq));
  server.on('proxyRes', (proxyRes, req) => exchangeOf(req)?.onUpstreamResponse(proxyRes));
  const tracer = options.tracer;
  if (tracer) server.on('proxyRes', (proxyRes, req) => (req as WithTrace)[TRACE]?.answered(proxyRes.statusCode));
  // Never reached while every call passes its own callback; http-proxy throws without it.
  server.on('error', (err, req) => {
    logger.error({ err, connectorId: req && exchangeOf(req)?.connectorId }, 'http-proxy error');
  });

  /**
   * Traced, the request runs inside its server span's context, which AsyncLocalStorage carries
   * through the caller check and the route lookup: a cache miss's workflow query is its child.
   */
  function traced(req: IncomingMessage, res: ServerResponse, connectorId: string): void {
    const trace = ((req as WithTrace)[TRACE] = new McpTrace(tracer!, req, res));
    context.with(trace.context, handle, null, req, res, connectorId);
  }

  function handle(req: IncomingMessage, res: ServerResponse, connectorId: string): void {
    if (!ALLOWED_METHODS.has(req.method ?? '')) {
      sendProblem(res, new ProblemError(405, `The MCP endpoint accepts ${ALLOW}.`), { allow: ALLOW });
      return;
    }
    const length = requestBodyLength(req);
    // The connection goes too: where this request ends, and so where the next begins, is in doubt.
    // The body cannot be read for its id: where it ends is in doubt.
    if (length instanceof FramingRefusal) return sendMcpProblem(res, length, { connection: 'close' }, unreadRpcRequest(req));
    const gate = options.callers;
    const observed = options.metrics || options.audit ? new CallObserver(sinks, req, res) : null;
    // The usual case: a caller known without waiting (an API key, an access token verified
    // before) and a fresh cached route are relayed in this tick, with no promise in between.
    const caller = gate?.enabled ? gate.known(req, connectorId) : OPEN_CALLER;
    const route = caller ? routes.peek?.(connectorId) : undefined;
    if (caller && route) {
      try {
        return admitted(req, res, connectorId, caller, route, observed, length);
      } catch (err) {
        return refused(req, res, connectorId, err);
      }
    }
    (caller ? Promise.resolve(caller) : gate!.admit(req, connectorId))
      .then((known) => routes.get(connectorId).then(
        (found) => admitted(req, res, connectorId, known, found, observed, length),
        (err: unknown) => Promise.reject(asRegistryProblem(err, connectorId)),
      ).catch((err: unknown) => refused(req, res, connectorId, err)),
      // Not authenticated: the body is not read, not even for its id.
      (err: unknown) => failed(res, connectorId, err, unreadRpcRequest(req)));
  }

  function admitted(req: IncomingMessage, res: ServerResponse, connectorId: string, caller: Caller, route: Route, observed: CallObserver | null, length: BodyLength): void {
    const gate = options.callers;
    // Another owner's connector is answered exactly as one that does not exist.
    if (gate && !gate.sees(caller, route)) return relay(req, res, connectorId, { kind: 'not_found' }, null, length, caller);
    if (route.kind !== 'not_found') observed?.seen(connectorId, caller.subject);
    if (route.kind === 'connected' && !perConnector.take(connectorId, res)) {
      throw new ProblemError(429, 'This connector has as many MCP requests and streams open as it may; try again when one ends.', 'connector-busy');
    }
    gate?.hold(caller, res);
    relay(req, res, connectorId, route, observed, length, caller);
  }

  function failed(res: ServerResponse, connectorId: string, err: unknown, rpc: RpcRequest | null): void {
    if (err instanceof GateRefusal) return sendMcpProblem(res, err.problem, err.headers, rpc);
    if (!(err instanceof ProblemError)) logger.error({ err, connectorId }, 'proxy failure');
    const problem = err instanceof ProblemError ? err : new ProblemError(500, 'The proxy failed to relay the request.');
    sendMcpProblem(res, problem, problem.status === 503 ? { 'retry-after': '1' } : {}, rpc);
  }

  /** A refusal after authentication: the body, never relayed, is read for the request's id. */
  function refused(req: IncomingMessage, res: ServerResponse, connectorId: string, err: unknown): void {
    const rpc = unreadRpcRequest(req);
    if (rpc === null) return failed(res, connectorId, err, null);
    readBody(req, checkedBodyLimit).then(
      (body) => failed(res, connectorId, err, body === null ? rpc : rpcRequestOf(body)),
      () => undefined, // the caller went away: nothing to answer
    );
  }

  function relay(req: IncomingMessage, res: ServerResponse, connectorId: string, route: Route, observed: CallObserver | null, length: BodyLength, caller: Caller): void {
    if (res.destroyed) return; // the client left while the route was looked up
    const trace = tracer ? (req as WithTrace)[TRACE] : undefined;
    trace?.routed(connectorId, route.kind);
    if (route.kind === 'not_found') return refused(req, res, connectorId, new ProblemError(404, 'No connector has this id.'));
    if (route.kind === 'not_connected') return refused(req, res, connectorId, notConnectedProblemOf(route));
    const target = upstream.target(connectorId, route, queryOf(req.url ?? ''));
    if (target instanceof ProblemError) {
      trace?.routed(connectorId, 'refused');
      return refused(req, res, connectorId, target);
    }
    if (route.transport === 'sse') {
      // The body is read by the bridge; the observer takes its first bytes beside it, for the audit.
      observed?.watchRequest(req);
      observed?.relaying(res);
      return legacySse.handle(req, res, connectorId, route, caller);
    }
    const mirrored = rpcHeadersOf(req);
    // A request without them (a 2025 client's) is streamed unread, unless tools are held for
    // approval: then it is read too, so that no call of a held tool is ever relayed unapproved.
    const unmirroredPost = mirrored === null && req.method === 'POST' && tasks?.holdsTools(route) === true;
    if (mirrored === null && !unmirroredPost) return start(req, res, connectorId, route, target, observed, length);
    // Headers that name the method and the name: the whole body is read and checked first.
    readBody(req, checkedBodyLimit).then((body) => {
      if (res.destroyed) return;
      if (body === null) {
        const problem = new ProblemError(413, `A request that carries Mcp-Method or Mcp-Name is read whole before it is relayed, and this body is over ${checkedBodyLimit} bytes.`);
        return sendMcpProblem(res, problem, { connection: 'close' }, unreadRpcRequest(req));
      }
      const { facts, mismatch } = checkRpcHeaders(body, mirrored ?? NO_HEADERS);
      observed?.readWhole(body, facts);
      if (mismatch && mirrored) return sendMcpProblem(res, mismatch, {}, rpcRequestOf(body));
      if (!mirrored && tasks?.batchCallsHeld(route, body)) return sendMcpProblem(res, batchedHeldCall(), {}, null);
      const relayIt = () => start(req, res, connectorId, route, target, observed, body.length, body);
      if (req.method === 'POST' && tasks?.take({ res, connectorId, route, caller, body, method: facts.method, relay: relayIt })) return;
      relayIt();
    }, () => undefined); // the caller went away: nothing to answer
  }

  /** `body`: the whole body when it was read before (its length is then `length`). */
  function start(req: IncomingMessage, res: ServerResponse, connectorId: string, route: ConnectedRoute, target: UpstreamTarget, observed: CallObserver | null, length: BodyLength, body?: Buffer): void {
    // http-proxy copies req.headers into the upstream request; replacing them here is the only
    // way to drop the caller's headers before anything is written.
    // GET and DELETE reach here only without a body (request-framing.ts), and go without one.
    const bodyLength = req.method === 'POST' ? length : undefined;
    const proof = upstream.dpop.proof(route, req.method!, target);
    req.headers = upstreamRequestHeaders(req.headers, target.host, bodyLength, route.token, route.gatewaySecret, route.headers, proof);
    (tracer ? (req as WithTrace)[TRACE] : undefined)?.upstream(req.headers, target, req.method!);
    const exchange = new RelayExchange({
      connectorId, route, target, req, res, logger, timeouts: upstream.timeouts, auth: upstream.auth, dpop: upstream.dpop, retryBodyLimit, dispatch,
      onUnauthorized, observer: observed ?? undefined, bodyLength, body, elicitation,
    });
    (req as WithExchange)[EXCHANGE] = exchange;
    observed?.relaying(res);
    exchange.start();
  }

  function dispatch(exchange: RelayExchange, body: Buffer | undefined, onError: (err: Error) => void): void {
    const { req, res, target } = exchange;
    server.web(req, res, {
      target: { protocol: target.protocol, hostname: target.hostname, host: target.hostname, port: String(target.port), path: target.path },
      agent: upstream.agents.agentFor(target, exchange.currentRoute),
      selfHandleResponse: true,
      ignorePath: true,
      toProxy: true, // with ignorePath: skips http-proxy's url.parse of the caller's URL
      xfwd: false,
      changeOrigin: false,
      // A retry's copy of the body, else the caller's stream, held to the length declared upstream.
      buffer: framedBody(body ?? req, exchange.bodyLength) as unknown as Readable,
    }, onError);
  }

  function asRegistryProblem(err: unknown, connectorId: string): ProblemError {
    if (err instanceof ProblemError) return err;
    logger.error({ err, connectorId }, 'route lookup failed');
    return new ProblemError(503, 'The connector registry is unavailable; try again shortly.');
  }

  return {
    handle: tracer ? traced : handle,
    upstream,
    tasks,
    invalidate: (connectorId) => {
      routes.invalidate?.(connectorId);
      tasks?.forget(connectorId);
      // Told of every transition: upstream SSE sessions go only when the connector left the server they were opened on.
      if (legacySse.holds(connectorId)) {
        routes.get(connectorId).then((route) => legacySse.settle(connectorId, route), () => legacySse.forget(connectorId));
      }
    },
    close() {
      server.close();
      legacySse.close();
      upstream.destroy();
    },
  };
}
