// What is seen of one MCP request, for the metrics and the per-call audit: made when the request
// arrives, told by the proxy who the caller and the connector are, fed by the exchange with both
// bodies' bytes, and read once when the response closes. The bodies are watched through 'data'
// listeners beside http-proxy's pipe: nothing is buffered beyond a bounded prefix, nothing waits
// on it, and the prefix is read (rpc-prefix.ts) only after the response has closed.
//
// The method and the name recorded are the body's, never the Mcp-Method/Mcp-Name headers': a
// request carrying those was read whole and checked against them before it was relayed
// (rpc-headers.ts), and what that check read is handed over here instead of being read again.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { auditedName, TASK_ROW_METHOD, type CallEntry } from '../contract/call-record';
import type { CallSink } from './call-audit-queue';
import { rpcMethodLabel, type McpSeries } from './mcp-metrics';
import { BodyPrefix, readAnswerError, readAnswerTask, readAnswerTaskStatus, readRequest, type RequestFacts } from './rpc-prefix';

export interface CallObserverSinks {
  metrics?: McpSeries;
  audit?: CallSink;
}

// The observer rides on its response: one 'close' listener shared by all, no closure per request.
const OBSERVER = Symbol('call-observer');
type Observed = ServerResponse & { [OBSERVER]?: CallObserver };
function onClose(this: Observed): void {
  this[OBSERVER]?.closed();
}

/** The proxy answered a tools/call itself with a task the service owns (proxy/tasks): its row names the task. */
export function answeredWithTask(res: ServerResponse, taskId: string): void {
  const observer = (res as Observed)[OBSERVER];
  if (observer) observer.answeredTask = taskId;
}

/** A tools/call that declared the tasks extension, relayed to a server that runs tasks itself: its answer may be the server's task. */
export function relayedTaskCall(res: ServerResponse): void {
  const observer = (res as Observed)[OBSERVER];
  if (observer) observer.taskCall = true;
}

// Whose answers may show where a task of the server's own stands (with a tools/call that asked for one).
const TASK_ANSWERS = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

const header = (value: string | string[] | undefined): string | null => (typeof value === 'string' ? value : null);

export class CallObserver {
  /** The metrics' label until the caller is known to see an existing connector. */
  connectorId = 'unknown';
  /** The rpc_method label, set when the response closes. */
  method = 'unknown';
  streaming = false;
  readonly startedMs = performance.now();
  private readonly at = Date.now();
  private known = false;
  private caller: string | null = null;
  /** What the body says, when it was read whole before relaying. */
  private checked?: RequestFacts;
  private readonly sessionHeader: string | null;
  private readonly httpMethod: string;
  private request?: BodyPrefix;
  private answer?: BodyPrefix;
  private answerType?: string;
  private answerSession: string | null = null;
  /** Set by answeredWithTask. */
  answeredTask: string | null = null;
  /** Set by relayedTaskCall: only then is a tools/call's answer read for a task's status (no cost to other calls). */
  taskCall = false;

  constructor(private readonly sinks: CallObserverSinks, req: IncomingMessage, private readonly res: ServerResponse) {
    // Read now: the proxy replaces req.headers with the upstream's before relaying.
    this.sessionHeader = header(req.headers['mcp-session-id']);
    this.httpMethod = req.method ?? '';
    (res as Observed)[OBSERVER] = this;
    res.on('close', onClose);
  }

  get requestBytes(): number {
    return this.request?.total ?? 0;
  }

  get responseBytes(): number {
    if (this.answer) return this.answer.total;
    const length = this.res.getHeader('content-length'); // a problem of the proxy's own
    return typeof length === 'number' ? length : Number(length ?? 0) || 0;
  }

  /** The caller sees this connector: its id may label the series, and the call is audited. */
  seen(connectorId: string, caller: string | null): void {
    this.connectorId = connectorId;
    this.caller = caller;
    this.known = true;
  }

