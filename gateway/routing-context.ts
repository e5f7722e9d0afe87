// What both routing directions share.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../platform/logger';
import type { ChangeNews } from './lazy-modern';
import type { RoutingTables } from './routing-tables';
import type { GatewaySession } from './session';
import type { Upstream } from './upstream';

export interface RoutingContext {
  upstream: Upstream;
  tables: RoutingTables;
  /** Initialized sessions by id. */
  sessions: Map<string, GatewaySession>;
  logger: Logger;
  /** Change news for 2026-07-28 clients, who hear it on their subscriptions/listen streams. */
  news?: ChangeNews;
}

/** Sends to the server, for messages whose loss is already handled elsewhere (exit, close). */
export async function sendUpstream(context: RoutingContext, message: JSONRPCMessage): Promise<void> {
  try {
    await context.upstream.send(message);
  } catch (error) {
    context.logger.debug({ err: error instanceof Error ? error.message : String(error) }, 'message to stdio server dropped');
  }
}
