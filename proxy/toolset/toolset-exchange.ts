// One admitted request to a toolset, dispatched by its revision: a 2026-07-28 request is served on
// its own (the caller's member sessions, where a 2025 member needs one, are the caller's own); a
// 2025 POST belongs to a session (`initialize` opens one), and so do the GET stream and the DELETE
// that ends it. A refusal is thrown as a ProblemError; the endpoint answers it (in JSON-RPC to a
// JSON-RPC request).
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Caller } from '../../callers/caller';
import { ProblemError } from '../../contract/problem';
import type { ToolsetRecord } from '../../contract/toolset-record';
import { mayUse, type Grant } from './access';
import type { CallerMemberSessions } from './caller-member-sessions';
import type { ChangeWatch } from './change-watch';
import { clientEraOf } from './client-request';
import { ownerKey, type FoundSession, type LegacySessions } from './legacy-sessions';
import { memberRequestId } from './member-ids';
import type { MemberSessions } from './member-link';
import { answerMember } from './member-relay';
import { serveListen } from './listen-streams';
import {
  asMessage, errorMessage, isNotification, isObject, isRequest, isResponse, legacyVersionFor, paramsOf, resultMessage, type RpcId, type RpcMessage,
} from './rpc';
import type { SessionStreams } from './session-streams';
import { sendAccepted, sendMessage } from './toolset-answers';
import { serverInfoOf, type ToolsetContext, type ToolsetDeps } from './toolset-context';
import { answerSessionOf, answerableCapabilities, isInputRequestId, keepAnswer } from './input-bridge';
import { routeRequest, serverDescription } from './toolset-router';
import { onceClosed } from '../../platform/response-closed';

export interface ExchangeDeps {
  deps: ToolsetDeps;
  sessions: LegacySessions;
  streams: SessionStreams;
  watch: ChangeWatch;
  callerSessions: CallerMemberSessions;
}

/** What a client may declare of itself at initialize, kept with its session. */
const CLIENT_LIMIT_BYTES = 64 * 1024;
/** Client notifications members get too (in their sessions of this toolset session). */
const FOR_MEMBERS = new Set(['notifications/cancelled', 'notifications/roots/list_changed']);

/** What a 2025 member may ask a 2026 client through a continuation (member-continuations.ts). */
const CONTINUABLE = Object.freeze({ elicitation: {}, sampling: {} });

export class ToolsetExchange {
  private readonly signal: AbortSignal;

  constructor(private readonly x: ExchangeDeps, private readonly req: IncomingMessage, private readonly res: ServerResponse,
    private readonly toolset: ToolsetRecord, private readonly caller: Caller, private readonly grant: Grant) {
    const gone = new AbortController();
    onceClosed(res, () => {
      if (!res.writableFinished) gone.abort();
    });
    this.signal = gone.signal;
  }

  async serve(parsed: unknown): Promise<void> {
    if (this.req.method === 'GET') return this.stream();
    if (this.req.method === 'DELETE') return this.end();
    const message = asMessage(parsed);
    if (!message) throw new ProblemError(400, 'The body is not one JSON-RPC message (the toolset serves no batches).');
    const era = clientEraOf(this.req, message);
    if ('refusal' in era) return sendMessage(this.res, 400, errorMessage(message.id ?? null, era.refusal));
    return era.era === 'modern' ? this.modern(message, era.capabilities) : this.legacy(message);
  }

  private async modern(message: RpcMessage, capabilities: Record<string, unknown>): Promise<void> {
    if (isNotification(message)) return sendAccepted(this.res); // none is defined over HTTP at 2026-07-28
    if (!isRequest(message)) return sendMessage(this.res, 400, errorMessage(null, { code: -32600, message: 'JSON-RPC responses are not posted at 2026-07-28.' }));
    if (message.method === 'subscriptions/listen') return serveListen(this.res, message, this.toolset.id, this.x.watch);
    const sessions = this.x.callerSessions.of(this.toolset.id, ownerKey(this.caller), this.x.deps.inputBridge ? CONTINUABLE : {});
    await routeRequest(this.context('modern', capabilities, sessions), this.res, message);
  }

  private async legacy(message: RpcMessage): Promise<void> {
    if (isRequest(message) && message.method === 'initialize') return this.initialize(message);
    const session = await this.session();
    const ctx = this.legacyContext(session);
    if (isRequest(message)) return routeRequest(ctx, this.res, message);
    if (isResponse(message) && isInputRequestId(message.id)) await this.keepInput(ctx, message);
    else if (isResponse(message)) await this.answerMember(ctx, message);
    else if (isNotification(message) && FOR_MEMBERS.has(message.method)) await this.tellMembers(ctx, session, message);
    sendAccepted(this.res);
  }

