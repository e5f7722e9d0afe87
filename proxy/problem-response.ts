// Writes an RFC 9457 answer, or cuts the connection when the upstream's answer already started
// (a status line cannot be taken back; a truncated stream tells the client it failed).
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { PROBLEM_CONTENT_TYPE, ProblemError } from '../contract/problem';
import type { Route } from './route';

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
