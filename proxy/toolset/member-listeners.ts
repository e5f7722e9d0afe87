// What a 2026-07-28 member says of its own lists outside any request reaches the streams this
// replica holds: for every member of a watched toolset that speaks 2026-07-28, the replica keeps one
// `subscriptions/listen` stream of its own to it (with the member's token; it carries no caller's
// request, so no caller's state is shared), and a list change it hears drops the member's cached
// list and is told to the toolsets holding it (change-watch.ts). A 2025 member's changes reach a
// 2025 session through that session's own member stream (session-streams.ts).
import type { Logger } from '../../platform/logger';
import type { RouteSource } from '../route';
import type { UpstreamClient } from '../upstream-client';
import { messagesOf } from './member-answer';
import type { MemberEras } from './member-eras';
import { TOOLSET_CLIENT_INFO, modernHeaders } from './member-wire';
import { META, MODERN_VERSION, type RpcMessage } from './rpc';

const RETRY_MS = 5000;
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
        if (route.kind === 'connected' && (await this.eras.of({ connectorId, route }, signal)) === 'legacy') return;
        if (route.kind === 'connected') await this.relay(connectorId, route, signal);
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
}
