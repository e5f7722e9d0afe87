// A legacy HTTP+SSE server (MCP 2024-11-05) served to clients as Streamable HTTP, at the
// connector's usual MCP path. The client's initialize is answered from an upstream session the
// bridge opens with the client's parameters, and the session id it gets carries them
// (bridge-session-id.ts). Each proxy replica keeps its own upstream sessions, one per connector,
// caller and client session, opened on the first request that needs one there: a client whose
// requests a balancer spreads over replicas is served by each, at the price of one upstream
// session (and handshake) per replica. What the server keeps per session (subscriptions, log
// level) is therefore per replica, and a server request is answered on the replica that asked it
// only (docs/architecture.md, "Legacy HTTP+SSE servers").
//
// Requests are answered with the server's answer as JSON, or as an SSE stream when the client
// accepts one: then what the server says meanwhile (progress for the call, and, with no GET stream
// open, its other notifications and requests) goes on that stream first.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../platform/logger';
import type { Caller } from '../../callers/caller';
import { ProblemError } from '../../contract/problem';
import { refusalProblem, rpcRequestIn, sendMcpProblem, sendProblem, stepUpProblem, type RpcRequest } from '../problem-response';
import type { ConnectedRoute, Route } from '../route';
import { readBody } from '../rpc-headers';
import { UpstreamRefused, UpstreamScope, type UpstreamClient } from '../upstream-client';
import { isInitializeParams, paramsOf, sessionIdOf, type InitializeParams } from './bridge-session-id';
import { UpstreamSseSession, type RpcId, type RpcMessage } from './upstream-sse-session';

export interface SseBridgeOptions {
  upstream: UpstreamClient;
  logger: Logger;
  /** Largest request body read (the proxy's checked-body limit). */
  bodyLimitBytes: number;
  /** An upstream session unused this long, with no stream open, is closed (default 10 min). */
  idleMs?: number;
  /** Upstream sessions this process holds at most; the one opened first goes first (default 1000). */
  maxSessions?: number;
  /** Of those, one caller's on one connector (default 100): a caller churning ids closes its own first. */
  maxPerCaller?: number;
  /** Whether a tools/call names a tool held for approval: such a server cannot run a task, so the call is refused, never made. */
  heldTool?: (route: ConnectedRoute, tool: string) => boolean;
}

/** A client's stream on which the server's own messages are relayed. */
interface ClientStream {
  res: ServerResponse;
  /** A call's stream: its progress token, when it gave one. */
  progressToken?: unknown;
}

/** A toolset's ear on its member session (proxy/toolset/sse-members.ts): it has no client stream of its own. */
export interface MemberHearer {
  /** What the server says of its own accord: a notification or a request. */
  message(message: RpcMessage): void;
  /** The upstream session closed. */
  end(): void;
}

interface Held {
  /** The URL the stream was opened on. */
  target: string;
  opening: Promise<UpstreamSseSession>;
  session: UpstreamSseSession | null;
  listeners: Set<ClientStream>;
  calls: ClientStream[];
  /** A toolset member session's hearers. */
  hearers: Set<MemberHearer>;
}

const MAX_EVENT_BYTES = 4 * 1024 * 1024;

