// A toolset's members that speak the HTTP+SSE transport of 2024-11-05: reached through the legacy
// SSE bridge's upstream sessions (legacy-sse/sse-bridge.ts), never POSTed to as Streamable HTTP.
// The member session the toolset keeps is the bridge's session id (it carries the initialize
// parameters, so any replica opens its own upstream session from it), and each answer comes back
// as the one JSON message a Streamable HTTP member would have answered, so that everything
// downstream of MemberLink reads it as any member's. What such a server says of its own accord
// (list changes, resource updates, requests to the client) comes out of `listen` as a Streamable
// HTTP member's GET stream would carry it: the events the bridge's upstream session for that member
// session hears on this replica. The client's answer to such a request reaches the server only
// through the replica that holds the upstream session which asked (another replica would post it
// in an upstream session of its own, which the server does not match to the request).
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { ConnectedRoute } from '../route';
import type { UpstreamReply } from '../upstream-client';
import { sseEvent, type SseBridge } from '../legacy-sse/sse-bridge';
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
    if (message.method === undefined || message.id === undefined || message.id === null) {
      // A notification, or the client's answer to the server's request. The bridge sent its own
      // `initialized` when it opened the upstream session.
      if (message.method !== 'notifications/initialized') await upstream.post(target.route, message, signal);
      return syntheticReply(target.route, 202, null);
    }
    const answer = await upstream.request(target.route, message as RpcMessage & { id: RpcId }, signal);
    return syntheticReply(target.route, 200, answer);
  }

  /** What the server says of its own accord in `session`, as an event stream, until `signal` aborts or the upstream session closes. */
  async listen(target: MemberTarget, session: MemberSession, signal: AbortSignal): Promise<UpstreamReply> {
    if (session.sessionId === null) return syntheticReply(target.route, 405, null);
    const answer = syntheticAnswer(200, 'text/event-stream');
    let ended = false;
    const end = () => {
      if (!ended) answer.push(null);
      ended = true;
    };
    const unhear = await this.bridge.hearMember(target.connectorId, target.route, session.sessionId, {
      message: (message) => void (ended || answer.push(sseEvent(message))),
      end,
    });
    const stop = () => {
      unhear();
      end();
    };
    if (signal.aborted) stop();
    signal.addEventListener('abort', stop, { once: true });
    answer.once('close', () => {
      unhear();
      signal.removeEventListener('abort', stop);
    });
    return { route: target.route, answer };
  }

  close(target: MemberTarget, session: MemberSession): void {
    if (session.sessionId !== null) this.bridge.dropMember(target.connectorId, session.sessionId);
  }
}

/** An answer as the upstream client would have handed it over: status, headers, and a body to read once. */
export function syntheticReply(route: ConnectedRoute, status: number, message: unknown): UpstreamReply {
  const answer = syntheticAnswer(status, message === null ? null : 'application/json');
  if (message !== null) answer.push(Buffer.from(JSON.stringify(message)));
  answer.push(null);
  return { route, answer };
}

/** An answer's head, its body pushed by the caller. */
function syntheticAnswer(status: number, contentType: string | null): IncomingMessage {
  const answer = new IncomingMessage(new Socket());
  answer.statusCode = status;
  answer.headers = contentType === null ? {} : { 'content-type': contentType };
  return answer;
}
