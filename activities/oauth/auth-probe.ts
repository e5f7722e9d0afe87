// Step 1 of connecting: send an MCP `initialize`, as any client would, and see whether the server
// wants authorization. A 401 carries the challenge that starts discovery (MCP 2025-11-25,
// "Protected Resource Metadata Discovery Requirements"); older servers may send none.
import { inStep, statusError } from './classify-error';
import { canonicalServerUri } from './canonical-uri';
import { findBearerChallenge, type BearerChallenge } from '../../core/www-authenticate';
import type { OAuthHttp } from './http';

export const PROBE_PROTOCOL_VERSION = '2025-11-25';

export type AuthProbeResult =
  /** The server accepted the request (no authorization needed, or the given token works). */
  | { kind: 'accepted' }
  /** 401: authorization needed, or the given token was refused. */
  | { kind: 'unauthorized'; challenge: BearerChallenge | null }
  /** 403 with a Bearer challenge, typically `insufficient_scope`. */
  | { kind: 'forbidden'; challenge: BearerChallenge | null };

export async function probeForChallenge(
  input: { serverUrl: string; accessToken?: string },
  http: OAuthHttp,
): Promise<AuthProbeResult> {
  const url = canonicalServerUri(input.serverUrl);
  return inStep('the MCP initialize probe', http.logger, async () => {
    const response = await http.fetch(url, {
      method: 'POST',
      headers: probeHeaders(input.accessToken),
      body: JSON.stringify(initializeRequest()),
    });
    await response.body?.cancel();
    const challenge = findBearerChallenge(response.headers.get('www-authenticate'));
    if (response.status === 401) return { kind: 'unauthorized', challenge };
    if (response.status === 403) return { kind: 'forbidden', challenge };
    if (!response.ok) throw statusError(response.status, 'the MCP initialize probe');
    await endSession(url, response.headers.get('mcp-session-id'), input.accessToken, http);
    return { kind: 'accepted' };
  });
}

function initializeRequest() {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: PROBE_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'connector-registry', version: '1.0.0' },
    },
  };
}

function probeHeaders(accessToken?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}),
  };
}

/** A probe that opened a session closes it again, so servers do not keep it for nothing. */
async function endSession(url: string, sessionId: string | null, accessToken: string | undefined, http: OAuthHttp) {
  if (!sessionId) return;
  const headers: Record<string, string> = { 'mcp-session-id': sessionId, 'mcp-protocol-version': PROBE_PROTOCOL_VERSION };
  if (accessToken) headers.authorization = `Bearer ${accessToken}`;
  const response = await http.fetch(url, { method: 'DELETE', headers }).catch(() => null);
  await response?.body?.cancel();
}
