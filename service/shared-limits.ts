// The per-owner limits every replica of a role shares, kept in the database: the request rate of
// the REST API and of the MCP path (store/rate-ledger.ts, one bucket per owner for each), the open
// MCP requests and streams, and the toolsets' sessions (store/owner-leases.ts). A process that
// shares them names itself by a holder id of its own, so that a restarted one never takes over
// its predecessor's leases; those expire.
import crypto from 'node:crypto';
import os from 'node:os';
import type { Db } from 'mongodb';
import type { Config } from '../config/config';
import type { Logger } from '../platform/logger';
import { OwnerRateLimit } from '../callers/owner-rate-limit';
import { SharedExchanges } from '../proxy/shared-exchanges';
import { OwnerLeases } from '../store/owner-leases';
import { RateLedger } from '../store/rate-ledger';

export interface SharedLimits {
  /** This process among the holders of leases. */
  holder: string;
  /** The owner's rate on one half: `api` (the REST API) or `mcp` (the MCP paths), each a bucket of its own. */
  rateLimit(scope: 'api' | 'mcp'): OwnerRateLimit | null;
  /** The owner's open MCP requests and streams, counted across processes. */
  streams(): SharedExchanges;
  /**
   * Slots of the toolsets' per-owner session cap: a session claims one (holder: its id, TTL: its
   * idle timeout), renews it as it is used, releases it when it ends; an idle one's slot expires.
   */
  sessions: OwnerLeases;
}

export function sharedLimitsOf(db: Db, config: Config, logger: Logger): SharedLimits {
  const holder = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
  const streamLeases = new OwnerLeases(db, 'streams');
  const warn = (what: string) => (err: unknown) => logger.warn({ err: (err as Error)?.message }, `${what} cannot be reached; each process limits on its own until it can`);
  return {
    holder,
    rateLimit(scope) {
      const policy = config.callers.rateLimitPerOwner;
      if (!policy) return null;
      return new OwnerRateLimit(policy, undefined, undefined, { bucket: new RateLedger(db, scope, policy), onFailure: warn('the shared request rate') });
    },
    streams: () => new SharedExchanges(streamLeases, holder, config.callers.maxStreamsPerOwner, warn('the shared stream count')),
    sessions: new OwnerLeases(db, 'sessions'),
  };
}
