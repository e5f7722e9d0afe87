// Which revision a client's POST speaks, and whether it keeps that revision's rules (the toolset is
// the server here, so it checks what a 2026-07-28 server must): a request whose `_meta` carries
// `io.modelcontextprotocol/protocolVersion` is a 2026-07-28 request — its MCP-Protocol-Version
// header must be there and agree, the version must be one the toolset serves, Mcp-Method (and
// Mcp-Name for what names something) must be there; anything else is 2025-era traffic, served in
// sessions. A 2026 header without the envelope is refused: it cannot be served either way.
import type { IncomingMessage } from 'node:http';
import { NAME_FIELD } from '../rpc-headers';
import { LEGACY_VERSIONS, META, MODERN_VERSION, isObject, isRequest, metaOf, paramsOf, type RpcError, type RpcMessage } from './rpc';

export type ClientEra = { era: 'legacy' } | { era: 'modern'; capabilities: Record<string, unknown> } | { refusal: RpcError };

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
};
const mismatch = (message: string): ClientEra => ({ refusal: { code: -32020, message } });
const invalid = (message: string): ClientEra => ({ refusal: { code: -32602, message } });

export function clientEraOf(req: IncomingMessage, message: RpcMessage): ClientEra {
  const version = header(req, 'mcp-protocol-version');
  const params = paramsOf(message);
  const meta = metaOf(params);
  const claimed = meta[META.protocolVersion];
  if (claimed === undefined) {
    if (version !== undefined && version >= '2026') return invalid(`Invalid params: the MCP-Protocol-Version header names ${version}, and the request carries no ${META.protocolVersion} in _meta.`);
    return { era: 'legacy' };
  }
  if (typeof claimed !== 'string') return invalid(`Invalid params: _meta ${META.protocolVersion} is not a string.`);
  if (version === undefined) return mismatch('Missing MCP-Protocol-Version header.');
  if (version !== claimed) return mismatch('The MCP-Protocol-Version header does not match _meta.');
  if (claimed !== MODERN_VERSION) {
    return { refusal: { code: -32022, message: 'Unsupported protocol version', data: { supported: [MODERN_VERSION, ...LEGACY_VERSIONS], requested: claimed } } };
  }
  if (!isRequest(message)) return { era: 'modern', capabilities: {} };
  if (header(req, 'mcp-method') === undefined) return mismatch('Missing Mcp-Method header.');
  const field = NAME_FIELD.get(message.method);
  if (field !== undefined && typeof params[field] === 'string' && header(req, 'mcp-name') === undefined) return mismatch('Missing Mcp-Name header.');
  const capabilities = meta[META.clientCapabilities];
  if (!isObject(capabilities)) return invalid(`Invalid params: _meta is missing ${META.clientCapabilities}.`);
  return { era: 'modern', capabilities };
}
