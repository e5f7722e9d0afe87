// The service's own errors on the MCP paths. A JSON-RPC request gets a JSON-RPC error object with
// its id (null when unknown), the HTTP status the tables list, and the RFC 9457 problem in
// `error.data` (decisions.md, "MCP paths answer in JSON-RPC"); anything else (a GET stream, a
// DELETE, a body that is not JSON) gets the problem itself. When a status line was already sent
// the connection is cut instead (a status cannot be taken back; a truncated stream tells the
// client it failed). The codes are documented in docs/mcp-errors.md.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { PROBLEM_CONTENT_TYPE, ProblemError } from '../contract/problem';
import type { Route } from './route';

/**
 * The JSON-RPC codes of errors the service produces itself. -32020 and -32042 are MCP's; -32010
 * is settled in decisions.md; the others sit outside JSON-RPC's reserved range, as MCP 2026-07-28
 * asks of application-defined codes.
 */
export const RPC_ERROR = {
  headerMismatch: -32020,
  urlElicitationRequired: -32042,
  notConnected: -32010,
  unauthenticated: -31001,
  refused: -31002,
  rateLimited: -31003,
  upstreamUnreachable: -31004,
  upstreamTimeout: -31005,
  unavailable: -31006,
  scopeRequired: -31007,
  invalidRequest: -32600,
  internal: -32603,
} as const;

/** The JSON-RPC request an error answers; `id` null when it is not known (or a notification). */
export interface RpcRequest {
  id: string | number | null;
}

const UNKNOWN_ID: RpcRequest = Object.freeze({ id: null });
const BY_SLUG: Record<string, number> = {
  'header-mismatch': RPC_ERROR.headerMismatch,
  'not-connected': RPC_ERROR.notConnected,
  'rate-limited': RPC_ERROR.rateLimited,
  'insufficient-scope': RPC_ERROR.scopeRequired,
};
const BY_STATUS: Record<number, number> = {
  400: RPC_ERROR.invalidRequest,
  401: RPC_ERROR.unauthenticated,
  403: RPC_ERROR.refused,
  404: RPC_ERROR.refused,
  413: RPC_ERROR.invalidRequest,
  429: RPC_ERROR.refused,
  502: RPC_ERROR.upstreamUnreachable,
  503: RPC_ERROR.unavailable,
  504: RPC_ERROR.upstreamTimeout,
};

export function rpcCodeOf(problem: ProblemError): number {
  return BY_SLUG[problem.slug] ?? BY_STATUS[problem.status] ?? RPC_ERROR.internal;
}

