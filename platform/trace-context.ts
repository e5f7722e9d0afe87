// What a server span takes from a caller and what it records, shared by the REST API's spans
// (service/http-trace.ts) and the MCP proxy's (proxy/mcp-trace.ts). Only the OpenTelemetry API is
// used here: with tracing off no tracer exists and none of this runs.
import { ROOT_CONTEXT, SpanStatusCode, propagation, type Context, type Span } from '@opentelemetry/api';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * The caller's trace continued from its W3C `traceparent` alone. Its `tracestate` and `baggage`
 * are the caller's word for its own vendors: taken in, they would ride along on every request
 * the service makes (the propagator copies a parent's tracestate into its children).
 */
export function callerContext(headers: IncomingHttpHeaders): Context {
  const traceparent = headers.traceparent;
  return typeof traceparent === 'string' ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
}

/** The path of a request URL without its query (an OAuth callback's code and state are in it). */
export function pathOf(url = '/'): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

/** HTTP semantics of a server span's end: the status sent (none: the client left first), errors for 5xx. */
export function endServerSpan(span: Span, res: { headersSent: boolean; statusCode: number }): void {
  if (!res.headersSent) {
    span.setAttribute('error.type', 'aborted');
  } else {
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
