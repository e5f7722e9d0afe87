// Messages from the stdio server to the HTTP sessions: answers go to the session that asked, under
// its own id; request-bound notifications follow their request; server requests go to a session
// able to answer; news about the server as a whole goes to every session.
import {
  ErrorCode,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from '@modelcontextprotocol/sdk/types.js';
import { canAnswer, chooseSession } from './choose-session';
import { asksForInput, gatherInput } from './input-required';
import { cancelledIdOf, errorAnswer, isAnswer, notifiedProgressToken, uriOf } from './jsonrpc';
import { sendUpstream, type RoutingContext } from './routing-context';

export class FromServer {
  constructor(private readonly context: RoutingContext) {}

  handle(message: JSONRPCMessage): void {
    if (isJSONRPCRequest(message)) void this.request(message);
    else if (isJSONRPCNotification(message)) void this.notification(message);
    else if (isAnswer(message)) void this.answer(message);
  }

  private async answer(answer: JSONRPCResponse): Promise<void> {
    const request = answer.id === undefined ? undefined : this.context.tables.takeForwarded(answer.id);
    if (!request) {
      this.context.logger.debug('answer for a request no session waits for; dropped');
      return;
    }
    if (asksForInput(this.context, answer) && isJSONRPCResultResponse(answer)) return gatherInput(this.context, request, answer.result);
    if (request.method === 'resources/subscribe' && request.uri !== undefined && isJSONRPCResultResponse(answer)) {
      request.session.subscriptions.add(request.uri);
    }
    await request.session.deliver({ ...answer, id: request.clientId });
  }

  private async notification(notification: JSONRPCNotification): Promise<void> {
    switch (notification.method) {
      case 'notifications/progress':
        return this.progress(notification);
      case 'notifications/cancelled':
        return this.cancelled(notification);
      case 'notifications/message':
        return this.logMessage(notification);
      case 'notifications/resources/updated':
        return this.resourceUpdated(notification);
      case 'notifications/subscriptions/acknowledged':
        // The gateway's own listen on a 2026-07-28 server (child-era.ts): nobody else asked.
        return;
      default:
        // list_changed and the like are about the server as a whole.
        return this.broadcast(notification);
    }
  }

  private async progress(notification: JSONRPCNotification): Promise<void> {
    const token = notifiedProgressToken(notification.params);
    const request = token === undefined ? undefined : this.context.tables.forwardedTo(token);
    if (!request || request.clientProgressToken === undefined) return;
    const params = { ...notification.params, progressToken: request.clientProgressToken };
    await request.session.deliver({ ...notification, params }, request.clientId);
  }

  /** The server gave up on one of its requests: tell the session that was asked. */
  private async cancelled(notification: JSONRPCNotification): Promise<void> {
    const upstreamId = cancelledIdOf(notification.params);
    const relayed = upstreamId === undefined ? undefined : this.context.tables.takeRelayedByUpstreamId(upstreamId);
    if (!relayed) return;
    const params = { ...notification.params, requestId: relayed.gatewayId };
    await relayed.session.deliver({ ...notification, params }, relayed.relatedRequestId);
  }

  // Stdio does not say which request a log message belongs to. With one session mid-request it
  // goes on that request's stream; otherwise every session gets it.
  private async logMessage(notification: JSONRPCNotification): Promise<void> {
    const busy = [...this.context.sessions.values()].filter((s) => s.latestInflight() !== undefined);
    const only = busy.length === 1 ? busy[0] : undefined;
    const latest = only?.latestInflight();
    if (only && latest) await only.deliver(notification, latest.clientId);
    else await this.broadcast(notification);
  }

  private async resourceUpdated(notification: JSONRPCNotification): Promise<void> {
    const uri = uriOf(notification.params);
    if (uri !== undefined) this.context.news?.resourceUpdated(uri);
    const subscribers = [...this.context.sessions.values()].filter((s) => uri !== undefined && s.subscriptions.has(uri));
    await Promise.all(subscribers.map((s) => s.deliver(notification)));
  }

  private async broadcast(notification: JSONRPCNotification): Promise<void> {
    this.publish(notification.method);
    await Promise.all([...this.context.sessions.values()].map((s) => s.deliver(notification)));
  }

  /** List changes reach 2026-07-28 clients through the SDK's listen streams. */
  private publish(method: string): void {
    const news = this.context.news;
    if (method === 'notifications/tools/list_changed') news?.toolsChanged();
    else if (method === 'notifications/prompts/list_changed') news?.promptsChanged();
    else if (method === 'notifications/resources/list_changed') news?.resourcesChanged();
  }

  private async request(request: JSONRPCRequest): Promise<void> {
    // The gateway is the server's client: liveness checks are its to answer.
    if (request.method === 'ping') return sendUpstream(this.context, { jsonrpc: '2.0', id: request.id, result: {} });
    if (this.forModernClient(request)) {
      // 2026-07-28 has no server-to-client requests (they became input_required results), and the
      // answer must not come from some other client that happens to be connected.
      const refusal = errorAnswer(request.id, ErrorCode.MethodNotFound, `the client that asked last speaks 2026-07-28 and cannot answer ${request.method}`);
      return sendUpstream(this.context, refusal);
    }
    const choice = chooseSession(this.context.sessions.values(), request);
    if (!choice) {
      const refusal = errorAnswer(request.id, ErrorCode.MethodNotFound, `no open session can answer ${request.method}`);
      return sendUpstream(this.context, refusal);
    }
    const { tables } = this.context;
    const relayed = tables.relay({
      session: choice.session, upstreamId: request.id, method: request.method, relatedRequestId: choice.relatedRequestId,
    });
    const delivered = await choice.session.deliver({ ...request, id: relayed.gatewayId }, choice.relatedRequestId);
    if (!delivered && tables.takeRelayed(relayed.gatewayId)) {
      await sendUpstream(this.context, errorAnswer(request.id, ErrorCode.InternalError, 'the session asked to answer is gone'));
    }
  }

  /**
   * Whether a 2026-07-28 client's call is the likelier origin than any session able to answer:
   * a session that is merely listening is not asked while such a call is in flight.
   */
  private forModernClient(request: JSONRPCRequest): boolean {
    const modern = this.context.upstream.latestRelayed();
    if (modern === undefined) return false;
    const able = [...this.context.sessions.values()].filter((s) => !s.closed && canAnswer(s.clientCapabilities, request));
    return able.every((s) => (s.latestInflight()?.upstreamId ?? -Infinity) < modern);
  }
}
