// The proxy's series for one MCP request (counted by call-observer.ts when the response closes):
// requests and their duration, body bytes each way, and an open stream from the moment it is
// relayed upstream until then. The connector label is set only once the route says the caller
// sees an existing connector (an unknown or hidden id is `unknown`), and the method label only
// ever names a method MCP defines (from the `Mcp-Method` header, else the request body's first
// bytes), so a caller cannot make new series.
import type { ServerResponse } from 'node:http';
import type { BodyShape } from '../core/call-record';
import { statusLabel, type Metrics } from '../core/metrics';

const MCP_METHODS = new Set([
  'initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list',
  'resources/subscribe', 'resources/unsubscribe', 'prompts/list', 'prompts/get', 'completion/complete', 'logging/setLevel',
  'notifications/initialized', 'notifications/cancelled', 'notifications/progress', 'notifications/roots/list_changed',
  'tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel',
]);

export type McpMetrics = Pick<Metrics, 'mcpRequests' | 'mcpDuration' | 'mcpOpenStreams' | 'mcpRequestBytes' | 'mcpResponseBytes'>;

/**
 * The rpc_method label: an MCP method by name, `other` for any other method, a batch or a body
 * that is not JSON-RPC, and `unknown` when nothing names one (a GET stream, a DELETE).
 */
export function rpcMethodLabel(method: string | null, body: BodyShape): string {
  if (method === null) return body === 'none' ? 'unknown' : 'other';
  return MCP_METHODS.has(method) ? method : 'other';
}

export interface CountedCall {
  connectorId: string;
  method: string;
  startedMs: number;
  streaming: boolean;
  requestBytes: number;
  responseBytes: number;
}

/** One closed MCP request in every series. */
export function countCall(metrics: McpMetrics, res: ServerResponse, call: CountedCall): void {
  const connector = { connector_id: call.connectorId };
  const labels = { connector_id: call.connectorId, rpc_method: call.method, status: statusLabel(res) };
  metrics.mcpRequests.inc(labels);
  metrics.mcpDuration.observe(labels, (performance.now() - call.startedMs) / 1000);
  if (call.requestBytes > 0) metrics.mcpRequestBytes.inc(connector, call.requestBytes);
  if (call.responseBytes > 0) metrics.mcpResponseBytes.inc(connector, call.responseBytes);
  if (call.streaming) metrics.mcpOpenStreams.dec(connector);
}
