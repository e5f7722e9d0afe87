// Per-owner leases shared by every process: an owner has `limit` numbered slots of a kind
// (`<kind>|<owner>|<n>`), and whoever holds one holds it until its lease expires unless renewed.
// The per-owner stream cap (a proxy process leases slots in chunks for the exchanges it serves)
// and the toolsets' per-owner session cap (a session leases one slot, renewed as it is used, so an
// idle one expires) count with them, so that the caps hold however many processes serve the owner.
//
// What makes a slot one holder's is the insert of its `_id`, which both databases refuse to do
// twice (FerretDB applies an update as a read and a write, so a conditional counter could lose
// a count: owner-slots.ts). An expired lease is deleted by whoever needs the slot, then taken
// like a free one; a process that died leaves nothing behind for longer than its leases' TTL.
import type { Collection, Db } from 'mongodb';
import { insertAbsent } from './duplicate-key';

interface LeaseDoc {
  _id: string;
  holder: string;
  expires: Date;
}

const owner64 = (owner: string) => Buffer.from(owner, 'utf8').toString('base64url');
const NUMBER_WIDTH = 7;

export class OwnerLeases {
  private readonly docs: Collection<LeaseDoc>;

  /** `kind` keeps the slots of one cap apart from another's (streams, sessions). */
  constructor(db: Db, private readonly kind: string, private readonly now: () => number = Date.now) {
    this.docs = db.collection<LeaseDoc>('owner_leases');
  }

  private prefix(owner: string): string {
    return `${this.kind}|${owner64(owner)}|`;
  }

  /**
   * Up to `count` free slots of the owner's `limit`, leased to `holder` for `ttlMs`: their ids,
   * fewer (none) when the owner's other holders have the rest. Concurrent claims never get the
   * same slot. A holder claims one at a time per owner: a claim that fails gives back whatever of
   * its slots the holder has, in case they were taken.
   */
  async claim(owner: string, holder: string, count: number, limit: number, ttlMs: number): Promise<string[]> {
    const prefix = this.prefix(owner);
    const now = this.now();
    const leases = await this.docs.find({ _id: { $gte: prefix, $lt: `${prefix}~` } }).toArray();
    const live = new Set<number>();
    const expired: string[] = [];
    for (const lease of leases) {
      if (lease.expires.getTime() > now) live.add(Number(lease._id.slice(prefix.length)));
      else expired.push(lease._id);
    }
    if (expired.length) await this.docs.deleteMany({ _id: { $in: expired }, expires: { $lte: new Date(now) } });
    const chosen = pickFree(live, limit, count).map((n) => prefix + String(n).padStart(NUMBER_WIDTH, '0'));
    if (!chosen.length) return [];
    const expires = new Date(now + ttlMs);
    try {
      // Another process may have taken some of them meanwhile: the rest are this holder's.
      return (await insertAbsent(this.docs, chosen.map((_id) => ({ _id, holder, expires })))).map((doc) => doc._id);
    } catch (err) {
      // The inserts may have landed though their answer was lost (a dropped connection, a write
      // that failed part-way): leased to a holder that never learns of them, the owner's slots
      // would stay taken until they expire. Given back when the database can be reached.
      await this.release(holder, chosen).catch(() => undefined);
      throw err;
    }
  }

  /** Extends the leases among `ids` that `holder` still holds. */
  async renew(holder: string, ids: readonly string[], ttlMs: number): Promise<void> {
    for (let i = 0; i < ids.length; i += BATCH) {
      await this.docs.updateMany({ _id: { $in: ids.slice(i, i + BATCH) }, holder }, { $set: { expires: new Date(this.now() + ttlMs) } });
    }
  }

  /** Gives slots back; idempotent. */
  async release(holder: string, ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += BATCH) await this.docs.deleteMany({ _id: { $in: ids.slice(i, i + BATCH) }, holder });
  }

  /** How many unexpired leases the owner has, whoever holds them. */
  async count(owner: string): Promise<number> {
    const prefix = this.prefix(owner);
    const leases = await this.docs.find({ _id: { $gte: prefix, $lt: `${prefix}~` } }).toArray();
    const now = this.now();
    return leases.filter((l) => l.expires.getTime() > now).length;
  }
}

const BATCH = 500;

/** Up to `count` numbers below `limit` that are not in `taken`, at random (concurrent claims seldom aim at the same). */
function pickFree(taken: ReadonlySet<number>, limit: number, count: number): number[] {
  const free: number[] = [];
  for (let n = 0; n < limit; n++) if (!taken.has(n)) free.push(n);
  for (let i = 0; i < Math.min(count, free.length); i++) {
    const j = i + Math.floor(Math.random() * (free.length - i));
    [free[i], free[j]] = [free[j]!, free[i]!];
  }
  return free.slice(0, count);
}
