// Messages from an HTTP session (a 2025-era client) to the stdio server. The session's initialize
// is answered here (from what the server said of itself once, to the gateway); requests go on
// under upstream ids, with the per-request envelope added when the server speaks 2026-07-28;
// answers to relayed server requests go back under the server's own ids.
import {
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCNotification,
  isJSONRPCRequest,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from '@modelcontextprotocol/sdk/types.js';
import { modernEnvelope, type ChildServer } from './child-era';
import { cancelledIdOf, connectionClosed, errorAnswer, isAnswer, progressTokenOf, uriOf, withMeta, withProgressToken } from './jsonrpc';
import { sendUpstream, type RoutingContext } from './routing-context';
import type { GatewaySession } from './session';

export class FromSession {
  constructor(private readonly context: RoutingContext) {}

  handle(session: GatewaySession, message: JSONRPCMessage): void {
    if (isJSONRPCRequest(message)) void this.request(session, message);
    else if (isJSONRPCNotification(message)) void this.notification(session, message);
    else if (isAnswer(message)) void this.answer(session, message);
  }

  private async request(session: GatewaySession, request: JSONRPCRequest): Promise<void> {
    if (request.method === 'initialize') return this.initialize(session, request);
    session.markEngaged();
    if (request.method === 'resources/unsubscribe' && this.othersStillSubscribed(session, request)) {
      await session.deliver({ jsonrpc: '2.0', id: request.id, result: {} });
      return;
    }
    const { upstream, tables } = this.context;
    if (upstream.state === 'exited') {
      await session.deliver(connectionClosed(request.id, upstream.exit?.reason ?? 'stdio server exited'));
      return;
    }
    const upstreamId = upstream.allocateId();
    const clientProgressToken = progressTokenOf(request);
    const tokened = clientProgressToken === undefined ? request : withProgressToken(request, upstreamId);
    // A 2026-07-28 server has no session to remember the client by: every request says who asks.
    const outgoing = upstream.server?.era === 'modern'
      ? withMeta(tokened, modernEnvelope(session.clientInfo, session.clientCapabilities))
      : tokened;
    tables.forward({
      session, clientId: request.id, upstreamId, method: request.method, uri: uriOf(request.params), clientProgressToken, params: outgoing.params,
    });
    try {
      await upstream.send({ ...outgoing, id: upstreamId });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const refusal = connectionClosed(request.id, `stdio server did not take the request: ${reason}`);
      if (tables.takeForwarded(upstreamId)) await session.deliver(refusal);
    }
  }

  private async initialize(session: GatewaySession, request: JSONRPCRequest): Promise<void> {
    const parsed = InitializeRequestSchema.safeParse(request);
    if (!parsed.success) {
      await session.deliver(errorAnswer(request.id, ErrorCode.InvalidParams, 'invalid initialize request'));
      return;
    }
    this.context.sessions.set(session.id, session);
    let server: ChildServer;
    try {
      server = await this.context.upstream.ready;
    } catch (error) {
      await session.deliver(connectionClosed(request.id, error instanceof Error ? error.message : String(error)));
      await session.close();
      return;
    }
    session.clientCapabilities = parsed.data.params.capabilities;
    session.clientInfo = parsed.data.params.clientInfo;
    // A 2026-07-28 server is offered to 2025 clients as a server of the newest 2025 revision.
    const ceiling = server.era === 'modern' ? LATEST_PROTOCOL_VERSION : server.protocolVersion;
    session.protocolVersion = negotiateVersion(parsed.data.params.protocolVersion, ceiling);
    this.context.logger.info({ session: session.id, client: parsed.data.params.clientInfo }, 'session initialized');
    await session.deliver({
      jsonrpc: '2.0',
      id: request.id,
      result: {
        protocolVersion: session.protocolVersion,
        capabilities: server.capabilities,
        serverInfo: server.serverInfo,
        ...(server.instructions === undefined ? {} : { instructions: server.instructions }),
      },
    });
    session.awaitFirstRequest();
  }

  private async notification(session: GatewaySession, notification: JSONRPCNotification): Promise<void> {
    // The server heard notifications/initialized once, from the gateway.
    if (notification.method === 'notifications/initialized') return;
    if (notification.method === 'notifications/cancelled') return this.cancel(session, notification);
    await sendUpstream(this.context, notification);
  }

  private async cancel(session: GatewaySession, notification: JSONRPCNotification): Promise<void> {
    const clientId = cancelledIdOf(notification.params);
    const inflight = clientId === undefined ? undefined : session.findInflight(clientId);
    if (!inflight) return;
    // Taken now: the server should not answer a cancelled request, and any late answer is dropped.
    this.context.tables.takeForwarded(inflight.upstreamId);
    await sendUpstream(this.context, {
      ...notification,
      params: { ...notification.params, requestId: inflight.upstreamId },
    });
  }

  private async answer(session: GatewaySession, answer: JSONRPCResponse): Promise<void> {
    const { tables, logger } = this.context;
    const relayed = answer.id === undefined ? undefined : tables.relayedAs(answer.id);
    if (!relayed || relayed.session !== session) {
      logger.debug({ session: session.id }, 'answer to no request of the server; dropped');
      return;
    }
    tables.takeRelayed(relayed.gatewayId);
    if (relayed.onanswer) return relayed.onanswer(answer);
    await sendUpstream(this.context, { ...answer, id: relayed.upstreamId });
  }

  /** Forgets the session's subscription; true when another session still needs it upstream. */
  private othersStillSubscribed(session: GatewaySession, request: JSONRPCRequest): boolean {
    const uri = uriOf(request.params);
    if (uri === undefined) return false;
    session.subscriptions.delete(uri);
    return [...this.context.sessions.values()].some((s) => s !== session && s.subscriptions.has(uri));
  }
}

/** The client's version when the SDK knows it and the server speaks it too, else the server's. */
export function negotiateVersion(requested: string, serverVersion: string): string {
  const known = SUPPORTED_PROTOCOL_VERSIONS.includes(requested);
  // Protocol versions are dates, so string order is age order.
  return known && requested <= serverVersion ? requested : serverVersion;
}
