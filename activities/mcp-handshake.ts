// One MCP handshake with a server, as the SDK v2 client makes it: `server/discover` at the newest
// revision (2026-07-28: `MCP-Protocol-Version`, `Mcp-Method` and the `_meta` envelope), falling
// back to `initialize` (2025-11-25, and whatever older revision the server answers with) for
// servers that do not know it, and moving to the version a `-32022` answer names. The SDK's
// negotiation is used rather than copied, so both probes (connect with a token, and the
// unauthenticated probe that looks for a challenge) speak exactly what a v2 client speaks.
import { Client, SdkError, SdkErrorCode, SdkHttpError, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { FetchLike } from './oauth/http';

export interface HandshakeAccepted {
  kind: 'accepted';
  /** The revision negotiated: `2026-07-28`, `2025-11-25`, `2025-06-18`, … */
  protocolVersion: string;
  serverName: string | null;
}

/** The server refused the request with 401 or 403: the token, or its absence. */
export interface HandshakeRefused {
  kind: 'refused';
  status: 401 | 403;
  /** The refusal's `WWW-Authenticate` header, as sent. */
  wwwAuthenticate: string | null;
}

export type HandshakeOutcome = HandshakeAccepted | HandshakeRefused;

const CLIENT_INFO = { name: 'connector-registry', version: '1.0.0' };

/**
 * Negotiates with the server at `url` and ends there: a legacy session it opened is closed again
 * (DELETE), and no other request is made. Throws what the SDK throws for anything else; read it
 * with `handshakeFailure`. `fetch` is the guarded fetch: every request passes the address guard.
 */
export async function mcpHandshake(
  input: { url: string; token: string | null; timeoutMs: number; headers?: Record<string, string>; transport?: 'sse' },
  fetch: FetchLike,
): Promise<HandshakeOutcome> {
  const deadline = AbortSignal.timeout(input.timeoutMs);
  const sse = input.transport === 'sse';
  let refusal: HandshakeRefused | null = null;
  const probeFetch: FetchLike = async (url, init = {}) => {
    // After `notifications/initialized` the SDK opens the standalone GET stream: the probe has no
    // use for it, and it would only hold a connection of the server's until the probe closes.
    // An SSE server's GET stream is where its answers come, though.
    if (!sse && (init.method ?? 'GET').toUpperCase() === 'GET') return new Response(null, { status: 405 });
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const response = await fetch(url, { ...init, signal });
    if (response.status === 401 || response.status === 403) {
      refusal = { kind: 'refused', status: response.status, wwwAuthenticate: response.headers.get('www-authenticate') };
    }
    return response;
  };
  // An SSE server predates server/discover (2024-11-05): it is asked to initialize only.
  const client = new Client(CLIENT_INFO, sse ? {} : { versionNegotiation: { mode: 'auto', probe: { timeoutMs: input.timeoutMs } } });
  const options = { fetch: probeFetch, requestInit: requestInitOf(input.token, input.headers) };
  // The SSE transport takes the endpoint the server announces only on the stream's own origin.
  const transport = sse ? new SSEClientTransport(new URL(input.url), options) : new StreamableHTTPClientTransport(new URL(input.url), options);
  try {
    await client.connect(transport, { timeout: input.timeoutMs, signal: deadline });
    const protocolVersion = client.getNegotiatedProtocolVersion();
    if (!protocolVersion) throw new Error('the MCP server completed no handshake');
    if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => undefined);
    return { kind: 'accepted', protocolVersion, serverName: client.getServerVersion()?.name ?? null };
  } catch (err) {
    // A 401 or 403 on any request of the handshake ends it: the credential decides, not the era.
    if (refusal) return refusal;
    if (deadline.aborted) throw new HandshakeTimeoutError(input.url);
    throw err;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The connect's headers, then the token: no header of the connect's can stand in for Authorization. */
function requestInitOf(token: string | null, headers: Record<string, string> | undefined): RequestInit | undefined {
  const all = { ...headers, ...(token ? { Authorization: `Bearer ${token}` } : {}) };
  return Object.keys(all).length ? { headers: all } : undefined;
}

export class HandshakeTimeoutError extends Error {
  constructor(url: string) {
    super(`the MCP server at ${url} did not answer in time`);
    this.name = 'HandshakeTimeoutError';
  }
}

/** How a failed handshake reads to a person and to the status mapping. */
export type HandshakeFailure =
  | { kind: 'timeout' }
  | { kind: 'status'; status: number }
  /** The server speaks no revision this service does (it named those it does, or answered nothing usable). */
  | { kind: 'era'; detail: string }
  | { kind: 'other'; error: unknown };

export function handshakeFailure(err: unknown): HandshakeFailure {
  if (err instanceof HandshakeTimeoutError) return { kind: 'timeout' };
  if (err instanceof SdkHttpError && typeof err.data?.status === 'number') return { kind: 'status', status: err.data.status };
  if (err instanceof SdkError) {
    if (err.code === SdkErrorCode.RequestTimeout) return { kind: 'timeout' };
    if (err.code === SdkErrorCode.EraNegotiationFailed && !err.cause) return { kind: 'era', detail: err.message };
  }
  const code = (err as { code?: unknown }).code;
  // UnsupportedProtocolVersionError (-32022) and a server version outside the SDK's list.
  if (code === -32022 || /protocol version is not supported/i.test((err as Error)?.message ?? '')) {
    return { kind: 'era', detail: (err as Error).message };
  }
  return { kind: 'other', error: (err as { cause?: unknown }).cause ?? err };
}