  /** The request goes upstream: an open stream until the response closes. */
  relaying(res: ServerResponse): void {
    if (this.streaming || res.destroyed || !this.sinks.metrics) return;
    this.streaming = true;
    this.sinks.metrics.opened(this.connectorId);
  }

  /** After http-proxy has piped the request (so no chunk is missed): counts and keeps its first bytes. */
  watchRequest(req: IncomingMessage): void {
    if (this.request || req.readableEnded) return;
    this.request = new BodyPrefix();
    req.on('data', this.request.add);
  }

  /** The body was read whole and checked before relaying: its size, and what it says. */
  readWhole(body: Buffer, facts: RequestFacts): void {
    this.request = new BodyPrefix(0);
    this.request.add(body);
    this.checked = facts;
  }

  /** The upstream's answer, as it is relayed: its session, its type, its bytes and first ones. */
  watchAnswer(proxyRes: IncomingMessage): void {
    this.answerSession = header(proxyRes.headers['mcp-session-id']);
    this.answerType = header(proxyRes.headers['content-type']) ?? undefined;
    this.answer = new BodyPrefix(this.sinks.audit ? undefined : 0);
    proxyRes.on('data', this.answer.add);
  }

  /** The response closed (its 'close' is emitted once): counted and recorded. */
  closed(): void {
    const facts = this.checked ?? readRequest(this.request);
    this.method = rpcMethodLabel(facts.method, facts.body);
    this.sinks.metrics?.count(this.res, this);
    if (!this.sinks.audit || !this.known) return;
    const entry = this.entry(facts);
    this.sinks.audit.record(entry);
    if (this.sinks.audit.recordServerTask && this.answer && (facts.method === 'tools/call' ? this.taskCall : TASK_ANSWERS.has(facts.method ?? ''))) this.serverTaskRow(facts, entry);
  }

  /**
   * A relayed answer showing a task of the server's own: its status, which the store makes a row
   * where it differs from the last one seen (once, however many polls on however many replicas
   * see it). What changed between two answers is not seen.
   */
  private serverTaskRow(facts: RequestFacts, call: CallEntry): void {
    const seen = readAnswerTaskStatus(this.answer, this.answerType, facts.id);
    if (!seen || this.answeredTask !== null) return;
    this.sinks.audit!.recordServerTask!({
      ...call, httpMethod: TASK_ROW_METHOD, rpcMethod: 'tools/call', rpcName: facts.method === 'tools/call' ? call.rpcName : null,
      body: 'none', status: null, rpcErrorCode: null, durationMs: 0, requestBytes: 0, responseBytes: 0, taskId: undefined,
      task: { task_id: seen.taskId, status: seen.status, change: 0, by: facts.method === 'tasks/cancel' ? this.caller : null, observed: true },
    });
  }

  private entry(facts: RequestFacts): CallEntry {
    return {
      at: new Date(this.at),
      connectorId: this.connectorId,
      caller: this.caller,
      sessionId: this.sessionHeader ?? this.answerSession,
      httpMethod: this.httpMethod,
      rpcMethod: facts.method,
      rpcName: auditedName(facts.method, facts.name),
      body: facts.body,
      status: this.res.headersSent ? this.res.statusCode : null,
      rpcErrorCode: readAnswerError(this.answer, this.answerType, facts.id),
      ...this.taskOf(facts),
      durationMs: Math.round((performance.now() - this.startedMs) * 1000) / 1000,
      requestBytes: this.requestBytes,
      responseBytes: this.responseBytes,
    };
  }

  /** A tools/call answered with a task, the service's or (relayed) its server's: the task it made. */
  private taskOf(facts: RequestFacts): Pick<CallEntry, 'taskId'> {
    if (facts.method !== 'tools/call') return {};
    const taskId = this.answeredTask ?? readAnswerTask(this.answer, this.answerType, facts.id);
    return taskId === null ? {} : { taskId };
  }
}
