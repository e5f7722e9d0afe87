// How a toolset sends one JSON-RPC message to a member, at the member's own revision, through the
// proxy's one upstream client (its token, pools, address guard, refresh and refusal rules):
// - a 2026-07-28 member gets the message as it came from a 2026 client (its `_meta` carries the
//   client's capabilities, so elicitation and sampling ask the client through input_required), or
//   with an envelope of the toolset's for a 2025 client (declaring what that client can answer when
//   the toolset asks it for the member, input-bridge.ts; else nothing);
// - a 2025 member gets it in the caller's member session (MemberSessions: a 2025 toolset session's,
//   or the 2026 caller's own), opened on demand with `initialize` declaring the client's
//   capabilities, and opened again, once, when the member says it forgot it (404).
import type { IncomingHttpHeaders } from 'node:http';
import { ProblemError } from '../../contract/problem';
import type { UpstreamClient, UpstreamReply } from '../upstream-client';
import { responseOf } from './member-answer';
import type { MemberEras } from './member-eras';
import { legacyHeaders, modernHeaders, type MemberSession, type MemberTarget } from './member-wire';
import { META, MODERN_VERSION, metaOf, paramsOf, type RpcMessage } from './rpc';
import { syntheticReply, type SseMembers } from './sse-members';


/** Where a caller's member sessions are kept, and what members are told of the client. */
export interface MemberSessions {
  /** The 2025 revision asked for in `initialize`. */
  readonly protocolVersion: string;
  readonly clientCapabilities: Record<string, unknown>;
  readonly clientInfo: Record<string, unknown>;
  /** What a 2026 member is told a 2025 client can answer (absent: nothing; input-bridge.ts asks it for the member). */
  readonly inputCapabilities?: Record<string, unknown>;
  get(connectorId: string): MemberSession | undefined;
  /** Keeps `fresh` unless another request kept one meanwhile (not `replacing`): answers the one kept. */
  keep(connectorId: string, fresh: MemberSession, replacing: MemberSession | undefined): Promise<MemberSession>;
}

export interface SendOptions {
  /** Headers of the caller's that members get too (Mcp-Param-*: they mirror the arguments). */
  headers?: IncomingHttpHeaders;
  signal?: AbortSignal;
}

const INITIALIZE_ID = 'toolset-initialize';

export class MemberLink {
  /** `sse`: how members of the HTTP+SSE transport are reached (absent: they are not). */
  constructor(private readonly upstream: UpstreamClient, private readonly eras: MemberEras, private readonly sse?: SseMembers) {}

  /** The member's answer to `message`, its body unread; rejects as UpstreamClient.send does. */
  async send(target: MemberTarget, message: RpcMessage, sessions: MemberSessions, options: SendOptions = {}): Promise<UpstreamReply> {
    if (target.route.transport === 'sse') return this.sendSse(target, message, sessions, options.signal);
    const era = await this.eras.of(target, options.signal);
    if (era === 'modern') {
      const body = Buffer.from(JSON.stringify(withEnvelope(message, sessions)));
      return this.upstream.send(target.connectorId, target.route, { method: 'POST', headers: modernHeaders(message, options.headers), body, signal: options.signal });
    }
    const body = Buffer.from(JSON.stringify(message));
    let session = sessions.get(target.connectorId) ?? (await this.openKept(target, sessions, undefined, options.signal));
    for (let attempt = 1; ; attempt++) {
      const reply = await this.upstream.send(target.connectorId, target.route, { method: 'POST', headers: legacyHeaders(session, options.headers), body, signal: options.signal });
      // 404 to a session: the member forgot it (a restart, an expiry). A new one, once.
      if (reply.answer.statusCode !== 404 || session.sessionId === null || attempt > 1) return reply;
      reply.answer.resume();
      session = await this.openKept(target, sessions, session, options.signal);
    }
  }

