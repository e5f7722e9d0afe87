// One MCP session of one HTTP client: its SDK transport (which owns the SSE streams and the
// Mcp-Session-Id checks), what its client declared, what it has asked the server and not yet
// been answered, and when it counts as idle.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ClientCapabilities, JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { idKey } from './jsonrpc';

export interface InflightRequest {
  clientId: RequestId;
  upstreamId: number;
}

export class GatewaySession {
  readonly transport: StreamableHTTPServerTransport;
  clientCapabilities: ClientCapabilities = {};
  protocolVersion?: string;
  /** Resource URIs this session subscribed to through the gateway. */
  readonly subscriptions = new Set<string>();
  closed = false;
  onidle?: () => void;

  private readonly inflight = new Map<string, InflightRequest>();
  private openExchanges = 0;
  private openGetStreams = 0;
  private idleTimer?: NodeJS.Timeout;

  constructor(readonly id: string, private readonly idleTimeoutMs: number) {
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
    if (isGet) this.openGetStreams += 1;
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
  }

  // Idle means nobody is listening and nothing is pending: an open GET stream is a client
  // waiting for notifications, not an abandoned session.
  private armIdleTimerIfIdle(): void {
    if (this.closed || this.openExchanges > 0 || this.inflight.size > 0 || this.idleTimer) return;
    if (!Number.isFinite(this.idleTimeoutMs) || this.idleTimeoutMs <= 0) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      this.onidle?.();
    }, this.idleTimeoutMs);
    this.idleTimer.unref();
  }

  private stopIdleTimer(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }
}
