// Real SDK clients talking Streamable HTTP to a gateway.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Gateway } from '../../../gateway/start-gateway';

export interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
  sessionId: string;
}

export async function connect(url: string, name: string, capabilities: ClientCapabilities = {}): Promise<Connected> {
  const client = new Client({ name, version: '1.0.0' }, { capabilities });
  // Errors such as a closed GET stream are expected in some tests; the assertions look elsewhere.
  client.onerror = () => undefined;
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  const sessionId = transport.sessionId;
  if (!sessionId) throw new Error('the gateway gave no session id');
  return { client, transport, sessionId };
}

/** Waits until a condition holds, checking on a short interval; fails after `limitMs`. */
export async function eventually<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, limitMs = 15_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Resolves once the SDK client has opened its GET stream, so broadcasts can reach it. */
export function listening(gateway: Gateway, sessionId: string): Promise<true> {
  return eventually(() => gateway.sessions().some((s) => s.id === sessionId && s.listening) || undefined, `session ${sessionId} to listen`);
}

/** A raw Streamable HTTP POST, for what the SDK client does not expose (status codes). */
export function post(url: string, body: unknown, sessionId?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify(body),
  });
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
