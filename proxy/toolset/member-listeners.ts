// What a 2026-07-28 member says of its own lists outside any request reaches the streams this
// replica holds: for every member of a watched toolset that speaks 2026-07-28, the replica keeps one
// `subscriptions/listen` stream of its own to it (with the member's token; it carries no caller's
// request, so no caller's state is shared), and a list change it hears drops the member's cached
// list and is told to the toolsets holding it (change-watch.ts). A member of the HTTP+SSE transport
// (2024-11-05) gets instead one bridge session of the replica's own (sse-members.ts, with the
// member's token and no caller's parameters), whose list_changed notifications count the same. A
// 2025 member's changes reach a 2025 session through that session's own member stream
// (session-streams.ts).
import type { Logger } from '../../platform/logger';
import type { RouteSource } from '../route';
import type { UpstreamClient } from '../upstream-client';
import { messagesOf } from './member-answer';
import type { MemberEras } from './member-eras';
import { TOOLSET_CLIENT_INFO, modernHeaders, type MemberTarget } from './member-wire';
import { META, MODERN_VERSION, errorMessage, isRequest, type RpcMessage } from './rpc';
import type { MemberClient, SseMembers } from './sse-members';

const RETRY_MS = 5000;
/** What an SSE member's server is told of the replica's own session: a client that can be asked nothing. */
const SSE_CLIENT: MemberClient = { protocolVersion: '2024-11-05', clientCapabilities: {}, clientInfo: TOOLSET_CLIENT_INFO };
const CHANGES = new Set(['notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/list_changed']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export class MemberListeners {
  private readonly open = new Map<string, AbortController>();

  constructor(
    private readonly upstream: UpstreamClient,
    private readonly eras: MemberEras,
    private readonly routes: RouteSource,
    private readonly changed: (connectorId: string) => void,
    private readonly logger: Logger,
    private readonly sse?: SseMembers,
  ) {}

  /** Listens to exactly these members (those of the toolsets watched now). */
  keep(connectorIds: ReadonlySet<string>): void {
    for (const [id, controller] of this.open) {
      if (connectorIds.has(id)) continue;
      controller.abort();
      this.open.delete(id);
    }
    for (const id of connectorIds) if (!this.open.has(id)) void this.listen(id);
  }

  close(): void {
    this.keep(new Set());
  }

  private async listen(connectorId: string): Promise<void> {
    const controller = new AbortController();
    this.open.set(connectorId, controller);
    const { signal } = controller;
    while (!signal.aborted) {
      try {
        const route = await this.routes.get(connectorId);
        if (route.kind === 'connected' && route.transport === 'sse') {
          if (!this.sse) return;
          await this.hearSse({ connectorId, route }, this.sse, signal);
        } else if (route.kind === 'connected') {
          if ((await this.eras.of({ connectorId, route }, signal)) === 'legacy') return;
          await this.relay(connectorId, route, signal);
        }
      } catch (err) {
        if (signal.aborted) return;
        this.logger.debug({ connectorId, err: (err as Error)?.message }, 'a toolset member\'s listen stream failed');
      }
      await sleep(RETRY_MS);
    }
  }

  private async relay(connectorId: string, route: Parameters<UpstreamClient['send']>[1], signal: AbortSignal): Promise<void> {
    const listen: RpcMessage = {
      jsonrpc: '2.0', id: 'toolset-listen', method: 'subscriptions/listen',
      params: {
        notifications: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
        _meta: { [META.protocolVersion]: MODERN_VERSION, [META.clientInfo]: TOOLSET_CLIENT_INFO, [META.clientCapabilities]: {} },
      },
    };
    const { answer } = await this.upstream.send(connectorId, route, { method: 'POST', headers: modernHeaders(listen), body: Buffer.from(JSON.stringify(listen)), signal });
    for await (const message of messagesOf(answer)) if (message.method && CHANGES.has(message.method)) this.changed(connectorId);
  }

  /** An SSE member: the replica's own bridge session, heard until it ends (then the loop opens another). */
  private async hearSse(target: MemberTarget, sse: SseMembers, signal: AbortSignal): Promise<void> {
    const session = await sse.open(target, SSE_CLIENT);
    try {
      const { answer } = await sse.listen(target, session, signal);
      for await (const message of messagesOf(answer)) {
        if (message.method && CHANGES.has(message.method)) this.changed(target.connectorId);
        // Its server may still ask: nothing here can answer, and it must not wait for ever.
        else if (isRequest(message)) await sse.send(target, session, errorMessage(message.id, { code: -32601, message: 'The toolset\'s listener answers no request.' }));
      }
    } finally {
      sse.close(target, session);
    }
  }
}
