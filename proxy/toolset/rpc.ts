// JSON-RPC as the toolset router handles it: the shapes of a message, and the revisions' fields
// it reads and writes (MCP 2025-11-25 and 2026-07-28).
export type RpcId = string | number;

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** One JSON-RPC message, as parsed: a request, a notification or a response. */
export interface RpcMessage {
  jsonrpc: '2.0';
  id?: RpcId | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: RpcError;
}

export const MODERN_VERSION = '2026-07-28';
/** The 2025-era revisions a toolset session may negotiate, newest first. */
export const LEGACY_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (id: unknown): id is RpcId => typeof id === 'string' || typeof id === 'number';

export const isRequest = (m: RpcMessage): m is RpcMessage & { id: RpcId; method: string } => typeof m.method === 'string' && isId(m.id);
export const isNotification = (m: RpcMessage): m is RpcMessage & { method: string } => typeof m.method === 'string' && m.id === undefined;
export const isResponse = (m: RpcMessage): boolean => m.method === undefined && (m.result !== undefined || m.error !== undefined);

/** A parsed body as a message, or null when it is not one (an array, a scalar, no jsonrpc). */
export function asMessage(value: unknown): RpcMessage | null {
  return isObject(value) && value.jsonrpc === '2.0' ? (value as unknown as RpcMessage) : null;
}

export const paramsOf = (m: RpcMessage): Record<string, unknown> => (isObject(m.params) ? m.params : {});
export const metaOf = (params: Record<string, unknown>): Record<string, unknown> => (isObject(params._meta) ? params._meta : {});

export const resultMessage = (id: RpcId | null, result: Record<string, unknown>): RpcMessage => ({ jsonrpc: '2.0', id, result });
export const errorMessage = (id: RpcId | null, error: RpcError): RpcMessage => ({ jsonrpc: '2.0', id, error });

/** The 2025 revision a toolset session speaks: the client's when the toolset knows it, else the newest. */
export const legacyVersionFor = (requested: unknown): string =>
  typeof requested === 'string' && LEGACY_VERSIONS.includes(requested) ? requested : LEGACY_VERSIONS[0]!;

/** A request the toolset answers with this JSON-RPC error. */
export class RpcFailure extends Error {
  constructor(readonly error: RpcError) {
    super(error.message);
  }
}
