// A 2025 session's GET stream, held by the replica the GET reached: what the toolset itself has to
// say (tools/list_changed, when the toolset or a member changes: change-watch.ts) and what its
// members send outside any request on their own session streams (their list changes, resource
// updates, and requests to the client, whose ids name the member: member-ids.ts), which this
// replica opens for every member session the toolset session holds, including those opened later
// by requests to other replicas. Every `pollMs` the replica reads the sessions whose streams it
// holds: a session ended elsewhere (DELETE, expiry) ends its stream here; one still streaming is
// marked used, so that an open stream keeps its session alive.
import type { ServerResponse } from 'node:http';
import type { Logger } from '../../platform/logger';
import type { RouteSource } from '../route';
import { mayUse } from './access';
import type { ChangeWatch } from './change-watch';
import type { FoundSession, LegacySessions } from './legacy-sessions';
import { EventWriter, isEventStream, messagesOf } from './member-answer';
import type { MemberLink } from './member-link';
import { fromMember } from './member-relay';
import type { SessionStore } from './session-store';
import type { ToolsetContext } from './toolset-context';
import { onceClosed } from '../../platform/response-closed';

export interface SessionStreamDeps {
  store: SessionStore;
  sessions: LegacySessions;
  link: MemberLink;
  routes: RouteSource;
  watch: ChangeWatch;
  logger: Logger;
  pollMs: number;
}

interface Held {
  ctx: ToolsetContext;
  session: FoundSession;
  writer: EventWriter;
  /** The member streams relayed into it, by connector id. */
  members: Map<string, AbortController>;
  close(): void;
}

const RETRIES = 5;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export class SessionStreams {
  private readonly held = new Map<string, Held>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly deps: SessionStreamDeps) {}

  /** Serves the session's stream on `res` until the client leaves or the session ends. */
  serve(ctx: ToolsetContext, res: ServerResponse, session: FoundSession): void {
    this.held.get(session.id)?.close(); // one stream per session: the newer one wins
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    res.flushHeaders();
    const writer = new EventWriter(res);
    const unwatch = this.deps.watch.watch(ctx.toolset.id, () => void writer.write({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }));
    const held: Held = {
      ctx, session, writer, members: new Map(),
      close: () => {
        unwatch();
        for (const controller of held.members.values()) controller.abort();
        if (this.held.get(session.id) === held) this.held.delete(session.id);
        if (!res.writableEnded) res.end();
      },
    };
    onceClosed(res, () => held.close());
    this.held.set(session.id, held);
    this.openMembers(held);
    this.timer ??= setInterval(() => void this.poll(), this.deps.pollMs).unref();
  }

  /** A request on this replica opened a member session: the session's stream here relays it now. */
  memberOpened(session: FoundSession): void {
    const held = this.held.get(session.id);
    if (!held) return;
    Object.assign(held.session.record, { members: session.record.members });
    this.openMembers(held);
  }

  close(): void {
    for (const held of [...this.held.values()]) held.close();
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private openMembers(held: Held): void {
    for (const [connectorId, member] of Object.entries(held.session.record.members)) {
      if (member.sessionId !== null && !held.members.has(connectorId)) void this.relayMember(held, connectorId);
    }
  }

  /** The member's session stream into the client's, reopened when it ends (a few times in a row at most). */
  private async relayMember(held: Held, connectorId: string): Promise<void> {
    const controller = new AbortController();
    held.members.set(connectorId, controller);
    const member = held.ctx.toolset.members.find((m) => m.connector_id === connectorId);
    for (let failures = 0; member && failures < RETRIES && !controller.signal.aborted; failures++) {
      const route = await this.deps.routes.get(connectorId).catch(() => null);
      const session = held.session.record.members[connectorId];
      if (route?.kind !== 'connected' || !mayUse(held.ctx.toolset, held.ctx.caller, route) || !session) return;
      try {
        const reply = await this.deps.link.listen({ connectorId, route }, session, controller.signal);
        if (reply.answer.statusCode !== 200 || !isEventStream(reply.answer)) return void reply.answer.resume(); // it has no stream to offer
        failures = -1;
        const toClient = fromMember(held.ctx, member, reply.route, null, (result) => result);
        for await (const message of messagesOf(reply.answer)) {
          const out = toClient(message);
          if (out && !(await held.writer.write(out))) return;
        }
      } catch (err) {
        if (controller.signal.aborted) return;
        this.deps.logger.debug({ connectorId, err: (err as Error)?.message }, 'a toolset member session stream failed');
      }
      await sleep(1000 * Math.max(1, failures + 1));
    }
  }

  private async poll(): Promise<void> {
    if (this.held.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    const holding = [...this.held.values()];
    const live = await this.deps.store.many(holding.map((h) => ({ owner: h.session.owner, sessionId: h.session.id })), this.deps.sessions.limits.idleMs)
      .catch(() => null);
    if (!live) return; // the store is unavailable: nothing known, nothing ended
    for (const held of holding) {
      const record = live.get(held.session.id);
      if (!record) {
        held.close();
        continue;
      }
      Object.assign(held.session.record, record);
      this.deps.sessions.used(held.session);
      this.openMembers(held);
    }
  }
}
