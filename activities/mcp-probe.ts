// Probes an MCP server with the handshake a client makes (mcp-handshake.ts: `server/discover`,
// else `initialize`), to learn whether a token works before the connector is called connected,
// and which protocol revision the server speaks. The answer decides the connect's status code:
// the server answered with an error → 502, it did not answer in time → 504. Only a 401 or 403
// says the token was refused; a revision the server does not speak is said as such.
import { FAILURE } from '../core/failures';
import { ApplicationFailure } from '@temporalio/activity';

import { displayUrl } from '../core/display-url';
import { networkFailure } from '../core/network-error';
import { handshakeFailure, mcpHandshake } from './mcp-handshake';
import type { FetchLike } from './oauth/http';

export interface ProbeResult {
  serverName: string | null;
  protocolVersion: string | null;
}

export async function probeMcpServer(url: string, token: string | null, timeoutMs: number, fetch: FetchLike): Promise<ProbeResult> {
  let outcome;
  try {
    outcome = await mcpHandshake({ url, token, timeoutMs }, fetch);
  } catch (err) {
    throw classify(err, url);
  }
  if (outcome.kind === 'refused') {
    throw ApplicationFailure.nonRetryable(`the MCP server refused the token (HTTP ${outcome.status})`, FAILURE.upstreamError);
  }
  return { serverName: outcome.serverName, protocolVersion: outcome.protocolVersion };
}

function classify(err: unknown, url: string): ApplicationFailure {
  const failure = handshakeFailure(err);
  const network = networkFailure(failure.kind === 'other' ? failure.error : err);
  if (failure.kind === 'timeout' || network?.kind === 'timeout') {
    return ApplicationFailure.nonRetryable(`the MCP server at ${displayUrl(url)} did not answer in time`, FAILURE.upstreamTimeout);
  }
  if (failure.kind === 'status') {
    return ApplicationFailure.nonRetryable(`the MCP server answered with an error (HTTP ${failure.status})`, FAILURE.upstreamError);
  }
  if (failure.kind === 'era') {
    return ApplicationFailure.nonRetryable(`the MCP server at ${displayUrl(url)} speaks no protocol revision this service does (${failure.detail})`, FAILURE.upstreamError);
  }
  const detail = network?.kind === 'blocked' ? network.guardMessage : network?.code ?? (failure.error as Error)?.message;
  return ApplicationFailure.nonRetryable(`the MCP server at ${displayUrl(url)} could not be reached (${detail})`, FAILURE.upstreamError);
}
