// The routing layer between the HTTP sessions and the single stdio connection: it opens sessions,
// wires both directions, and cleans up when a session ends or the stdio server goes away.
import { randomUUID } from 'node:crypto';
import { ErrorCode, type JSONRPCNotification } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../platform/logger';
import type { ChangeNews } from './lazy-modern';
import { FromServer } from './from-server';
import { FromSession } from './from-session';
import { connectionClosed, errorAnswer } from './jsonrpc';
import { sendUpstream, type RoutingContext } from './routing-context';
import { RoutingTables } from './routing-tables';
import { GatewaySession, type SessionTimeouts } from './session';
import type { StdioExit } from './stdio-source';
import type { Upstream } from './upstream';

export interface SessionSummary {
  id: string;
  listening: boolean;
  inflight: number;
  subscriptions: string[];
}

export interface RouterLimits extends SessionTimeouts {
  /** Sessions open at once, those whose initialize is still being read included. */
  maxSessions: number;
}

export class Router {
  readonly sessions = new Map<string, GatewaySession>();
  /** Sessions whose initialize exchange is under way: they hold a slot before they join `sessions`. */
  private readonly opening = new Set<GatewaySession>();
  private readonly context: RoutingContext;
  private readonly fromSession: FromSession;

  constructor(
    private readonly upstream: Upstream, private readonly logger: Logger, private readonly limits: RouterLimits, news?: ChangeNews,
  ) {
    this.context = { upstream, tables: new RoutingTables(), sessions: this.sessions, logger, news };
    this.fromSession = new FromSession(this.context);
    const fromServer = new FromServer(this.context);
    upstream.onmessage = (message) => fromServer.handle(message);
    void upstream.exited.then((exit) => this.upstreamExited(exit));
  }

  /**
   * A session for an initialize request, or undefined when every slot is taken. It joins
   * `sessions` once that request is read; call `openingSettled` when its exchange has been handled.
   */
  openSession(): GatewaySession | undefined {
    if (this.openCount() >= this.limits.maxSessions) return undefined;
    const session = new GatewaySession(randomUUID(), this.limits);
    const { transport } = session;
    transport.onmessage = (message) => this.fromSession.handle(session, message);
    transport.onerror = (error) => this.logger.debug({ session: session.id, err: error.message }, 'session transport error');
    transport.onclose = () => this.sessionClosed(session);
    session.onidle = (why) => {
      this.logger.info({ session: session.id, why }, 'session unused; closing it');
      void session.close();
    };
    this.opening.add(session);
    return session;
  }

  /** The initialize exchange was handled: a session that did not come of it gives its slot back. */
  openingSettled(session: GatewaySession): void {
    this.opening.delete(session);
  }

  get maxSessions(): number {
    return this.limits.maxSessions;
  }

  private openCount(): number {
    let count = this.sessions.size;
    for (const session of this.opening) if (!this.sessions.has(session.id)) count += 1;
    return count;
  }

  summaries(): SessionSummary[] {
    return [...this.sessions.values()].map((s) => ({
      id: s.id, listening: s.listening, inflight: s.inflightRequests().length, subscriptions: [...s.subscriptions],
    }));
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.close()));
  }

  /** DELETE, idle timeout, gateway close or stdio exit: the session's pending work is released. */
  private sessionClosed(session: GatewaySession): void {
    if (session.closed) return;
    session.markClosed();
    const known = this.sessions.delete(session.id);
    if (known) this.logger.info({ session: session.id }, 'session ended');
    if (this.upstream.state === 'exited') return;
    const { tables } = this.context;
    for (const inflight of session.inflightRequests()) {
      tables.takeForwarded(inflight.upstreamId);
      void sendUpstream(this.context, cancelled(inflight.upstreamId, 'the client session ended'));
    }
    for (const relayed of tables.relayedTo(session)) {
      tables.takeRelayed(relayed.gatewayId);
      if (relayed.onanswer) {
        relayed.onanswer(errorAnswer(relayed.gatewayId, ErrorCode.InternalError, 'the session asked to answer ended'));
        continue;
      }
      void sendUpstream(this.context, errorAnswer(relayed.upstreamId, ErrorCode.InternalError, 'the session asked to answer ended'));
    }
    this.dropOrphanSubscriptions(session);
  }

  private dropOrphanSubscriptions(session: GatewaySession): void {
    for (const uri of session.subscriptions) {
      const stillWanted = [...this.sessions.values()].some((s) => s.subscriptions.has(uri));
      if (!stillWanted) this.upstream.request('resources/unsubscribe', { uri }).catch(() => undefined);
    }
  }

  private async upstreamExited(exit: StdioExit): Promise<void> {
    const { tables } = this.context;
    await Promise.all([...this.sessions.values()].map(async (session) => {
      for (const inflight of session.inflightRequests()) {
        tables.takeForwarded(inflight.upstreamId);
        await session.deliver(connectionClosed(inflight.clientId, exit.reason));
      }
      // Sessions with nothing in flight hear it on their GET stream; their next request gets a 503.
      await session.deliver(gatewayLog(exit.reason));
      await session.close();
    }));
  }
}

function cancelled(requestId: number, reason: string): JSONRPCNotification {
  return { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason } };
}

function gatewayLog(reason: string): JSONRPCNotification {
  return { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', logger: 'gateway', data: reason } };
}
