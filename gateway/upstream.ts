// The gateway's single connection to the stdio server. The gateway is that server's only client:
// it finds out once which era the server speaks (child-era.ts), declaring the client capabilities
// it can relay, and hands every message that is not an answer to its own requests (or progress
// on them) to the router.
import {
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCResultResponse,
  type ClientCapabilities,
  type JSONRPCMessage,
  type Progress,
  type Result,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../platform/logger';
import { listChangesListen, negotiateChild, type ChildServer } from './child-era';
import { notifiedProgressToken } from './jsonrpc';
import type { StdioExit, StdioSource } from './stdio-source';

/** What the gateway can relay: each is answered by an HTTP session that declared it. */
export const RELAYED_CLIENT_CAPABILITIES: ClientCapabilities = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
};

const CLIENT_INFO = { name: 'connector-registry-gateway', version: '0.1.0' };

export type UpstreamState = 'starting' | 'ready' | 'exited';

// A write that failed because the server is going away: its exit, due any moment, says why
// better than EPIPE does. This long is waited for it.
const EXIT_GRACE_MS = 2000;

class WriteFailed extends Error {}

/**
 * The server's JSON-RPC error, as is: the SDK v2 Server answers a handler's error with its
 * `code`, `message` and `data` (v1's McpError would prefix the message with the code).
 */
export class UpstreamError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}

interface OwnRequest {
  resolve: (result: Result) => void;
  reject: (error: Error) => void;
  onprogress?: (progress: Progress) => void;
  /** Sent for a client of the gateway (a 2026-07-28 exchange), not for the gateway itself. */
  relayed: boolean;
}

export interface OwnRequestOptions {
  /** Rejects the request (and forgets it) when the server has not answered by then. */
  timeoutMs?: number;
  /** Progress the server reports on this request; its token is the request's own id upstream. */
  onprogress?: (progress: Progress) => void;
  /** Cancels the request upstream (notifications/cancelled) when aborted. */
  signal?: AbortSignal;
  /** For a client of the gateway: counts when the server asks "whoever called last" something. */
  relayed?: boolean;
}

export class Upstream {
  state: UpstreamState = 'starting';
  server?: ChildServer;
  exit?: StdioExit;
  /** Resolves with what the server said of itself (discover or initialize); rejects if it is gone first. */
  readonly ready: Promise<ChildServer>;
  readonly exited: Promise<StdioExit>;
  /** Every message from the server except answers to the gateway's own requests. */
  onmessage?: (message: JSONRPCMessage) => void;

  private closing = false;
  private lastId = 0;
  private readonly own = new Map<number, OwnRequest>();
  private settleReady!: { resolve: (r: ChildServer) => void; reject: (e: Error) => void };
  private resolveExited!: (exit: StdioExit) => void;

  constructor(private readonly source: StdioSource, private readonly logger: Logger, private readonly discoverTimeoutMs?: number) {
    this.ready = new Promise((resolve, reject) => (this.settleReady = { resolve, reject }));
    this.ready.catch(() => undefined);
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    source.onmessage = (message) => this.receive(message);
    source.onerror = (error) => this.logger.warn({ err: error.message }, 'stdio source error');
    source.onexit = (exit) => this.onExit(exit);
  }

  /** Ids for requests sent to the server, whoever they are for: one sequence, no collisions. */
  allocateId(): number {
    this.lastId += 1;
    return this.lastId;
  }

