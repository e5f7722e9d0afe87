// Probes an MCP server with the handshake a client makes (mcp-handshake.ts: `server/discover`,
// else `initialize`), to learn whether a token works before the connector is called connected,
// and which protocol revision the server speaks. The answer decides the connect's failure type:
// the server answered with an error (UpstreamError), or did not answer in time (UpstreamTimeout).
// Only a 401 or 403 says the token was refused; a revision the server does not speak is said as such.
import { FAILURE, TypedFailure } from '../contract/failures';

import { displayUrl } from '../contract/display-url';
import { networkFailure } from '../platform/network-error';
import { handshakeFailure, mcpHandshake } from './mcp-handshake';
import type { FetchLike } from './oauth/http';
import { withTypedFailures } from './typed-failure';

/** The server answered with an error, refused the token, or could not be reached. */
export class McpServerError extends TypedFailure {
  readonly failure = FAILURE.upstreamError;
}

/** The server did not answer within the connect timeout. */
export class McpServerTimeoutError extends TypedFailure {
  readonly failure = FAILURE.upstreamTimeout;
}

export interface ProbeResult {
  serverName: string | null;
  protocolVersion: string | null;
}

/**
 * Throws an ApplicationFailure of the failure's type when the probe fails. `headers`: the
 * connect's headers for the server (opened, in memory only), sent with every request;
 * `transport`: sse for a server of the HTTP+SSE transport (2024-11-05).
 */
export function probeMcpServer(
  url: string, token: string | null, timeoutMs: number, fetch: FetchLike, headers?: Record<string, string>, transport?: 'sse',
): Promise<ProbeResult> {
  return withTypedFailures(() => probe({ url, token, headers, transport, timeoutMs }, fetch));
}

async function probe(input: { url: string; token: string | null; headers?: Record<string, string>; transport?: 'sse'; timeoutMs: number }, fetch: FetchLike): Promise<ProbeResult> {
  const { url } = input;
  let outcome;
  try {
    outcome = await mcpHandshake(input, fetch);
  } catch (err) {
    throw classify(err, url);
  }
  if (outcome.kind === 'refused') {
    throw new McpServerError(`the MCP server refused the token (HTTP ${outcome.status})`);
  }
  return { serverName: outcome.serverName, protocolVersion: outcome.protocolVersion };
}

function classify(err: unknown, url: string): TypedFailure {
  const failure = handshakeFailure(err);
  const network = networkFailure(failure.kind === 'other' ? failure.error : err);
  if (failure.kind === 'timeout' || network?.kind === 'timeout') {
    return new McpServerTimeoutError(`the MCP server at ${displayUrl(url)} did not answer in time`);
  }
  if (failure.kind === 'status') {
    return new McpServerError(`the MCP server answered with an error (HTTP ${failure.status})`);
  }
  if (failure.kind === 'era') {
    return new McpServerError(`the MCP server at ${displayUrl(url)} speaks no protocol revision this service does (${failure.detail})`);
  }
  const detail = network?.kind === 'blocked' ? network.guardMessage : network?.code ?? (failure.error as Error)?.message;
  return new McpServerError(`the MCP server at ${displayUrl(url)} could not be reached (${detail})`);
}