  /** An SSE member: its session in the bridge, kept like a 2025 member's (the bridge reopens one it lost by itself). */
  private async sendSse(target: MemberTarget, message: RpcMessage, sessions: MemberSessions, signal?: AbortSignal): Promise<UpstreamReply> {
    if (!this.sse) throw new ProblemError(502, 'This proxy reaches no member of the HTTP+SSE transport.');
    const sse = this.sse;
    let session = sessions.get(target.connectorId);
    if (!session) {
      const fresh = await sse.open(target, sessions);
      session = await sessions.keep(target.connectorId, fresh, undefined);
      if (session.sessionId !== fresh.sessionId) sse.close(target, fresh); // another request's won
    }
    return sse.send(target, session, message, signal);
  }

  /** A 2025 member session's own stream (GET): what the member sends outside any request. */
  listen(target: MemberTarget, session: MemberSession, signal: AbortSignal): Promise<UpstreamReply> {
    // An SSE server's one stream is the bridge's upstream session's: what it carries outside any call.
    if (target.route.transport === 'sse') return this.sse ? this.sse.listen(target, session, signal) : Promise.resolve(syntheticReply(target.route, 405, null));
    const headers = { ...legacyHeaders(session), accept: 'text/event-stream' };
    return this.upstream.send(target.connectorId, target.route, { method: 'GET', headers, signal });
  }

  /** Ends a member session (best effort: the member also forgets idle sessions by itself). */
  async close(target: MemberTarget, session: MemberSession): Promise<void> {
    if (session.sessionId === null) return;
    if (target.route.transport === 'sse') return this.sse?.close(target, session);
    const reply = await this.upstream.send(target.connectorId, target.route, { method: 'DELETE', headers: legacyHeaders(session) }).catch(() => null);
    reply?.answer.resume();
  }

  private async openKept(target: MemberTarget, sessions: MemberSessions, replacing: MemberSession | undefined, signal?: AbortSignal): Promise<MemberSession> {
    const fresh = await this.open(target, sessions, signal);
    const kept = await sessions.keep(target.connectorId, fresh, replacing);
    if (kept.sessionId !== fresh.sessionId) void this.close(target, fresh); // another request's won
    return kept;
  }

  private async open(target: MemberTarget, sessions: MemberSessions, signal?: AbortSignal): Promise<MemberSession> {
    const initialize: RpcMessage = {
      jsonrpc: '2.0', id: INITIALIZE_ID, method: 'initialize',
      params: { protocolVersion: sessions.protocolVersion, capabilities: sessions.clientCapabilities, clientInfo: sessions.clientInfo },
    };
    const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    const reply = await this.upstream.send(target.connectorId, target.route, { method: 'POST', headers, body: Buffer.from(JSON.stringify(initialize)), signal });
    const { answer } = reply;
    const sessionId = typeof answer.headers['mcp-session-id'] === 'string' ? answer.headers['mcp-session-id'] : null;
    const response = answer.statusCode === 200 ? await responseOf(answer, INITIALIZE_ID) : (answer.resume(), null);
    if (!response?.result) throw new ProblemError(502, `The MCP server refused to open a session (HTTP ${answer.statusCode}${response?.error ? `, ${response.error.message}` : ''}).`);
    const agreed = response.result.protocolVersion;
    const session = { sessionId, protocolVersion: typeof agreed === 'string' ? agreed : sessions.protocolVersion };
    const initialized = Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    const told = await this.upstream.send(target.connectorId, reply.route, { method: 'POST', headers: legacyHeaders(session), body: initialized, signal });
    told.answer.resume();
    return session;
  }
}



/** The message with a 2026-07-28 envelope: a 2026 client's as it sent it, else the toolset's. */
function withEnvelope(message: RpcMessage, sessions: MemberSessions): RpcMessage {
  const params = paramsOf(message);
  const meta = metaOf(params);
  if (typeof meta[META.protocolVersion] === 'string') return message;
  const envelope = { ...meta, [META.protocolVersion]: MODERN_VERSION, [META.clientInfo]: sessions.clientInfo, [META.clientCapabilities]: sessions.inputCapabilities ?? {} };
  return { ...message, params: { ...params, _meta: envelope } };
}

