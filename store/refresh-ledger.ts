// What each refresh token was answered with, so that none is presented twice (and, keyed apart,
// each authorization code: activities/present-once.ts). A rotating authorization server accepts a
// refresh token once; shown it again, it may take the reuse for theft and revoke the whole grant
// (oidc-provider does, as RFC 9700 section 4.14.2 advises). One refresh can run twice: its
// workflow task timed out on a loaded worker and the next attempt ran the in-task refresh again,
// or a worker died between the answer and its report to Temporal. So a refresh claims its token
// here before presenting it and records the sealed answer before it returns; a second run with the
// same token takes that answer, or waits while the first runs.
// A token the server did not rotate was not spent: nothing is kept, and the next refresh presents it.
import type { Collection, Db, Document } from 'mongodb';
import { ensureTtlIndex, sweepExpired, type Expiry } from './expiry';
import { onlyDuplicateKeys } from './duplicate-key';

interface LedgerEntry {
  /** A MAC of the refresh token bound to its connector (SecretBox.tag): never the token. */
  _id: string;
  connector_id: string;
  /** Which run presents the token; a claim left this long by a run that died is taken over. */
  holder: string;
  claimed_at: Date;
  /** What the authorization server answered, sealed; null while the holder waits for it. */
  answer: Document | null;
}

export type Claim<T> = { kind: 'mine' } | { kind: 'answered'; answer: T } | { kind: 'busy' };

/**
 * Longer than a refresh can take (two token requests of 10 s each, for a DPoP nonce): a claim
 * older than this belongs to a run that died, and the token is presented again, since nothing
 * else could bring the grant back.
 */
export const STALE_CLAIM_MS = 30_000;

/** An answer is kept a day: a refresh run again is run again within minutes. */
export const LEDGER_EXPIRY: Expiry = { field: 'claimed_at', afterSeconds: 86_400 };

export class RefreshLedger {
  private readonly entries: Collection<LedgerEntry>;

  constructor(db: Db) {
    this.entries = db.collection<LedgerEntry>('oauth_refreshes');
  }

  /** True when the database expires entries itself; false when only sweepExpired does. */
  async ensureIndexes(): Promise<boolean> {
    return ensureTtlIndex(this.entries, LEDGER_EXPIRY);
  }

  async sweepExpired(now = new Date()): Promise<number> {
    return sweepExpired(this.entries, LEDGER_EXPIRY, now);
  }

  /** `mine`: present the token, then record or release. `answered`: it was; `busy`: another run is presenting it. */
  async claim<T extends Document>(key: string, connectorId: string, holder: string, now = new Date()): Promise<Claim<T>> {
    try {
      await this.entries.insertOne({ _id: key, connector_id: connectorId, holder, claimed_at: now, answer: null });
      return { kind: 'mine' };
    } catch (err) {
      if (!onlyDuplicateKeys(err)) throw err;
    }
    const entry = await this.entries.findOne({ _id: key, connector_id: connectorId });
    if (!entry) return { kind: 'busy' }; // released meanwhile: ask again
    if (entry.answer) return { kind: 'answered', answer: entry.answer as T };
    if (now.getTime() - entry.claimed_at.getTime() < STALE_CLAIM_MS) return { kind: 'busy' };
    const taken = await this.entries.updateOne(
      { _id: key, holder: entry.holder, answer: null },
      { $set: { holder, claimed_at: now } },
    );
    return taken.modifiedCount === 1 ? { kind: 'mine' } : { kind: 'busy' };
  }

  async record(key: string, holder: string, answer: Document): Promise<void> {
    await this.entries.updateOne({ _id: key, holder }, { $set: { answer } });
  }

  /** The token was refused or never reached the server: the next run may present it. */
  async release(key: string, holder: string): Promise<void> {
    await this.entries.deleteOne({ _id: key, holder, answer: null });
  }
}