/** What a read body says for an error's answer: a JSON-RPC message (its id), or null when it is not JSON. */
export function rpcRequestOf(body: Buffer | null | undefined): RpcRequest | null {
  if (!body) return null;
  let message: unknown;
  try {
    message = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  return rpcRequestIn(message);
}

/** The same for a body already parsed (undefined: none). */
export function rpcRequestIn(message: unknown): RpcRequest | null {
  if (typeof message !== 'object' || message === null) return null;
  if (Array.isArray(message)) return UNKNOWN_ID;
  const id = (message as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? { id } : UNKNOWN_ID;
}

/**
 * Before (or without) reading the body: a POST that says it carries JSON is answered as a JSON-RPC
 * request whose id is unknown. An unauthenticated caller's body is never read for its id.
 */
export function unreadRpcRequest(req: IncomingMessage): RpcRequest | null {
  return req.method === 'POST' && /json/i.test(req.headers['content-type'] ?? '') ? UNKNOWN_ID : null;
}

/** `problem` as a JSON-RPC error to `rpc`, or as problem details when `rpc` is null. */
export function sendMcpProblem(res: ServerResponse, problem: ProblemError, headers: OutgoingHttpHeaders, rpc: RpcRequest | null): void {
  if (rpc === null) return sendProblem(res, problem, headers);
  if (res.headersSent) return void res.destroy();
  if (res.destroyed) return;
  const data: Record<string, unknown> = problem.toBody();
  const retryAfter = Number(headers['retry-after']);
  if (headers['retry-after'] !== undefined && Number.isFinite(retryAfter)) data.retry_after = retryAfter;
  const body = JSON.stringify({ jsonrpc: '2.0', id: rpc.id, error: { code: rpcCodeOf(problem), message: problem.detail, data } });
  res.writeHead(problem.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(body);
}

export function sendProblem(res: ServerResponse, problem: ProblemError, headers: OutgoingHttpHeaders = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (res.destroyed) return;
  const body = JSON.stringify(problem.toBody());
  res.writeHead(problem.status, {
    'content-type': PROBLEM_CONTENT_TYPE,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(body);
}

/** The 409 for a route that is not connected: with the URL to authorize at, or what a connect must bring. */
export function notConnectedProblemOf(route: { state: string; authorizationUrl?: string | null; needs?: 'id_token' }): ProblemError {
  if (route.needs !== 'id_token') return notConnectedProblem(route.state, undefined, route.authorizationUrl);
  const detail = "The connector is auth_required: its user's identity assertion no longer obtains a token. Connect it again with a fresh id_token.";
  return new ProblemError(409, detail, 'not-connected', undefined, { state: route.state, connector_state: route.state, needs: 'id_token' });
}

/**
 * 409 for a connector that is not connected; `connector_state` says what it is instead, and
 * `authorization_url` where the user authorizes it when it waits for that.
 */
export function notConnectedProblem(state: string, detail = `The connector is ${state}, not connected.`, authorizationUrl?: string | null): ProblemError {
  const url = authorizationUrl ? { authorization_url: authorizationUrl } : {};
  return new ProblemError(409, detail, 'not-connected', undefined, { state, connector_state: state, ...url });
}

/**
 * 403 for a request the MCP server refused for want of scope: the connector stays connected,
 * and `authorization_url` (when one could be offered) grants the wider scope.
 */
export function stepUpProblem(scope: string, authorizationUrl: string | null, reason: string | null): ProblemError {
  const detail = authorizationUrl
    ? `The MCP server needs more scope for this request (${scope}). Open authorization_url to grant it, then send the request again; the connector stays connected meanwhile.`
    : `The MCP server needs more scope for this request (${scope}), and no step-up authorization could be offered${reason ? `: ${reason}` : ''}.`;
  return new ProblemError(403, detail, 'insufficient-scope', undefined, { scope, ...(authorizationUrl ? { authorization_url: authorizationUrl } : {}) });
}

/**
 * The answer to a request the upstream refused for good, given the registry's route after the
 * report (null: the registry could not be told). The upstream's own 401 and its challenge are
 * never relayed: they would send the MCP client to an authorization server that is the
 * service's to talk to.
 */
export function refusalProblem(route: Route | null, status: number): { problem: ProblemError; headers: OutgoingHttpHeaders } {
  if (route === null) {
    const detail = `The MCP server refused the request (HTTP ${status}) and the connector registry could not be told; try again shortly.`;
    return { problem: new ProblemError(502, detail, 'upstream-refused'), headers: {} };
  }
  if (route.kind === 'not_found') return { problem: new ProblemError(404, 'No connector has this id.'), headers: {} };
  if (route.kind === 'not_connected') {
    if (route.authorizationUrl) {
      const detail = `The MCP server asks for authorization (HTTP ${status}); the connector is now ${route.state}. Open authorization_url to authorize it, then send the request again.`;
      return { problem: notConnectedProblem(route.state, detail, route.authorizationUrl), headers: {} };
    }
    const detail = `The MCP server asks for authorization (HTTP ${status}); the connector is now ${route.state}. Connect it again.`;
    return { problem: notConnectedProblem(route.state, detail), headers: {} };
  }
  // Still connected: the token was replaced while the request was under way.
  const detail = "The connector's credentials changed while the request was under way; send it again.";
  return { problem: new ProblemError(503, detail, 'credentials-changed'), headers: { 'retry-after': '0' } };
}
