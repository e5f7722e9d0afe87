// The proxy's series for one MCP request (counted by call-observer.ts when the response closes):
// requests and their duration, body bytes each way, and an open stream from the moment it is
// relayed upstream until then. The connector label is set only once the route says the caller
// sees an existing connector (an unknown or hidden id is `unknown`), and the method label only
// ever names a method MCP defines (from the `Mcp-Method` header, else the request body's first
// bytes), so a caller cannot make new series.
import type { ServerResponse } from 'node:http';
import { BoundCounter, BoundGauge } from '../platform/bound-series';
import type { BodyShape } from '../contract/call-record';
import { statusLabel, type Metrics } from '../platform/metrics';

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

/**
 * The MCP series of one registry, bound per label set (platform/bound-series.ts): a request adds to
 * its cells, and the counters and the open-streams gauge reach prom-client at each scrape. The
 * duration histogram is observed at once, with the cell's labels object.
 */
export class McpSeries {
  private readonly requests: BoundCounter<'connector_id' | 'rpc_method' | 'status'>;
  private readonly requestBytes: BoundCounter<'connector_id'>;
  private readonly responseBytes: BoundCounter<'connector_id'>;
  private readonly open: BoundGauge<'connector_id'>;

  constructor(private readonly metrics: McpMetrics) {
    this.requests = new BoundCounter(metrics.mcpRequests);
    this.requestBytes = new BoundCounter(metrics.mcpRequestBytes);
    this.responseBytes = new BoundCounter(metrics.mcpResponseBytes);
    this.open = new BoundGauge(metrics.mcpOpenStreams);
  }

  /** An MCP request relayed upstream: an open stream until it is counted. */
  opened(connectorId: string): void {
    this.open.cell(connectorId, () => ({ connector_id: connectorId })).n++;
  }

  /** One closed MCP request in every series. */
  count(res: ServerResponse, call: CountedCall): void {
    const connectorId = call.connectorId;
    const method = call.method;
    const status = statusLabel(res);
    const cell = this.requests.cell(`${connectorId}\u0000${method}\u0000${status}`, () => ({ connector_id: connectorId, rpc_method: method, status }));
    cell.n++;
    this.metrics.mcpDuration.observe(cell.labels, (performance.now() - call.startedMs) / 1000);
    const connector = () => ({ connector_id: connectorId });
    if (call.requestBytes > 0) this.requestBytes.cell(connectorId, connector).n += call.requestBytes;
    if (call.responseBytes > 0) this.responseBytes.cell(connectorId, connector).n += call.responseBytes;
    if (call.streaming) this.open.cell(connectorId, connector).n--;
  }
}

// One McpSeries per registry, whichever proxies count into it (their collect hooks run once).
const seriesOfMetrics = new WeakMap<McpMetrics, McpSeries>();

export function mcpSeriesOf(metrics: McpMetrics): McpSeries {
  let series = seriesOfMetrics.get(metrics);
  if (!series) {
    series = new McpSeries(metrics);
    seriesOfMetrics.set(metrics, series);
  }
  return series;
}
