// The service's Prometheus series: one definition of each name, its labels and buckets, so that
// every room records into the same series. A process builds one set (service/metrics.ts) and hands
// it to whatever records; label values stay bounded (route templates, outcomes, statuses, and no
// id but that of an existing connector).
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { STATES } from '../contract/connector-states';
import { TASK_STATUSES } from '../contract/task-record';
import { CONNECTOR_MCP_PATH, routeTemplate } from '../contract/public-paths';

export { METRICS_PATH } from '../contract/operations';
/** The route template of every connector's MCP path. */
export const MCP_ROUTE = routeTemplate(CONNECTOR_MCP_PATH);

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const SLOW_SECONDS = [0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600];

export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly mcpRequests: Counter<'connector_id' | 'rpc_method' | 'status'>;
  readonly mcpDuration: Histogram<'connector_id' | 'rpc_method' | 'status'>;
  readonly mcpOpenStreams: Gauge<'connector_id'>;
  readonly mcpRequestBytes: Counter<'connector_id'>;
  readonly mcpResponseBytes: Counter<'connector_id'>;
  /** Requests to a toolset's MCP path, naming the toolset and (for tools/call) the member; `none` otherwise. */
  readonly toolsetRequests: Counter<'toolset_id' | 'member_id' | 'rpc_method' | 'status'>;
  readonly toolsetDuration: Histogram<'toolset_id' | 'member_id' | 'rpc_method' | 'status'>;
  readonly callAuditWritten: Counter;
  readonly callAuditDropped: Counter<'reason'>;
  readonly workloadStarts: Counter<'outcome'>;
  readonly workloadReadiness: Histogram<'outcome'>;
  readonly tokenRefreshes: Counter<'outcome'>;
  readonly tokenRefreshLag: Histogram;
  /** Calls offered to a workflow task (activities/in-task-admission.ts), by outcome. */
  readonly inTaskCalls: Counter<'outcome'>;
}

export function createMetrics(registry = new Registry()): Metrics {
  const registers = [registry];
  return {
    registry,
    httpRequests: new Counter({ name: 'http_requests_total', help: 'HTTP requests answered, by route template and status', labelNames: ['method', 'route', 'status'], registers }),
    httpDuration: new Histogram({ name: 'http_request_duration_seconds', help: 'From a request\'s arrival to its response\'s end, by route template and status', labelNames: ['method', 'route', 'status'], buckets: SECONDS, registers }),
    mcpRequests: new Counter({ name: 'mcp_proxy_requests_total', help: 'MCP requests through the proxy, by connector, JSON-RPC method (Mcp-Method header, else the body) and status', labelNames: ['connector_id', 'rpc_method', 'status'], registers }),
    mcpDuration: new Histogram({ name: 'mcp_proxy_request_duration_seconds', help: 'From an MCP request\'s arrival to its response\'s end (an SSE stream\'s whole life)', labelNames: ['connector_id', 'rpc_method', 'status'], buckets: SECONDS, registers }),
    mcpOpenStreams: new Gauge({ name: 'mcp_proxy_open_streams', help: 'MCP requests and streams relayed to an upstream right now', labelNames: ['connector_id'], registers }),
    mcpRequestBytes: new Counter({ name: 'mcp_proxy_request_bytes_total', help: 'Bytes of MCP request bodies relayed to upstreams, by connector', labelNames: ['connector_id'], registers }),
    mcpResponseBytes: new Counter({ name: 'mcp_proxy_response_bytes_total', help: 'Bytes of MCP response bodies relayed from upstreams, by connector', labelNames: ['connector_id'], registers }),
    toolsetRequests: new Counter({ name: 'mcp_toolset_requests_total', help: 'MCP requests to toolsets, by toolset, member (tools/call; else none), JSON-RPC method and status', labelNames: ['toolset_id', 'member_id', 'rpc_method', 'status'], registers }),
    toolsetDuration: new Histogram({ name: 'mcp_toolset_request_duration_seconds', help: "From a toolset MCP request's arrival to its response's end", labelNames: ['toolset_id', 'member_id', 'rpc_method', 'status'], buckets: SECONDS, registers }),
    callAuditWritten: new Counter({ name: 'mcp_call_audit_written_total', help: 'MCP calls written to the per-call audit', registers }),
    callAuditDropped: new Counter({ name: 'mcp_call_audit_dropped_total', help: 'MCP calls left out of the per-call audit: queue_full (the queue was at capacity) or write_failed (the database refused the batch)', labelNames: ['reason'], registers }),
    workloadStarts: new Counter({ name: 'workload_starts_total', help: 'Managed stdio workload starts, by outcome', labelNames: ['outcome'], registers }),
    workloadReadiness: new Histogram({ name: 'workload_readiness_seconds', help: 'From a workload start to its readiness (or its failure)', labelNames: ['outcome'], buckets: SLOW_SECONDS, registers }),
    tokenRefreshes: new Counter({ name: 'token_refreshes_total', help: 'OAuth token refreshes, by outcome', labelNames: ['outcome'], registers }),
    tokenRefreshLag: new Histogram({ name: 'token_refresh_lag_seconds', help: 'How late a scheduled token refresh ran behind its schedule (0 when on time or early)', buckets: [0, 0.5, 1, 5, 15, 30, 60, 120, 300, 900, 3600], registers }),
    inTaskCalls: new Counter({ name: 'in_task_calls_total', help: 'Calls to servers offered to a workflow task (a token probe, a renewal), by outcome: answered, failed, overran (run again as an activity), owner_out or owner_busy (refused, run as an activity)', labelNames: ['outcome'], registers }),
  };
}

/** Connectors by state, counted by `count` at each scrape (the projection), never kept in memory. */
export function registerConnectorStates(metrics: Metrics, count: () => Promise<Record<string, number>>): void {
  new Gauge({
    name: 'connectors',
    help: 'Connectors by state, as the projection holds them at scrape time',
    labelNames: ['state'],
    registers: [metrics.registry],
    async collect() {
      const counts = await count();
      this.reset();
      // Every state is listed, at 0 when empty, so that a query sees a state drain to nothing.
      for (const state of STATES) this.set({ state }, counts[state] ?? 0);
    },
  });
}

/** Tasks the service owns by status, and how long the oldest waiting on its client (input_required) has waited. */
export function registerTaskStates(metrics: Metrics, census: () => Promise<{ counts: Record<string, number>; oldestWaitingSeconds: number }>): void {
  let latest: Promise<{ counts: Record<string, number>; oldestWaitingSeconds: number }> | null = null;
  // Both gauges read one census per scrape.
  const read = () => (latest ??= census().finally(() => setTimeout(() => { latest = null; }, 1_000)));
  new Gauge({
    name: 'mcp_tasks', help: 'Tasks the service runs for MCP servers without task support, by status, at scrape time',
    labelNames: ['status'], registers: [metrics.registry],
    async collect() {
      const { counts } = await read();
      this.reset();
      for (const status of TASK_STATUSES) this.set({ status }, counts[status] ?? 0);
    },
  });
  new Gauge({
    name: 'mcp_tasks_oldest_input_wait_seconds', help: 'How long the oldest task waiting for its client (input_required) has waited (0: none waits)',
    registers: [metrics.registry],
    async collect() {
      this.set((await read()).oldestWaitingSeconds);
    },
  });
}

/** The label of a response's status: its code once one was sent, else `aborted`. */
export function statusLabel(res: { headersSent: boolean; statusCode: number }): string {
  return res.headersSent ? String(res.statusCode) : 'aborted';
}
