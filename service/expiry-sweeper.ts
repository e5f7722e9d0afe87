// Deletes expired OAuth states and refresh answers, the expired audit events of deleted connectors and the per-call
// audit's calls past CONNECTOR__CALL_AUDIT_DAYS, at worker start and then every interval. MongoDB's
// TTL indexes do the same by themselves (and this finds little left); FerretDB 1.24, the embedded
// database, has no TTL indexes, and there this sweep is what keeps the collections bounded.
import type { Logger } from '../platform/logger';
import type { CallAuditStore } from '../store/call-audit-store';
import type { ConnectorStore } from '../store/connector-store';
import type { OAuthStore } from '../store/oauth-store';
import { startPeriodicPass, type PeriodicPass } from './periodic-pass';

export const SWEEP_INTERVAL_MS = 5 * 60_000;

export interface SweepResult {
  states: number;
  refreshes: number;
  events: number;
  calls: number;
}

/** runOnce(now?) runs one pass as of `now` (default: the present). */
export type ExpirySweeper = PeriodicPass<SweepResult, [now?: Date]>;

export function startExpirySweeper(
  stores: { store: ConnectorStore; oauthStore: OAuthStore; callStore?: CallAuditStore },
  logger: Logger,
  intervalMs = SWEEP_INTERVAL_MS,
): ExpirySweeper {
  return startPeriodicPass({
    intervalMs, logger, nothing: { states: 0, refreshes: 0, events: 0, calls: 0 }, what: 'expiry sweep',
    pass: async (now: Date = new Date()) => {
      const states = await stores.oauthStore.sweepExpiredStates(now);
      const refreshes = await stores.oauthStore.refreshes.sweepExpired(now);
      const events = await stores.store.sweepExpiredEvents(now);
      const calls = (await stores.callStore?.sweepExpired(now)) ?? 0;
      if (states + refreshes + events + calls > 0) logger.info({ states, refreshes, events, calls }, 'deleted expired OAuth states, refresh answers, audit events and calls');
      return { states, refreshes, events, calls };
    },
  });
}
