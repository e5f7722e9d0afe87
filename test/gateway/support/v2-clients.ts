// Real SDK v2 clients (@modelcontextprotocol/client) talking Streamable HTTP to a gateway, pinned
// to one era: 'legacy' is the plain 2025-11-25 handshake, { pin } the sessionless 2026-07-28 one.
import { Client, StreamableHTTPClientTransport, type ClientCapabilities } from '@modelcontextprotocol/client';

export const MODERN = '2026-07-28';

export type V2Era = 'legacy' | 'modern';

export async function connectV2(url: string, name: string, era: V2Era, capabilities: ClientCapabilities = {}): Promise<Client> {
  const mode = era === 'modern' ? { pin: MODERN } : 'legacy' as const;
  const client = new Client({ name, version: '2.0.0' }, { capabilities, versionNegotiation: { mode } });
  client.onerror = () => undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** The per-request envelope a hand-made 2026-07-28 request carries. */
export function envelope(capabilities: ClientCapabilities = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  };
}

/** A raw 2026-07-28 POST: `headers` may contradict the body, which is the point of some tests. */
export function postModern(
  url: string, body: { id?: number; method: string; params?: Record<string, unknown> }, headers: Record<string, string> = {}, signal?: AbortSignal,
): Promise<Response> {
  const params = { ...body.params, _meta: envelope() };
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': body.method,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: body.id ?? 1, method: body.method, params }),
    signal,
  });
}
