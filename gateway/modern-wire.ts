// The few 2026-07-28 wire names the gateway needs before the SDK v2 server package is loaded.
// That package costs about 7 MB of heap in a sidecar whose clients may all speak 2025, so it is
// loaded with the first request that could be a 2026-07-28 one (lazy-modern.ts); which requests
// are, and everything they need, is then the SDK's to decide.

/** The stateless revision (the SDK exports no constant for it on purpose). */
export const MODERN_REVISION = '2026-07-28';

export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo';
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';

/**
 * False only for what the SDK's classifier is sure to call 2025 traffic: no envelope claim in the
 * body (`_meta` naming a protocol version) and no MCP-Protocol-Version header of the modern era.
 */
export function mightBeModern(protocolVersionHeader: string | undefined, body: unknown): boolean {
  if (protocolVersionHeader !== undefined && protocolVersionHeader.trim() >= MODERN_REVISION) return true;
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(claimsEnvelope);
}

function claimsEnvelope(message: unknown): boolean {
  const params = (message as { params?: unknown } | null)?.params;
  const meta = (params as { _meta?: unknown } | null | undefined)?._meta;
  return typeof meta === 'object' && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
}
