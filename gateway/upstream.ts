// The gateway's single connection to the stdio server. The gateway is that server's only client:
// it initializes it once, declaring the client capabilities it can relay to HTTP sessions, and
// hands every message that is not an answer to its own requests to the router.
import {
  ErrorCode,
  InitializeResultSchema,
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  LATEST_PROTOCOL_VERSION,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
  type ClientCapabilities,
  type InitializeResult,
  type JSONRPCMessage,
  type Result,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../core/logger';
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

interface OwnRequest {
  resolve: (result: Result) => void;
  reject: (error: Error) => void;
}

export class Upstream {
  state: UpstreamState = 'starting';
  server?: InitializeResult;
  exit?: StdioExit;
  /** Resolves with the server's initialize result; rejects if the server is gone first. */
  readonly ready: Promise<InitializeResult>;
  readonly exited: Promise<StdioExit>;
  /** Every message from the server except answers to the gateway's own requests. */
  onmessage?: (message: JSONRPCMessage) => void;

  private closing = false;
  private lastId = 0;
  private readonly own = new Map<number, OwnRequest>();
  private settleReady!: { resolve: (r: InitializeResult) => void; reject: (e: Error) => void };
  private resolveExited!: (exit: StdioExit) => void;

  constructor(private readonly source: StdioSource, private readonly logger: Logger) {
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
      const server = await this.initialize();
      await this.send({ jsonrpc: '2.0', method: 'notifications/initialized' }).catch((error: Error) => {
        throw new WriteFailed(error.message);
      });
      this.server = server;
      this.state = 'ready';
      this.logger.info({ server: server.serverInfo, protocolVersion: server.protocolVersion }, 'stdio server initialized');
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

  /** A request of the gateway's own (not relayed for a session). */
  request(method: string, params?: Record<string, unknown>): Promise<Result> {
    const id = this.allocateId();
    const answer = new Promise<Result>((resolve, reject) => this.own.set(id, { resolve, reject }));
    this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }).catch((error: Error) => {
      this.own.get(id)?.reject(new WriteFailed(error.message));
      this.own.delete(id);
    });
    return answer;
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

  private async initialize(): Promise<InitializeResult> {
    const result = await this.request('initialize', {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: RELAYED_CLIENT_CAPABILITIES,
      clientInfo: CLIENT_INFO,
    });
    const server = InitializeResultSchema.parse(result);
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(server.protocolVersion)) {
      throw new Error(`unsupported protocol version ${server.protocolVersion}`);
    }
    return server;
  }

  private receive(message: JSONRPCMessage): void {
    const isAnswer = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
    const own = isAnswer && typeof message.id === 'number' ? this.own.get(message.id) : undefined;
    if (!own || !isAnswer || typeof message.id !== 'number') {
      this.onmessage?.(message);
      return;
    }
    this.own.delete(message.id);
    if (isJSONRPCResultResponse(message)) own.resolve(message.result);
    else own.reject(new McpError(message.error.code, message.error.message, message.error.data));
  }

  private onExit(exit: StdioExit): void {
    if (this.state === 'exited') return;
    this.state = 'exited';
    this.exit = exit;
    this.logger[this.closing ? 'info' : 'warn']({ code: exit.code, signal: exit.signal }, exit.reason);
    for (const pending of this.own.values()) pending.reject(new McpError(ErrorCode.ConnectionClosed, exit.reason));
    this.own.clear();
    this.settleReady.reject(new Error(exit.reason));
    this.resolveExited(exit);
  }
}
