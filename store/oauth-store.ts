// OAuth bookkeeping that must outlive any one process: the pending authorization `state`
// values (kept only as hashes, single use), the client registrations made per authorization
// server (their secrets sealed) and the answers to refresh tokens (refresh-ledger.ts).
import crypto from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import type { Ciphertext } from '../platform/secret-box';
import { ensureTtlIndex, sweepExpired, type Expiry } from './expiry';
import { onlyDuplicateKeys } from './duplicate-key';
import { RefreshLedger } from './refresh-ledger';

export interface PendingState {
  _id: string; // sha256 of the state value
  connector_id: string;
  redirect_url: string | null;
  /** The authorization server's URL the consent page sends the browser on to, sealed (it holds the state). */
  authorization_url?: Ciphertext;
  /** A BSON Date (written as a Date, never through Temporal's JSON), so the TTL index applies. */
  expires_at: Date;
  used_at: Date | null;
}

export interface StoredRegistration {
  _id: string; // issuer + redirect URI
  issuer: string;
  client_id: string;
  client_secret: Ciphertext | null;
  client_secret_expires_at: number | null;
  auth_method: string;
  redirect_uri: string;
}


/**
 * A state is kept an hour past its expiry, so that a late callback still learns it expired and
 * goes back to its redirect_url; then it goes.
 */
export const STATE_EXPIRY: Expiry = { field: 'expires_at', afterSeconds: 3600 };

export const hashState = (state: string): string => crypto.createHash('sha256').update(state).digest('base64url');

export class OAuthStore {
  private readonly states: Collection<PendingState>;
  private readonly registrations: Collection<StoredRegistration>;
  readonly refreshes: RefreshLedger;

  constructor(db: Db) {
    this.states = db.collection<PendingState>('oauth_states');
    this.registrations = db.collection<StoredRegistration>('oauth_registrations');
    this.refreshes = new RefreshLedger(db);
  }

  /** True when the database expires states and refresh answers itself; false when only the sweeps do. */
  async ensureIndexes(): Promise<boolean> {
    const states = await ensureTtlIndex(this.states, STATE_EXPIRY);
    const refreshes = await this.refreshes.ensureIndexes();
    return states && refreshes;
  }

  /** Deletes the states the TTL index would have; the number deleted. */
  async sweepExpiredStates(now = new Date()): Promise<number> {
    return sweepExpired(this.states, STATE_EXPIRY, now);
  }

  async rememberState(state: Omit<PendingState, 'used_at'>): Promise<void> {
    try {
      await this.states.insertOne({ ...state, used_at: null });
    } catch (err) {
      if (!onlyDuplicateKeys(err)) throw err; // a retried activity
    }
  }

  /** Marks the state used and returns it, once; unknown, used or expired states give null. */
  async claimState(hash: string, now = new Date()): Promise<PendingState | null> {
    return this.states.findOneAndUpdate(
      { _id: hash, used_at: null, expires_at: { $gt: now } },
      { $set: { used_at: now } },
      { returnDocument: 'after' },
    );
  }

  async findState(hash: string): Promise<PendingState | null> {
    return this.states.findOne({ _id: hash });
  }

  /** A state still waiting for its callback: unused and unexpired. */
  async pendingState(hash: string, now = new Date()): Promise<PendingState | null> {
    return this.states.findOne({ _id: hash, used_at: null, expires_at: { $gt: now } });
  }

  async registration(issuer: string, redirectUri: string): Promise<StoredRegistration | null> {
    return this.registrations.findOne({ _id: `${issuer} ${redirectUri}` });
  }

  async saveRegistration(registration: Omit<StoredRegistration, '_id'>): Promise<void> {
    const _id = `${registration.issuer} ${registration.redirect_uri}`;
    await this.registrations.replaceOne({ _id }, registration, { upsert: true });
  }
}
