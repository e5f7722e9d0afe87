// Probes an MCP server with `initialize`, as a client would, to learn whether a token works
// before the connector is called connected. The answer decides the connect's status code:
// the server answered with an error → 502, it did not answer in time → 504.
import { FAILURE } from '../core/failures';
import { ApplicationFailure } from '@temporalio/activity';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  InitializeResultSchema, LATEST_PROTOCOL_VERSION, McpError, SUPPORTED_PROTOCOL_VERSIONS, type InitializeResult,
} from '@modelcontextprotocol/sdk/types.js';

import { displayUrl } from '../core/display-url';
import { networkFailure } from '../core/network-error';
import type { FetchLike } from './oauth/http';

export interface ProbeResult {
  serverName: string | null;
  protocolVersion: string | null;
}

const CLIENT_INFO = { name: 'connector-registry-probe', version: '1.0.0' };

export async function probeMcpServer(url: string, token: string | null, timeoutMs: number, fetch: FetchLike): Promise<ProbeResult> {
  const signal = AbortSignal.timeout(timeoutMs);
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: (input, init) => fetch(input, { ...init, signal }),
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : undefined,
  });
  try {
    const result = await initialize(transport, signal);
    transport.setProtocolVersion(result.protocolVersion);
    await transport.terminateSession().catch(() => undefined);
    return { serverName: result.serverInfo.name ?? null, protocolVersion: result.protocolVersion };
  } catch (err) {
    throw classify(err, url, signal.aborted);
  } finally {
    await transport.close().catch(() => undefined);
  }
}

/**
 * Sends `initialize` alone and ends there. The SDK's Client would go on to send
 * `notifications/initialized` and open the standalone GET stream: two more requests to the
 * server on every connect, which tell nothing more about the token.
 */
function initialize(transport: StreamableHTTPClientTransport, signal: AbortSignal): Promise<InitializeResult> {
  return new Promise((resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    transport.onerror = reject;
    transport.onmessage = (message) => {
      if (!('id' in message) || message.id !== 0) return;
      if ('error' in message) return reject(new McpError(message.error.code, message.error.message));
      if (!('result' in message)) return;
      const parsed = InitializeResultSchema.safeParse(message.result);
      if (!parsed.success) return reject(new Error('the answer to initialize is not an MCP InitializeResult'));
      if (!SUPPORTED_PROTOCOL_VERSIONS.includes(parsed.data.protocolVersion)) {
        return reject(new Error(`the server's protocol version is not supported: ${parsed.data.protocolVersion}`));
      }
      resolve(parsed.data);
    };
    const request = {
      jsonrpc: '2.0' as const, id: 0, method: 'initialize',
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO },
    };
    transport.start().then(() => transport.send(request)).catch(reject);
  });
}

/** The failure, naming the server by origin and path only: it becomes the disconnect reason. */
function classify(err: unknown, url: string, timedOut: boolean): ApplicationFailure {
  const network = networkFailure(err);
  // -32001 is the SDK's own request timeout.
  if (timedOut || network?.kind === 'timeout' || (err as { code?: unknown }).code === -32001) {
    return ApplicationFailure.nonRetryable(`the MCP server at ${displayUrl(url)} did not answer in time`, FAILURE.upstreamTimeout);
  }
  const status = (err as { code?: unknown }).code;
  if (typeof status === 'number' && status >= 400) {
    const what = status === 401 || status === 403 ? 'refused the token' : 'answered with an error';
    return ApplicationFailure.nonRetryable(`the MCP server ${what} (HTTP ${status})`, FAILURE.upstreamError);
  }
  const detail = network?.kind === 'blocked' ? network.guardMessage : network?.code ?? (err as Error).message;
  return ApplicationFailure.nonRetryable(`the MCP server at ${displayUrl(url)} could not be reached (${detail})`, FAILURE.upstreamError);
}
