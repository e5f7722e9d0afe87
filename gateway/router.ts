// The routing layer between the HTTP sessions and the single stdio connection: it opens sessions,
// wires both directions, and cleans up when a session ends or the stdio server goes away.
import { randomUUID } from 'node:crypto';
import { ErrorCode, type JSONRPCNotification } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../core/logger';
import { FromServer } from './from-server';
import { FromSession } from './from-session';
import { connectionClosed, errorAnswer } from './jsonrpc';
import { sendUpstream, type RoutingContext } from './routing-context';
import { RoutingTables } from './routing-tables';
import { GatewaySession } from './session';
import type { StdioExit } from './stdio-source';
import type { Upstream } from './upstream';

export interface SessionSummary {
  id: string;
  listening: boolean;
  inflight: number;
  subscriptions: string[];
}

export class Router {
  readonly sessions = new Map<string, GatewaySession>();
  private readonly context: RoutingContext;
  private readonly fromSession: FromSession;

  constructor(private readonly upstream: Upstream, private readonly logger: Logger, private readonly idleTimeoutMs: number) {
    this.context = { upstream, tables: new RoutingTables(), sessions: this.sessions, logger };
    this.fromSession = new FromSession(this.context);
    const fromServer = new FromServer(this.context);
    upstream.onmessage = (message) => fromServer.handle(message);
    void upstream.exited.then((exit) => this.upstreamExited(exit));
  }

  /** A session for an initialize request; it joins `sessions` once that request is read. */
  openSession(): GatewaySession {
    const session = new GatewaySession(randomUUID(), this.idleTimeoutMs);
    const { transport } = session;
    transport.onmessage = (message) => this.fromSession.handle(session, message);
    transport.onerror = (error) => this.logger.debug({ session: session.id, err: error.message }, 'session transport error');
    transport.onclose = () => this.sessionClosed(session);
    session.onidle = () => {
      this.logger.info({ session: session.id }, 'session idle; closing it');
      void session.close();
    };
    return session;
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
