// The REST API's server span: one per request, the parent of every span the request causes
// (the Temporal client's start and Update spans, and through their headers the workflow's and
// its activities'). Koa runs inside the span's context, which AsyncLocalStorage carries through
// every await. Named by the router's template once routing is done; its attributes hold the path
// without the query (an OAuth callback's code and state) and never a header.
import type http from 'node:http';
import { SpanKind, context, trace, type Tracer } from '@opentelemetry/api';
import { callerContext, endServerSpan, pathOf } from '../platform/trace-context';

/** Probes and scrapes every few seconds would bury the traces worth reading. */
const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

export function traced(tracer: Tracer, req: http.IncomingMessage, res: http.ServerResponse, routeOf: () => string | undefined, handle: () => void): void {
  const path = pathOf(req.url);
  if (UNTRACED.has(path)) return handle();
  const method = req.method ?? 'GET';
  const span = tracer.startSpan(method, {
    kind: SpanKind.SERVER,
    attributes: { 'http.request.method': method, 'url.path': path, 'url.scheme': 'http' },
  }, callerContext(req.headers));
  res.once('close', () => {
    const route = routeOf();
    if (route) {
      span.setAttribute('http.route', route);
      span.updateName(`${method} ${route}`);
    }
    endServerSpan(span, res);
  });
  context.with(trace.setSpan(context.active(), span), handle);
}