  async start(): Promise<void> {
    try {
      await this.source.start();
      const server = await negotiateChild({
        request: (method, params, timeoutMs) => this.request(method, params, { timeoutMs }),
        clientInfo: CLIENT_INFO,
        capabilities: RELAYED_CLIENT_CAPABILITIES,
        discoverTimeoutMs: this.discoverTimeoutMs,
      });
      if (server.era === 'legacy') {
        await this.send({ jsonrpc: '2.0', method: 'notifications/initialized' }).catch((error: Error) => {
          throw new WriteFailed(error.message);
        });
      }
      this.server = server;
      this.state = 'ready';
      this.logger.info({ server: server.serverInfo, protocolVersion: server.protocolVersion, era: server.era }, 'stdio server initialized');
      this.listenForListChanges(server);
      this.settleReady.resolve(server);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof WriteFailed) await this.exitWithin(EXIT_GRACE_MS);
      if (this.state !== 'exited') {
        this.logger.error({ err: message }, 'stdio server did not initialize');
        // Reported before closing, so that this reason wins over the close's own.
        this.onExit({ code: null, signal: null, reason: `stdio server failed to initialize: ${message}` });
        await this.source.close().catch(() => undefined);
      }
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.state === 'exited') throw new Error(this.exit?.reason ?? 'stdio server exited');
    await this.source.send(message);
  }

  /**
   * A request whose answer comes back here rather than to a session: the gateway's own, or one
   * relayed for a 2026-07-28 client. Rejects with an UpstreamError carrying the server's code.
   */
  request(method: string, params?: Record<string, unknown>, options: OwnRequestOptions = {}): Promise<Result> {
    const id = this.allocateId();
    const { onprogress, signal, timeoutMs, relayed = false } = options;
    const answer = new Promise<Result>((resolve, reject) => this.own.set(id, { resolve, reject, onprogress, relayed }));
    const outgoing = onprogress && params ? withToken(params, id) : params;
    this.send({ jsonrpc: '2.0', id, method, ...(outgoing ? { params: outgoing } : {}) }).catch((error: Error) => {
      this.settleOwn(id, (own) => own.reject(new WriteFailed(error.message)));
    });
    const timer = timeoutMs === undefined ? undefined
      : setTimeout(() => this.settleOwn(id, (own) => own.reject(new Error(`no answer to ${method} within ${timeoutMs} ms`))), timeoutMs);
    const cancel = () => this.cancelOwn(id, 'the client went away');
    signal?.addEventListener('abort', cancel, { once: true });
    return answer.finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
    });
  }

  /** The listen stays open as long as the server: it ends (and is not renewed) when the server goes. */
  private listenForListChanges(server: ChildServer): void {
    const params = listChangesListen(server, { clientInfo: CLIENT_INFO, capabilities: RELAYED_CLIENT_CAPABILITIES });
    if (!params) return;
    this.request('subscriptions/listen', params).then(
      () => this.logger.info('stdio server closed its subscriptions/listen stream'),
      (error: Error) => this.logger.debug({ err: error.message }, 'subscriptions/listen on the stdio server ended'),
    );
  }

  /** The newest request still unanswered that was relayed for a 2026-07-28 client, by upstream id. */
  latestRelayed(): number | undefined {
    let latest: number | undefined;
    for (const [id, own] of this.own) if (own.relayed && (latest === undefined || id > latest)) latest = id;
    return latest;
  }

  private settleOwn(id: number, settle: (own: OwnRequest) => void): void {
    const own = this.own.get(id);
    if (!own) return;
    this.own.delete(id);
    settle(own);
  }

  private cancelOwn(id: number, reason: string): void {
    if (!this.own.has(id)) return;
    this.settleOwn(id, (own) => own.reject(new UpstreamError(ErrorCode.RequestTimeout, 'request cancelled')));
    this.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } }).catch(() => undefined);
  }

  close(): Promise<void> {
    this.closing = true;
    return this.source.close();
  }

  private async exitWithin(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const elapsed = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([this.exited, elapsed]);
    clearTimeout(timer);
  }

  private receive(message: JSONRPCMessage): void {
    if (isJSONRPCNotification(message) && message.method === 'notifications/progress' && this.ownProgress(message.params)) return;
    const isAnswer = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
    const own = isAnswer && typeof message.id === 'number' ? this.own.get(message.id) : undefined;
    if (!own || !isAnswer || typeof message.id !== 'number') {
      this.onmessage?.(message);
      return;
    }
    this.own.delete(message.id);
    if (isJSONRPCResultResponse(message)) own.resolve(message.result);
    else own.reject(new UpstreamError(message.error.code, message.error.message, message.error.data));
  }

  /** Progress on one of the own requests goes to its listener; true when it was one. */
  private ownProgress(params: unknown): boolean {
    const token = notifiedProgressToken(params);
    const own = typeof token === 'number' ? this.own.get(token) : undefined;
    if (!own) return false;
    const { progressToken: _token, ...progress } = params as Progress & { progressToken: unknown };
    own.onprogress?.(progress as Progress);
    return true;
  }

  private onExit(exit: StdioExit): void {
    if (this.state === 'exited') return;
    this.state = 'exited';
    this.exit = exit;
    this.logger[this.closing ? 'info' : 'warn']({ code: exit.code, signal: exit.signal }, exit.reason);
    for (const pending of this.own.values()) pending.reject(new UpstreamError(ErrorCode.ConnectionClosed, exit.reason));
    this.own.clear();
    this.settleReady.reject(new Error(exit.reason));
    this.resolveExited(exit);
  }
}

/** The params with their progress token replaced by the upstream id (tokens are only unique per client). */
function withToken(params: Record<string, unknown>, id: number): Record<string, unknown> {
  const meta = (params._meta ?? {}) as Record<string, unknown>;
  return { ...params, _meta: { ...meta, progressToken: id } };
}
