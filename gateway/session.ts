// One MCP session of one HTTP client: its SDK transport (which owns the SSE streams and the
// Mcp-Session-Id checks), what its client declared, what it has asked the server and not yet
// been answered, and when it counts as idle or as abandoned right after initialize.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ClientCapabilities, Implementation, JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { idKey } from './jsonrpc';

export interface InflightRequest {
  clientId: RequestId;
  upstreamId: number;
}

export interface SessionTimeouts {
  /** How long a session may sit with nothing open and nothing pending. */
  idleMs: number;
  /** How long after its initialize a session may go without a request or a GET stream. */
  firstRequestMs: number;
}

export class GatewaySession {
  readonly transport: StreamableHTTPServerTransport;
  clientCapabilities: ClientCapabilities = {};
  clientInfo: Implementation = { name: 'unknown', version: 'unknown' };
  protocolVersion?: string;
  /** Resource URIs this session subscribed to through the gateway. */
  readonly subscriptions = new Set<string>();
  closed = false;
  onidle?: (why: string) => void;

  private readonly inflight = new Map<string, InflightRequest>();
  private openExchanges = 0;
  private openGetStreams = 0;
  private idleTimer?: NodeJS.Timeout;
  /** Whether the client has done more than initialize: sent a request or opened a GET stream. */
  private engaged = false;
  private firstRequestTimer?: NodeJS.Timeout;

  constructor(readonly id: string, private readonly timeouts: SessionTimeouts) {
    this.transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
  }

  /** Sends to the client; false when it cannot be delivered (stream gone, session closed). */
  async deliver(message: JSONRPCMessage, relatedRequestId?: RequestId): Promise<boolean> {
    if (this.closed) return false;
    try {
      await this.transport.send(message, relatedRequestId === undefined ? undefined : { relatedRequestId });
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  /**
   * Starts the wait for the client's first request. An initialize costs nothing to send, so a
   * session that does nothing after it gives its slot back soon, not after the idle timeout.
   */
  awaitFirstRequest(): void {
    const ms = this.timeouts.firstRequestMs;
    if (this.closed || this.engaged || this.firstRequestTimer || !validDelay(ms)) return;
    this.firstRequestTimer = setTimeout(() => {
      this.firstRequestTimer = undefined;
      if (!this.engaged) this.onidle?.(`no request within ${ms} ms of initialize`);
    }, ms);
    this.firstRequestTimer.unref();
  }

  /** The client sent a request (other than initialize) or opened a GET stream. */
  markEngaged(): void {
    this.engaged = true;
    clearTimeout(this.firstRequestTimer);
    this.firstRequestTimer = undefined;
  }

  addInflight(request: InflightRequest): void {
    this.inflight.set(idKey(request.clientId), request);
    this.stopIdleTimer();
  }

  takeInflight(clientId: RequestId): InflightRequest | undefined {
    const key = idKey(clientId);
    const request = this.inflight.get(key);
    this.inflight.delete(key);
    this.armIdleTimerIfIdle();
    return request;
  }

  findInflight(clientId: RequestId): InflightRequest | undefined {
    return this.inflight.get(idKey(clientId));
  }

  inflightRequests(): InflightRequest[] {
    return [...this.inflight.values()];
  }

  /** The request this session sent last among those still unanswered. */
  latestInflight(): InflightRequest | undefined {
    let latest: InflightRequest | undefined;
    for (const request of this.inflight.values()) {
      if (!latest || request.upstreamId > latest.upstreamId) latest = request;
    }
    return latest;
  }

  /** Whether a GET stream is open, so that messages outside any request can reach the client. */
  get listening(): boolean {
    return this.openGetStreams > 0;
  }

  /** Counts an HTTP exchange (a POST's response stream, a GET stream) as activity until it ends. */
  trackExchange(isGet: boolean, ended: (listener: () => void) => void): void {
    this.openExchanges += 1;
    if (isGet) {
      this.openGetStreams += 1;
      this.markEngaged();
    }
    this.stopIdleTimer();
    ended(() => {
      this.openExchanges -= 1;
      if (isGet) this.openGetStreams -= 1;
      this.armIdleTimerIfIdle();
    });
  }

  markClosed(): void {
    this.closed = true;
    this.stopIdleTimer();
    clearTimeout(this.firstRequestTimer);
  }

  // Idle means nobody is listening and nothing is pending: an open GET stream is a client
  // waiting for notifications, not an abandoned session.
  private armIdleTimerIfIdle(): void {
    if (this.closed || this.openExchanges > 0 || this.inflight.size > 0 || this.idleTimer) return;
    if (!validDelay(this.timeouts.idleMs)) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      this.onidle?.('idle');
    }, this.timeouts.idleMs);
    this.idleTimer.unref();
  }

  private stopIdleTimer(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }
}

function validDelay(ms: number): boolean {
  return Number.isFinite(ms) && ms > 0;
}
