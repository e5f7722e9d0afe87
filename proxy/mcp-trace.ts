// The proxy's spans for one MCP request: a server span for the caller's request, continuing the
// caller's `traceparent` (never its tracestate or baggage), and a client span for the request to
// the upstream, whose own `traceparent` is the only trace header the upstream gets. Made only
// when tracing is on. Attributes name the connector (once the caller is known to see it, as in
// the metrics), the route's outcome and the upstream's origin: not its path or query, which may
// hold a key (some MCP servers take one in the path), and never a header value, so never a token.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { SpanKind, SpanStatusCode, context, propagation, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { MCP_ROUTE } from '../platform/metrics';
import { callerContext, endServerSpan } from '../platform/trace-context';
import { rpcMethodLabel } from './mcp-metrics';
import type { UpstreamTarget } from './upstream-target';

/** What became of the request at the route: a connector's state, or a refused upstream address. */
export type RouteOutcome = 'connected' | 'not_connected' | 'not_found' | 'refused';

export class McpTrace {
  private readonly span: Span;
  /** The server span's context: route lookups (workflow queries) and the client span hang from it. */
  readonly context: Context;
  private upstreamSpan: Span | undefined;

  constructor(private readonly tracer: Tracer, req: IncomingMessage, res: ServerResponse) {
    const method = req.method ?? 'POST';
    this.span = tracer.startSpan(`${method} ${MCP_ROUTE}`, {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': method, 'http.route': MCP_ROUTE, 'mcp.method.name': methodOfHeader(req) },
    }, callerContext(req.headers));
    this.context = trace.setSpan(context.active(), this.span);
    res.once('close', () => this.end(res));
  }

  /** The route's answer; a connector the caller cannot see is `not_found`, and its id is not named. */
  routed(connectorId: string, outcome: RouteOutcome): void {
    if (outcome !== 'not_found') this.span.setAttribute('connector.id', connectorId);
    this.span.setAttribute('connector.route.outcome', outcome);
  }

  /** The upstream request starts: a client span, and its traceparent in the upstream's headers. */
  upstream(headers: IncomingHttpHeaders, target: UpstreamTarget, method: string): void {
    this.upstreamSpan = this.tracer.startSpan(method, {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': method, 'server.address': target.hostname, 'server.port': target.port, 'url.scheme': target.protocol.slice(0, -1),
      },
    }, this.context);
    propagation.inject(trace.setSpan(this.context, this.upstreamSpan), headers);
  }

  /** The upstream's status line (after a refresh, the retry's). */
  answered(status: number | undefined): void {
    if (status === undefined) return;
    this.upstreamSpan?.setAttribute('http.response.status_code', status);
    if (status >= 500) this.upstreamSpan?.setStatus({ code: SpanStatusCode.ERROR });
  }

  private end(res: ServerResponse): void {
    this.upstreamSpan?.end();
    endServerSpan(this.span, res);
  }
}

/** The span starts before the body is read: the `Mcp-Method` header is all there is to name it by. */
function methodOfHeader(req: IncomingMessage): string {
  const header = req.headers['mcp-method'];
  return rpcMethodLabel(typeof header === 'string' ? header : null, 'none');
}
