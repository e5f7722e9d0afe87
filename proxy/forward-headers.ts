// Which headers cross the proxy. Both directions are allow-lists: the caller's credentials
// (Authorization, Cookie, Proxy-Authorization) must never reach a third-party MCP server,
// forwarding headers (X-Forwarded-*, Forwarded) are the caller's word and not ours to vouch
// for, and hop-by-hop headers describe the other connection. The connector's own token is the
// only credential sent upstream, with a managed workload's gateway secret: the gateway's header
// is never on the list, so a caller cannot supply it. Nor are the caller's trace headers
// (traceparent, tracestate, baggage): with traces on, the proxy sends its own traceparent
// (mcp-trace.ts); the caller's tracestate and baggage never cross.
//
// Nor is the caller's body framing (Content-Length, Transfer-Encoding) or any hop-by-hop header
// (Connection, Upgrade, TE, Trailer, Expect, Keep-Alive, and whatever Connection names): the
// proxy frames the upstream body itself, declaring the length the caller's parser already
// enforced, or chunked when it is known only at the end (request-framing.ts).
//
// The connector's own headers (the connect's `headers`, an API key the server asks for) go on
// every request; the caller's headers of the same names never cross, as no header off the list
// does, and the names the connect may set exclude every one on the list (contract/upstream-inputs.ts).
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { GATEWAY_SECRET_HEADER } from '../contract/gateway-secret';

/** Streamable HTTP headers. */
const REQUEST_HEADERS = new Set([
  'accept',
  'content-type',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  'mcp-method',
  'mcp-name',
]);
const REQUEST_HEADER_PREFIX = 'mcp-param-';

/**
 * What a client of an MCP server needs; Set-Cookie and hop-by-hop headers stay behind, and so
 * does WWW-Authenticate: the upstream's challenge names an authorization server that only the
 * service may talk to (the client's own credentials are never forwarded either).
 */
const RESPONSE_HEADERS = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'mcp-session-id',
  'mcp-protocol-version',
  'retry-after',
  'cache-control',
  'expires',
  'pragma',
  'etag',
  'last-modified',
  'vary',
]);

/**
 * Typed as incoming headers because mcp-proxy.ts puts them back on the caller's request.
 * `length`: the body's length when known, null when it goes chunked, undefined for a request
 * that has no body (GET, DELETE) and so no framing header. `dpopProof`: the token is DPoP-bound,
 * and goes with the DPoP scheme and this proof (upstream-dpop.ts).
 */
export function upstreamRequestHeaders(
  incoming: IncomingHttpHeaders, host: string, length: number | null | undefined, token?: string, gatewaySecret?: string,
  connectorHeaders?: Readonly<Record<string, string>>, dpopProof?: string,
): IncomingHttpHeaders {
  const out: Record<string, string | string[] | undefined> = { host };
  const hopByHop = namedByConnection(incoming.connection);
  for (const name in incoming) {
    if ((REQUEST_HEADERS.has(name) || name.startsWith(REQUEST_HEADER_PREFIX)) && !hopByHop?.has(name)) out[name] = incoming[name];
  }
  for (const name in connectorHeaders) out[name] = connectorHeaders[name];
  if (typeof length === 'number') out['content-length'] = String(length);
  if (token) out.authorization = dpopProof ? `DPoP ${token}` : `Bearer ${token}`;
  if (token && dpopProof) out.dpop = dpopProof;
  if (gatewaySecret) out[GATEWAY_SECRET_HEADER] = gatewaySecret;
  return out as IncomingHttpHeaders;
}

/**
 * Headers a Connection header names are hop-by-hop for that connection (RFC 9110, 7.6.1).
 * `keep-alive` and `close`, what nearly every client sends, name no header that is forwarded.
 */
function namedByConnection(connection: string | undefined): Set<string> | undefined {
  if (connection === undefined || connection === 'keep-alive' || connection === 'close') return undefined;
  return new Set(connection.split(',').map((name) => name.trim().toLowerCase()));
}

export function clientResponseHeaders(upstream: IncomingHttpHeaders): OutgoingHttpHeaders {
  // Nginx and similar front proxies would otherwise buffer SSE until their buffer fills.
  const out: OutgoingHttpHeaders = { 'x-accel-buffering': 'no' };
  for (const name in upstream) {
    if (RESPONSE_HEADERS.has(name)) out[name] = upstream[name];
  }
  return out;
}