  private async initialize(message: RpcMessage & { id: RpcId }): Promise<void> {
    const params = paramsOf(message);
    const protocolVersion = legacyVersionFor(params.protocolVersion);
    const clientCapabilities = isObject(params.capabilities) ? params.capabilities : {};
    const clientInfo = isObject(params.clientInfo) ? params.clientInfo : {};
    if (JSON.stringify([clientCapabilities, clientInfo]).length > CLIENT_LIMIT_BYTES) {
      throw new ProblemError(400, `The client's capabilities and info are over ${CLIENT_LIMIT_BYTES} bytes.`);
    }
    const id = await this.x.sessions.open(this.caller, { toolsetId: this.toolset.id, protocolVersion, clientCapabilities, clientInfo });
    if (id === null) {
      const detail = `This caller already holds ${this.x.sessions.limits.maxPerOwner} toolset sessions, the most allowed; end one (DELETE) or let one expire.`;
      throw new ProblemError(429, detail, 'quota-exceeded');
    }
    const result = { protocolVersion, ...serverDescription({ toolset: this.toolset }), serverInfo: serverInfoOf(this.toolset) };
    sendMessage(this.res, 200, resultMessage(message.id, result), { 'mcp-session-id': id });
  }

  /** The session's GET stream (server → client messages), held by this replica. */
  private async stream(): Promise<void> {
    const session = await this.session();
    const ctx = this.context('legacy', session.record.clientCapabilities, this.x.sessions.memberSessions(session));
    this.x.streams.serve(ctx, this.res, session);
  }

  /** DELETE: the session ends for every replica, and its members' sessions with it. */
  private async end(): Promise<void> {
    const session = await this.session();
    if (!(await this.x.sessions.end(session))) throw notFound();
    this.res.writeHead(200).end();
  }

  private async session(): Promise<FoundSession> {
    const session = await this.x.sessions.find(this.req, this.toolset, this.caller);
    if (session) return session;
    if (this.req.headers['mcp-session-id'] === undefined) throw new ProblemError(400, 'Mcp-Session-Id header is required: initialize a session first.');
    throw notFound();
  }

  /** A 2025 session's context: its member sessions, and where its answers to members' questions meet their calls. */
  private legacyContext(session: FoundSession): ToolsetContext {
    const sessions = this.x.sessions.memberSessions(session);
    const bridge = this.x.deps.inputBridge;
    if (!bridge) return this.context('legacy', session.record.clientCapabilities, sessions);
    const inputCapabilities = answerableCapabilities(session.record.clientCapabilities);
    return { ...this.context('legacy', session.record.clientCapabilities, { ...sessions, inputCapabilities }), answerSession: answerSessionOf(session.owner, session.id) };
  }

  /** The client's answer to a question the toolset asked for a 2026 member: kept for the replica whose call waits on it. */
  private async keepInput(ctx: ToolsetContext, message: RpcMessage): Promise<void> {
    if (ctx.answerSession && this.x.deps.inputBridge) await keepAnswer(this.x.deps.inputBridge, ctx.answerSession, message);
  }

  /** The client's answer to a member's request goes to that member, with the id the member used. */
  private async answerMember(ctx: ToolsetContext, message: RpcMessage): Promise<void> {
    const asked = memberRequestId(message.id);
    const member = asked && this.toolset.members.find((m) => m.prefix === asked.prefix);
    if (!asked || !member) return;
    const route = await ctx.deps.routes.get(member.connector_id).catch(() => null);
    if (route?.kind === 'connected' && mayUse(this.toolset, this.caller, route)) await answerMember(ctx, member, route, { ...message, id: asked.id });
  }

  /** A cancellation or a change of roots concerns every member the session has talked to. */
  private async tellMembers(ctx: ToolsetContext, session: FoundSession, message: RpcMessage): Promise<void> {
    await Promise.all(Object.keys(session.record.members).map(async (connectorId) => {
      const member = this.toolset.members.find((m) => m.connector_id === connectorId);
      const route = member && (await ctx.deps.routes.get(connectorId).catch(() => null));
      if (member && route?.kind === 'connected' && mayUse(this.toolset, this.caller, route)) await answerMember(ctx, member, route, message);
    }));
  }

  private context(era: ToolsetContext['era'], clientCapabilities: Record<string, unknown>, sessions: MemberSessions): ToolsetContext {
    return {
      deps: this.x.deps, toolset: this.toolset, caller: this.caller, grant: this.grant, era, clientCapabilities, sessions,
      paramHeaders: paramHeadersOf(this.req.headers), signal: this.signal,
    };
  }
}

function notFound(): ProblemError {
  return new ProblemError(404, "No session has this id: it ended or expired, or is another caller's. Initialize a new one.", 'session-not-found');
}

/** The caller's Mcp-Param-* headers (they mirror a tool's arguments, which the member gets unchanged). */
function paramHeadersOf(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const name in headers) if (name.startsWith('mcp-param-')) out[name] = headers[name];
  return out;
}
