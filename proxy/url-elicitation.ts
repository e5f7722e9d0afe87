// How the proxy tells an MCP client that its user must authorize the connector (decisions.md,
// "MCP protocol revisions"): a client that declared URL-mode elicitation gets the request's
// JSON-RPC error -32042 (URL elicitation required) carrying the authorization URL, so an agent can
// hand the link to its user; any other client gets problem details with `authorization_url`.
//
// Whether a client declared it (capabilities.elicitation.url): at 2026-07-28 every request says
// so in `_meta`; at 2025-11-25 only the session's `initialize` does, so the proxy remembers the
// sessions whose initialize declared it, by the Mcp-Session-Id the upstream answered with.
// The memory is per proxy process and bounded; a session it forgot gets problem details, which
// every client understands.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';

import { URL_ELICITATION_REQUIRED } from '../contract/approval-policy';

export { URL_ELICITATION_REQUIRED };
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** What the proxy needs to know of a request to answer it with -32042. */
export interface ElicitationFacts {
  /** The JSON-RPC id; null for a notification, a batch or a body that is not JSON-RPC. */
  id: string | number | null;
  method: string | null;
  /** The request itself declares URL-mode elicitation (2026-07-28 `_meta`, or a 2025 initialize's capabilities). */
  declares: boolean;
}

const NONE: ElicitationFacts = Object.freeze({ id: null, method: null, declares: false });

export function elicitationFacts(body: Buffer | null | undefined): ElicitationFacts {
  if (!body || body.length === 0) return NONE;
  let message: unknown;
  try {
    message = JSON.parse(body.toString('utf8'));
  } catch {
    return NONE;
  }
  if (!isObject(message) || Array.isArray(message)) return NONE;
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  const method = typeof message.method === 'string' ? message.method : null;
  const params = isObject(message.params) ? message.params : {};
  const meta = isObject(params._meta) ? params._meta : {};
  const capabilities = method === 'initialize' ? params.capabilities : meta[META_CAPABILITIES];
  return { id, method, declares: declaresUrlMode(capabilities) };
}

function declaresUrlMode(capabilities: unknown): boolean {
  return isObject(capabilities) && isObject(capabilities.elicitation) && isObject(capabilities.elicitation.url);
}

function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null;
}

/** The 2025-era sessions whose initialize declared URL-mode elicitation, per connector. */
export class ElicitingSessions {
  private readonly keys = new Set<string>();

  constructor(private readonly maxEntries = 50_000) {}

  remember(connectorId: string, sessionId: string): void {
    const key = `${connectorId}\n${sessionId}`;
    this.keys.delete(key);
    this.keys.add(key);
    if (this.keys.size > this.maxEntries) this.keys.delete(this.keys.values().next().value!);
  }

  has(connectorId: string, sessionId: string | string[] | undefined): boolean {
    return typeof sessionId === 'string' && this.keys.has(`${connectorId}\n${sessionId}`);
  }
}

/**
 * Answers request `id` with -32042 carrying `url`. The elicitation id is derived from the URL, so
 * that every request that meets the same authorization names the same elicitation.
 */
export function sendUrlElicitation(res: ServerResponse, id: string | number, url: string, message: string): void {
  if (res.headersSent || res.destroyed) return void res.destroy();
  const elicitationId = createHash('sha256').update(url).digest('base64url').slice(0, 22);
  const body = JSON.stringify({
    jsonrpc: '2.0', id,
    error: { code: URL_ELICITATION_REQUIRED, message, data: { elicitations: [{ mode: 'url', elicitationId, url, message }] } },
  });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(body);
}
