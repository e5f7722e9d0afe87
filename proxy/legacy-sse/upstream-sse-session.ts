// One session with a legacy HTTP+SSE server (MCP 2024-11-05): a GET stream that carries everything
// the server says, opened with the connector's token; the `endpoint` event names where messages
// are POSTed, which must be on the connector URL's origin (a server cannot send the token, or the
// caller's requests, anywhere else); then the initialize handshake with the client's parameters.
// Requests and answers go through the proxy's upstream client, so the address guard, the header
// allow-list and the refresh-on-401 apply as to any connector.
import type { Logger } from '../../platform/logger';
import { ProblemError } from '../../contract/problem';
import type { ConnectedRoute } from '../route';
import type { UpstreamClient } from '../upstream-client';
import type { InitializeParams } from './bridge-session-id';
import { readSse } from './sse-reader';

export type RpcId = string | number;
export interface RpcMessage {
  jsonrpc: '2.0';
  id?: RpcId | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: unknown;
}

export interface SessionOptions {
  upstream: UpstreamClient;
  logger: Logger;
  connectorId: string;
  /** Largest event the stream may carry. */
  maxEventBytes: number;
}

/** The bridge's own initialize request id: the client's initialize was answered elsewhere, or never made here. */
const INITIALIZE_ID = 'connector-registry:initialize';
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const keyOf = (id: RpcId) => `${typeof id}:${id}`;

export class UpstreamSseSession {
  /** Told of what the server says of its own accord: notifications and requests. */
  onMessage: (message: RpcMessage) => void = () => undefined;
  /** Told once when the stream ends, whichever side ends it. */
  onClose: () => void = () => undefined;
  /** The server's answer to initialize. */
  initializeResult: unknown = null;
  usedAt = Date.now();
  closed = false;
  private endpointPath: string | null = null;
  private readonly waiters = new Map<string, { resolve(message: RpcMessage): void; reject(err: Error): void }>();
  private readonly stream = new AbortController();
  /** While the stream is opening: fails the opening. */
  private ending?: (why: Error) => void;

  private constructor(private readonly o: SessionOptions) {}

  /** Opens the stream, waits for the endpoint and initializes; rejects with what the client is to hear. */
  static async open(o: SessionOptions, route: ConnectedRoute, params: InitializeParams): Promise<UpstreamSseSession> {
    const session = new UpstreamSseSession(o);
    // The stream's status line is held to the upstream client's headers timeout; the endpoint and
    // the answer to initialize to as long again, so that a server that says nothing is not waited on for ever.
    const late = new ProblemError(504, 'The MCP server did not name its message endpoint and initialize in time.');
    const timer = setTimeout(() => session.close(late), o.upstream.timeouts.headersMs);
    try {
      await session.listen(route);
      const answer = await session.request(route, { jsonrpc: '2.0', id: INITIALIZE_ID, method: 'initialize', params: { ...params } });
      if (answer.error !== undefined) throw new ProblemError(502, `The MCP server refused to initialize: ${JSON.stringify(answer.error).slice(0, 512)}`);
      session.initializeResult = answer.result;
      await session.post(route, { jsonrpc: '2.0', method: 'notifications/initialized' });
      return session;
    } catch (err) {
      session.close();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends a request and resolves with the server's answer, whenever it comes on the stream. */
  request(route: ConnectedRoute, message: RpcMessage & { id: RpcId }, signal?: AbortSignal): Promise<RpcMessage> {
    const key = keyOf(message.id);
    if (this.waiters.has(key)) return Promise.reject(new ProblemError(400, 'A request with this id is already under way in this session.'));
    const answered = new Promise<RpcMessage>((resolve, reject) => this.waiters.set(key, { resolve, reject }));
    const forget = () => this.waiters.delete(key);
    signal?.addEventListener('abort', () => {
      this.waiters.get(key)?.reject(new Error('the client went away'));
      forget();
    }, { once: true });
    this.post(route, message, signal).catch((err: Error) => {
      this.waiters.get(key)?.reject(err);
      forget();
    });
    return answered.finally(forget);
  }

  /** POSTs a message to the endpoint; resolves once the server took it (its answer, if any, comes on the stream). */
  async post(route: ConnectedRoute, message: RpcMessage, signal?: AbortSignal): Promise<void> {
    if (this.closed || !this.endpointPath) throw new ProblemError(502, 'The MCP server closed its SSE stream.');
    this.usedAt = Date.now();
    const body = Buffer.from(JSON.stringify(message));
    const { answer } = await this.o.upstream.send(this.o.connectorId, route, { method: 'POST', headers: JSON_HEADERS, body, signal, path: this.endpointPath });
    answer.resume();
    const status = answer.statusCode ?? 502;
    if (status < 200 || status >= 300) throw new ProblemError(502, `The MCP server refused a message with HTTP ${status}.`);
  }

  /** `why`: what requests still waiting are told. */
  close(why = new ProblemError(502, 'The MCP server closed its SSE stream.')): void {
    if (this.closed) return;
    this.closed = true;
    this.stream.abort();
    this.ending?.(why);
    for (const waiter of this.waiters.values()) waiter.reject(why);
    this.waiters.clear();
    this.onClose();
  }

  private async listen(route: ConnectedRoute): Promise<void> {
    const headers = { accept: 'text/event-stream' };
    const { answer } = await this.o.upstream.send(this.o.connectorId, route, { method: 'GET', headers, signal: this.stream.signal });
    const type = String(answer.headers['content-type'] ?? '');
    if (answer.statusCode !== 200 || !type.startsWith('text/event-stream')) {
      answer.resume();
      throw new ProblemError(502, `The MCP server answered the SSE stream's GET with HTTP ${answer.statusCode} (${type || 'no content type'}).`);
    }
    const origin = new URL(route.target).origin;
    await new Promise<void>((resolve, reject) => {
      this.ending = reject;
      readSse(answer, (event) => {
        if (event.event === 'endpoint' && !this.endpointPath) {
          const endpoint = URL.canParse(event.data, route.target) ? new URL(event.data, route.target) : null;
          if (!endpoint || endpoint.origin !== origin) {
            reject(new ProblemError(502, "The MCP server announced a message endpoint on another origin than the connector's URL."));
            return this.close();
          }
          this.endpointPath = endpoint.pathname + endpoint.search;
          return resolve();
        }
        if (event.event === 'message') this.received(event.data);
      }, this.o.maxEventBytes).catch((err: Error) => {
        if (!this.closed) this.o.logger.warn({ connectorId: this.o.connectorId, err: err.message }, 'legacy SSE stream failed');
      }).finally(() => {
        reject(new ProblemError(502, 'The MCP server ended its SSE stream before naming its message endpoint.'));
        this.close();
      });
    });
  }

  private received(data: string): void {
    let message: RpcMessage;
    try {
      message = JSON.parse(data) as RpcMessage;
    } catch {
      return; // not JSON-RPC: nothing anyone could be answered with
    }
    if (typeof message !== 'object' || message === null) return;
    this.usedAt = Date.now();
    const waiter = message.method === undefined && message.id != null ? this.waiters.get(keyOf(message.id)) : undefined;
    if (waiter) return waiter.resolve(message);
    if (message.method !== undefined) this.onMessage(message);
  }
}
