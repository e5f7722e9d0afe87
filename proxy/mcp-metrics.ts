// The proxy's series for one MCP request: counted with its duration when the response closes,
// and an open stream from the moment it is relayed upstream until then. The connector label is
// set only once the route says the caller sees an existing connector (an unknown or hidden id is
// `unknown`), and the method only from the `Mcp-Method` header naming a method MCP defines, so a
// caller cannot make new series. The body is never read for it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { statusLabel, type Metrics } from '../core/metrics';

const MCP_METHODS = new Set([
  'initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list',
  'resources/subscribe', 'resources/unsubscribe', 'prompts/list', 'prompts/get', 'completion/complete', 'logging/setLevel',
  'notifications/initialized', 'notifications/cancelled', 'notifications/progress', 'notifications/roots/list_changed',
  'tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel',
]);

export type McpMetrics = Pick<Metrics, 'mcpRequests' | 'mcpDuration' | 'mcpOpenStreams'>;

export function rpcMethodLabel(req: IncomingMessage): string {
  const header = req.headers['mcp-method'];
  if (typeof header !== 'string') return 'unknown';
  return MCP_METHODS.has(header) ? header : 'other';
}

export class McpObservation {
  private connectorId = 'unknown';
  private streaming = false;

  constructor(private readonly metrics: McpMetrics, req: IncomingMessage, res: ServerResponse) {
    const started = performance.now();
    const method = rpcMethodLabel(req);
    res.once('close', () => {
      const labels = { connector_id: this.connectorId, rpc_method: method, status: statusLabel(res) };
      metrics.mcpRequests.inc(labels);
      metrics.mcpDuration.observe(labels, (performance.now() - started) / 1000);
      if (this.streaming) metrics.mcpOpenStreams.dec({ connector_id: this.connectorId });
    });
  }

  /** The caller sees this connector: its id may label the series. */
  known(connectorId: string): void {
    this.connectorId = connectorId;
  }

  /** The request goes upstream: an open stream until the response closes. */
  relaying(res: ServerResponse): void {
    if (this.streaming || res.destroyed) return;
    this.streaming = true;
    this.metrics.mcpOpenStreams.inc({ connector_id: this.connectorId });
  }
}