export class SseBridge {
  private readonly held = new Map<string, Held>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly o: SseBridgeOptions) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, this.idleMs)).unref();
  }

  private get idleMs(): number {
    return this.o.idleMs ?? 10 * 60_000;
  }

  handle(req: IncomingMessage, res: ServerResponse, connectorId: string, route: ConnectedRoute, caller: Caller): void {
    const sessionId = headerOf(req, 'mcp-session-id');
    if (req.method === 'POST') {
      readBody(req, this.o.bodyLimitBytes).then(
        (body) => this.post(res, { connectorId, route, caller, sessionId, accept: headerOf(req, 'accept') ?? '' }, body),
        () => undefined, // the caller went away
      ).catch((err: unknown) => this.failed(res, connectorId, err, null));
      return;
    }
    const params = sessionId ? paramsOf(sessionId) : null;
    if (!sessionId || !params) return sendProblem(res, noSession(sessionId));
    const key = keyOf(connectorId, caller, sessionId);
    if (req.method === 'DELETE') {
      this.drop(key);
      res.writeHead(200).end();
      return;
    }
    this.session(key, connectorId, route, params).then((held) => this.listen(held, res), (err) => this.failed(res, connectorId, err, null));
  }

  /** Whether this process holds upstream sessions for the connector. */
  holds(connectorId: string): boolean {
    for (const key of this.held.keys()) if (key.startsWith(`${connectorId}\n`)) return true;
    return false;
  }

  /**
   * The connector's route as it now is: its upstream sessions are closed unless it is still
   * connected to the same server over SSE (a token refreshed keeps them: the next POST carries it).
   */
  settle(connectorId: string, route: Route): void {
    const same = route.kind === 'connected' && route.transport === 'sse';
    for (const [key, held] of this.held) {
      if (key.startsWith(`${connectorId}\n`) && !(same && held.target === route.target)) this.drop(key);
    }
  }

  /** Closes a connector's upstream sessions; clients' next requests open new ones. */
  forget(connectorId: string): void {
    for (const key of this.held.keys()) if (key.startsWith(`${connectorId}\n`)) this.drop(key);
  }

  /**
   * A toolset's member session on the server (proxy/toolset/sse-members.ts): the same upstream
   * sessions as a client's, keyed by the session id the toolset keeps (never shown to a caller),
   * opened anew from the parameters it carries when this replica has none.
   */
  async memberSession(connectorId: string, route: ConnectedRoute, sessionId: string): Promise<UpstreamSseSession> {
    const params = paramsOf(sessionId);
    if (!params) throw new ProblemError(502, 'The toolset kept a member session id the bridge did not make.');
    return (await this.session(memberKeyOf(connectorId, sessionId), connectorId, route, params)).session!;
  }

  /**
   * `hearer` is told what the server says of its own accord in a toolset's member session (opened
   * as memberSession does) until the returned function is called, and when that session closes.
   */
  async hearMember(connectorId: string, route: ConnectedRoute, sessionId: string, hearer: MemberHearer): Promise<() => void> {
    await this.memberSession(connectorId, route, sessionId);
    const held = this.held.get(memberKeyOf(connectorId, sessionId));
    if (!held?.session || held.session.closed) {
      hearer.end();
      return () => undefined;
    }
    held.hearers.add(hearer);
    return () => held.hearers.delete(hearer);
  }

  /** Ends a toolset's member session. */
  dropMember(connectorId: string, sessionId: string): void {
    this.drop(memberKeyOf(connectorId, sessionId));
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const key of [...this.held.keys()]) this.drop(key);
  }

  private async post(res: ServerResponse, at: PostContext, body: Buffer | null): Promise<void> {
    if (body === null) return sendProblem(res, new ProblemError(413, `The request body is over ${this.o.bodyLimitBytes} bytes.`), { connection: 'close' });
    let message: RpcMessage;
    try {
      message = JSON.parse(body.toString('utf8')) as RpcMessage;
    } catch {
      return sendRpcError(res, 400, null, -32700, 'The body is not JSON.');
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message) || message.jsonrpc !== '2.0') {
      return sendRpcError(res, 400, null, -32600, 'The body is not one JSON-RPC message (batches are not relayed to an SSE server).');
    }
    const rpc = rpcRequestIn(message);
    if (message.method === 'tools/call' && this.o.heldTool?.(at.route, String((message.params as { name?: unknown } | undefined)?.name ?? ''))) {
      return sendProblem(res, new ProblemError(403, 'This tool is held for approval, and a server of the HTTP+SSE transport (2024-11-05) cannot wait for one: the call was not made.'));
    }
    try {
      if (message.method === 'initialize' && message.id != null) return await this.initialize(res, at, message as RpcMessage & { id: RpcId });
      const params = at.sessionId ? paramsOf(at.sessionId) : null;
      if (!at.sessionId || !params) return sendMcpProblem(res, noSession(at.sessionId), {}, rpc);
      const held = await this.session(keyOf(at.connectorId, at.caller, at.sessionId), at.connectorId, at.route, params);
      const session = held.session!;
      if (message.method === undefined || message.id == null) {
        // The bridge sent its own `initialized` when it opened the upstream session.
        if (message.method !== 'notifications/initialized') await session.post(at.route, message);
        res.writeHead(202).end();
        return;
      }
      await this.call(res, at, held, message as RpcMessage & { id: RpcId });
    } catch (err) {
      this.failed(res, at.connectorId, err, rpc);
    }
  }

  private async initialize(res: ServerResponse, at: PostContext, message: RpcMessage & { id: RpcId }): Promise<void> {
    if (!isInitializeParams(message.params)) return sendRpcError(res, 400, message.id, -32602, 'initialize needs protocolVersion, capabilities and clientInfo.');
    const params: InitializeParams = { protocolVersion: message.params.protocolVersion, capabilities: message.params.capabilities, clientInfo: message.params.clientInfo };
    const sessionId = sessionIdOf(params);
    const held = await this.session(keyOf(at.connectorId, at.caller, sessionId), at.connectorId, at.route, params);
    const answer = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: held.session!.initializeResult });
    res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': sessionId }).end(answer);
  }

  /** A request: relayed, and answered with the server's answer once it comes on the stream. */
  private async call(res: ServerResponse, at: PostContext, held: Held, message: RpcMessage & { id: RpcId }): Promise<void> {
    const session = held.session!;
    const gone = new AbortController();
    const streamed = at.accept.includes('text/event-stream');
    const stream: ClientStream = { res, progressToken: (message.params?._meta as { progressToken?: unknown } | undefined)?.progressToken };
    if (streamed) held.calls.push(stream);
    const left = () => {
      if (res.writableEnded) return;
      gone.abort();
      const cancelled = { jsonrpc: '2.0' as const, method: 'notifications/cancelled', params: { requestId: message.id, reason: 'the client went away' } };
      session.post(at.route, cancelled).catch(() => undefined);
    };
    res.once('close', left);
    try {
      const answer = await session.request(at.route, message, gone.signal);
      if (res.destroyed) return;
      if (!res.headersSent) {
        res.writeHead(200, { 'content-type': streamed ? 'text/event-stream' : 'application/json', 'cache-control': 'no-cache' });
      }
      res.end(streamed ? sseEvent(answer) : JSON.stringify(answer));
    } finally {
      res.off('close', left);
      held.calls = held.calls.filter((c) => c !== stream);
    }
  }

  private listen(held: Held, res: ServerResponse): void {
    if (res.destroyed) return;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const stream: ClientStream = { res };
    held.listeners.add(stream);
    res.once('close', () => held.listeners.delete(stream));
  }

  /** The replica's upstream session for this key, opened (once, however many ask at the same time) if there is none. */
  private session(key: string, connectorId: string, route: ConnectedRoute, params: InitializeParams): Promise<Held> {
    const known = this.held.get(key);
    if (known && !known.session?.closed) return known.opening.then(() => known);
    const held: Held = { target: route.target, session: null, listeners: new Set(), calls: [], hearers: new Set(), opening: null as unknown as Promise<UpstreamSseSession> };
    held.opening = UpstreamSseSession.open({ upstream: this.o.upstream, logger: this.o.logger, connectorId, maxEventBytes: MAX_EVENT_BYTES }, route, params);
    this.held.set(key, held);
    this.evictOverflow(key);
    return held.opening.then((session) => {
      held.session = session;
      session.onMessage = (m) => this.relay(held, session, route, m);
      session.onClose = () => {
        if (this.held.get(key) === held) this.held.delete(key);
        for (const { res } of held.listeners) res.end();
        for (const hearer of held.hearers) hearer.end();
      };
      return held;
    }, (err: unknown) => {
      if (this.held.get(key) === held) this.held.delete(key);
      throw err;
    });
  }

  /** What the server says of its own accord, to the client stream it belongs on. */
  private relay(held: Held, session: UpstreamSseSession, route: ConnectedRoute, message: RpcMessage): void {
    const isRequest = message.id != null;
    if (held.hearers.size) {
      for (const hearer of isRequest ? [...held.hearers].slice(0, 1) : held.hearers) hearer.message(message);
      return;
    }
    const token = message.method === 'notifications/progress' ? message.params?.progressToken : undefined;
    const call = token !== undefined ? held.calls.find((c) => c.progressToken === token) : undefined;
    const live = (streams: Iterable<ClientStream>) => [...streams].filter(({ res }) => !res.destroyed && !res.writableEnded);
    const listeners = live(held.listeners);
    const targets = call ? live([call]) : listeners.length ? listeners : live(held.calls).slice(-1);
    if (!targets.length) {
      if (isRequest) {
        const refusal = { jsonrpc: '2.0' as const, id: message.id, error: { code: -32603, message: 'The client has no stream open on which to be asked.' } };
        session.post(route, refusal).catch(() => undefined);
      }
      return;
    }
    for (const { res } of isRequest ? targets.slice(0, 1) : targets) {
      if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(sseEvent(message));
    }
  }

  private failed(res: ServerResponse, connectorId: string, err: unknown, rpc: RpcRequest | null): void {
    if (res.destroyed) return;
    if (res.headersSent) return void res.destroy();
    if (err instanceof UpstreamRefused) {
      this.forget(connectorId);
      const { problem, headers } = refusalProblem(err.route, err.status);
      return sendMcpProblem(res, problem, headers, rpc);
    }
    if (err instanceof UpstreamScope) return sendMcpProblem(res, stepUpProblem(err.scope, err.answer?.authorizationUrl ?? null, err.answer?.reason ?? null), {}, rpc);
    if (err instanceof ProblemError) return sendMcpProblem(res, err, {}, rpc);
    this.o.logger.error({ err, connectorId }, 'legacy SSE bridge failure');
    sendMcpProblem(res, new ProblemError(502, 'The proxy failed to reach the SSE server.'), {}, rpc);
  }

  private drop(key: string): void {
    const held = this.held.get(key);
    if (!held) return;
    this.held.delete(key);
    held.opening.then((session) => session.close(), () => undefined);
  }

  private sweep(): void {
    const before = Date.now() - this.idleMs;
    for (const [key, held] of this.held) {
      if (held.session && held.session.usedAt < before && !held.listeners.size && !held.calls.length && !held.hearers.size) this.drop(key);
    }
  }

  private evictOverflow(opened: string): void {
    // Map order is insertion order: the oldest opened goes (a session in use is opened again on its next request).
    const callerPrefix = opened.slice(0, opened.lastIndexOf('\n') + 1);
    const callers = [...this.held.keys()].filter((key) => key.startsWith(callerPrefix));
    if (callers.length > (this.o.maxPerCaller ?? 100)) this.drop(callers[0]!);
    if (this.held.size > (this.o.maxSessions ?? 1000)) this.drop(this.held.keys().next().value!);
  }
}

interface PostContext {
  connectorId: string;
  route: ConnectedRoute;
  caller: Caller;
  sessionId: string | null;
  accept: string;
}

const keyOf = (connectorId: string, caller: Caller, sessionId: string) => `${connectorId}\n${caller.subject ?? ''}\n${sessionId}`;
/** A toolset's member sessions: a caller subject no key of a caller's has (theirs are never empty with a tab). */
const memberKeyOf = (connectorId: string, sessionId: string) => `${connectorId}\n\ttoolset\n${sessionId}`;

function headerOf(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
}

function noSession(sessionId: string | null): ProblemError {
  return sessionId
    ? new ProblemError(404, 'No session has this id: send initialize again.', 'session-not-found')
    : new ProblemError(400, 'This request needs the Mcp-Session-Id that initialize answered with.');
}

export function sseEvent(message: RpcMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

function sendRpcError(res: ServerResponse, status: number, id: RpcId | null | undefined, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: { code, message } }));
}
