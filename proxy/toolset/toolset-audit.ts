// The per-call audit of a toolset's MCP traffic: each request is kept under the toolset (GET
// /api/v1/toolsets/{id}/calls) naming the member a tools/call went to, and that call also under
// the member connector (its own /calls), naming the toolset. Like the connector path's audit:
// method, name, status, JSON-RPC error, duration and bytes; never arguments or results. A 2025
// session is named by a digest of its id: the id itself, with its caller's credential, is what
// serves the session, and it is never stored.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { auditedName, MAX_METHOD_LENGTH, type CallEntry } from '../../contract/call-record';
import type { ToolsetRecord } from '../../contract/toolset-record';
import { statusLabel, type Metrics } from '../../platform/metrics';
import { rpcMethodLabel } from '../mcp-metrics';
import { memberNamed } from './access';

export interface ToolsetAuditSink {
  record(entry: CallEntry): void;
}

export type ToolsetMetrics = Pick<Metrics, 'toolsetRequests' | 'toolsetDuration'>;

const PREFIX_BYTES = 4096;
const ERROR_CODE = /"error"\s*:\s*\{[^{}]*?"code"\s*:\s*(-?\d+)/;

export class ToolsetAudit {
  private readonly at = new Date();
  private readonly started = performance.now();
  private responseBytes = 0;
  private prefix = '';

  constructor(private readonly sink: ToolsetAuditSink | undefined, private readonly metrics: ToolsetMetrics | undefined, private readonly req: IncomingMessage, private readonly res: ServerResponse, private readonly toolset: ToolsetRecord, private readonly caller: string | null, private readonly body: unknown, private readonly requestBytes: number) {
    this.countResponse();
    res.once('close', () => this.closed());
  }

  private countResponse(): void {
    const res = this.res;
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    const seen = (chunk: unknown) => {
      if (typeof chunk !== 'string' && !(chunk instanceof Uint8Array)) return;
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      this.responseBytes += bytes.length;
      if (this.prefix.length < PREFIX_BYTES) this.prefix += bytes.subarray(0, PREFIX_BYTES - this.prefix.length).toString('utf8');
    };
    res.write = ((chunk: unknown, ...rest: unknown[]) => (seen(chunk), write(chunk, ...rest))) as ServerResponse['write'];
    res.end = ((chunk?: unknown, ...rest: unknown[]) => (typeof chunk === 'function' ? end(chunk, ...rest) : (seen(chunk), end(chunk, ...rest)))) as ServerResponse['end'];
  }

  private closed(): void {
    const message = this.body && typeof this.body === 'object' && !Array.isArray(this.body) ? this.body as { method?: unknown; params?: { name?: unknown; uri?: unknown } } : null;
    const method = typeof message?.method === 'string' ? message.method.slice(0, MAX_METHOD_LENGTH) : null;
    const rawName = message?.params?.name ?? message?.params?.uri;
    const code = ERROR_CODE.exec(this.prefix)?.[1];
    // The member is the one the body's tool name names, as tools/call decides it.
    const memberId = method === 'tools/call' && typeof rawName === 'string' ? memberNamed(this.toolset, rawName)?.member.connector_id ?? null : null;
    const session = this.req.headers['mcp-session-id'] ?? this.res.getHeader('mcp-session-id');
    const entry: CallEntry = {
      at: this.at, connectorId: this.toolset.id, caller: this.caller, sessionId: typeof session === 'string' ? sessionDigest(session) : null,
      httpMethod: this.req.method ?? '', rpcMethod: method, rpcName: auditedName(method, typeof rawName === 'string' ? rawName.slice(0, 512) : null),
      body: this.body === undefined ? 'none' : Array.isArray(this.body) ? 'batch' : message ? 'message' : 'unreadable',
      status: this.res.headersSent ? this.res.statusCode : null, rpcErrorCode: code === undefined ? null : Number(code),
      durationMs: Math.round((performance.now() - this.started) * 1000) / 1000, requestBytes: this.requestBytes, responseBytes: this.responseBytes,
      toolsetId: this.toolset.id, memberId,
    };
    this.sink?.record(entry);
    if (memberId) this.sink?.record({ ...entry, connectorId: memberId });
    // Labels stay bounded: only existing toolsets the caller may use, and their members.
    const labels = { toolset_id: this.toolset.id, member_id: memberId ?? 'none', rpc_method: rpcMethodLabel(method, entry.body), status: statusLabel(this.res) };
    this.metrics?.toolsetRequests.inc(labels);
    this.metrics?.toolsetDuration.observe(labels, entry.durationMs / 1000);
  }
}

const sessionDigest = (id: string) => `sha256:${createHash('sha256').update(id).digest('hex').slice(0, 24)}`;
