// Probes an MCP server with `initialize`, as a client would, to learn whether a token works
// before the connector is called connected. The answer decides the connect's status code:
// the server answered with an error → 502, it did not answer in time → 504.
import { ApplicationFailure } from '@temporalio/activity';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { FAILURE } from '../workflows/messages';
import type { FetchLike } from './oauth/http';


export interface ProbeResult {
  serverName: string | null;
  protocolVersion: string | null;
}

export async function probeMcpServer(url: string, token: string | null, timeoutMs: number, fetch: FetchLike): Promise<ProbeResult> {
  const signal = AbortSignal.timeout(timeoutMs);
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: (input, init) => fetch(input, { ...init, signal }),
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : undefined,
  });
  const client = new Client({ name: 'connector-registry-probe', version: '1.0.0' });
  try {
    await client.connect(transport, { timeout: timeoutMs, signal });
    const version = client.getServerVersion();
    await transport.terminateSession().catch(() => undefined);
    return { serverName: version?.name ?? null, protocolVersion: transport.protocolVersion ?? null };
  } catch (err) {
    throw classify(err, url, signal.aborted);
  } finally {
    await client.close().catch(() => undefined);
  }
}

function classify(err: unknown, url: string, timedOut: boolean): ApplicationFailure {
  if (timedOut || isTimeout(err)) {
    return ApplicationFailure.nonRetryable(`the MCP server at ${url} did not answer in time`, FAILURE.upstreamTimeout);
  }
  const status = (err as { code?: unknown }).code;
  if (typeof status === 'number' && status >= 400) {
    const what = status === 401 || status === 403 ? 'refused the token' : 'answered with an error';
    return ApplicationFailure.nonRetryable(`the MCP server ${what} (HTTP ${status})`, FAILURE.upstreamError);
  }
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const detail = cause?.code === 'EBLOCKEDADDRESS' ? cause.message : cause?.code ?? (err as Error).message;
  return ApplicationFailure.nonRetryable(`the MCP server at ${url} could not be reached (${detail})`, FAILURE.upstreamError);
}

function isTimeout(err: unknown): boolean {
  const e = err as { name?: string; code?: unknown; cause?: { name?: string; code?: string } };
  return e.name === 'TimeoutError' || e.cause?.name === 'TimeoutError' || e.code === -32001 ||
    e.cause?.code === 'UND_ERR_CONNECT_TIMEOUT' || e.cause?.code === 'UND_ERR_HEADERS_TIMEOUT';
}
