// A toolset's members that speak the HTTP+SSE transport of 2024-11-05: reached through the legacy
// SSE bridge's upstream sessions (legacy-sse/sse-bridge.ts), never POSTed to as Streamable HTTP.
// The member session the toolset keeps is the bridge's session id (it carries the initialize
// parameters, so any replica opens its own upstream session from it), and each answer comes back
// as the one JSON message a Streamable HTTP member would have answered, so that everything
// downstream of MemberLink reads it as any member's. What such a server says of its own accord
// outside a call (requests to the client, list changes) reaches no client of the toolset.
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { ConnectedRoute } from '../route';
import type { UpstreamReply } from '../upstream-client';
import type { SseBridge } from '../legacy-sse/sse-bridge';
import { sessionIdOf } from '../legacy-sse/bridge-session-id';
import type { RpcId } from '../legacy-sse/upstream-sse-session';
import type { MemberSession, MemberTarget } from './member-wire';
import type { RpcMessage } from './rpc';

/** What members are told of the client (member-link.ts's MemberSessions says it). */
export interface MemberClient {
  readonly protocolVersion: string;
  readonly clientCapabilities: Record<string, unknown>;
  readonly clientInfo: Record<string, unknown>;
}

export class SseMembers {
  constructor(private readonly bridge: SseBridge) {}

  /** A new member session, initialized upstream with what the toolset tells members of the client. */
  async open(target: MemberTarget, sessions: MemberClient): Promise<MemberSession> {
    const { name, version } = sessions.clientInfo as { name?: unknown; version?: unknown };
    const sessionId = sessionIdOf({
      protocolVersion: sessions.protocolVersion, capabilities: sessions.clientCapabilities,
      clientInfo: { ...sessions.clientInfo, name: String(name ?? 'connector-registry-toolset'), version: String(version ?? '1.0.0') },
    });
    const upstream = await this.bridge.memberSession(target.connectorId, target.route, sessionId);
    const agreed = (upstream.initializeResult as { protocolVersion?: unknown } | null)?.protocolVersion;
    return { sessionId, protocolVersion: typeof agreed === 'string' ? agreed : sessions.protocolVersion };
  }

  /** The member's answer to `message` in `session`, as a Streamable HTTP member's JSON answer (202 for a notification). */
  async send(target: MemberTarget, session: MemberSession, message: RpcMessage, signal?: AbortSignal): Promise<UpstreamReply> {
    const upstream = await this.bridge.memberSession(target.connectorId, target.route, session.sessionId!);
    if (message.id === undefined || message.id === null) {
      // The bridge sent its own `initialized` when it opened the upstream session.
      if (message.method !== 'notifications/initialized') await upstream.post(target.route, message, signal);
      return syntheticReply(target.route, 202, null);
    }
    const answer = await upstream.request(target.route, message as RpcMessage & { id: RpcId }, signal);
    return syntheticReply(target.route, 200, answer);
  }

  close(target: MemberTarget, session: MemberSession): void {
    if (session.sessionId !== null) this.bridge.dropMember(target.connectorId, session.sessionId);
  }
}

/** An answer as the upstream client would have handed it over: status, headers, and a body to read once. */
export function syntheticReply(route: ConnectedRoute, status: number, message: unknown): UpstreamReply {
  const answer = new IncomingMessage(new Socket());
  answer.statusCode = status;
  answer.headers = message === null ? {} : { 'content-type': 'application/json' };
  if (message !== null) answer.push(Buffer.from(JSON.stringify(message)));
  answer.push(null);
  return { route, answer };
}
