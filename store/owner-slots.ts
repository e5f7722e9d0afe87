// The per-owner quotas (CONNECTOR__MAX_CONNECTORS_PER_OWNER, CONNECTOR__MAX_TOOLSETS_PER_OWNER),
// held under concurrent creates, each in a collection of its own. A count checked and then acted on lets two creates at once both see room for one;
// and FerretDB applies `$inc` as a read and a write (list-index.ts), so a conditional counter
// can lose an increment too. What both databases do atomically is refuse a second document with
// the same `_id`: an owner's connectors hold numbered slots `<owner>|<n>` with n below the quota,
// and a create that cannot insert a free one is over quota.
//
// A slot is held before the workflow starts, confirmed once the record is written, and freed when
// the record is removed or the create fails. A crash can leave a slot without a connector (held,
// never confirmed; or the record removed and the slot not yet freed): when an owner finds no free
// slot, slots whose connector has no record are freed first (a held one only after HOLD_MS, the
// most a create takes), so the count converges on the owner's records.
import type { Collection, Db } from 'mongodb';
import { onlyDuplicateKeys } from './duplicate-key';

interface SlotDoc {
  _id: string;
  connector: string;
  at: Date;
  confirmed: boolean;
}

/** Longer than any create (the API's call to Temporal gives up well before). */
export const HOLD_MS = 10 * 60_000;
const RANDOM_TRIES = 3;

const owner64 = (owner: string) => Buffer.from(owner, 'utf8').toString('base64url');
const prefixOf = (owner: string) => `${owner64(owner)}|`;
const slotId = (owner: string, n: number) => prefixOf(owner) + String(n).padStart(7, '0');

/** Which of these connectors (or toolsets) still have a record. */
export type RecordsPresent = (connectorIds: readonly string[]) => Promise<ReadonlySet<string>>;

export const CONNECTOR_SLOTS = 'connector_owner_slots';
export const TOOLSET_SLOTS = 'toolset_owner_slots';

export class OwnerSlots {
  private readonly slots: Collection<SlotDoc>;

  constructor(db: Db, private readonly present: RecordsPresent, private readonly now: () => number = Date.now, collection = CONNECTOR_SLOTS) {
    this.slots = db.collection<SlotDoc>(collection);
  }

  /** Holds a slot for `connectorId`: its id, or null when the owner already has `limit` connectors. */
  async reserve(owner: string, connectorId: string, limit: number): Promise<string | null> {
    // Few slots taken (the usual case, and the only one with a large quota): a random number is
    // free at the first try, without reading the owner's slots.
    for (let attempt = 0; attempt < RANDOM_TRIES; attempt++) {
      const slot = await this.insert(owner, Math.floor(Math.random() * limit), connectorId);
      if (slot) return slot;
    }
    return this.reserveAmongTaken(owner, connectorId, limit);
  }

  /** Many slots taken: read them, and aim at the free ones. */
  private async reserveAmongTaken(owner: string, connectorId: string, limit: number): Promise<string | null> {
    let cleaned = false;
    // Each failed insert means another create took that slot: bounded, with room for frees racing in.
    for (let attempt = 0; attempt < 2 * limit + 10; attempt++) {
      const taken = await this.taken(owner);
      const free = freeSlots(taken, limit);
      if (free.length === 0) {
        if (cleaned || !(await this.freeOrphans(taken))) return null;
        cleaned = true;
        continue;
      }
      // A random free slot, so that concurrent creates rarely aim at the same one.
      const slot = await this.insert(owner, free[Math.floor(Math.random() * free.length)]!, connectorId);
      if (slot) return slot;
    }
    return null;
  }

  /** Slot `n`'s id when it was free and is now the connector's, else null. */
  private async insert(owner: string, n: number, connectorId: string): Promise<string | null> {
    const id = slotId(owner, n);
    try {
      await this.slots.insertOne({ _id: id, connector: connectorId, at: new Date(this.now()), confirmed: false });
      return id;
    } catch (err) {
      if (onlyDuplicateKeys(err)) return null;
      throw err;
    }
  }

  /** The create wrote its record: the slot is the connector's until the record is removed. */
  async confirm(slot: string, connectorId: string): Promise<void> {
    await this.slots.updateOne({ _id: slot, connector: connectorId }, { $set: { confirmed: true } });
  }

  /** Frees the slot a create held (the create failed); idempotent. */
  async releaseSlot(slot: string, connectorId: string): Promise<void> {
    await this.slots.deleteOne({ _id: slot, connector: connectorId });
  }

  /** Frees the connector's slot, wherever it is among the owner's (its record was removed); idempotent. */
  async release(owner: string, connectorId: string): Promise<void> {
    const slot = (await this.taken(owner)).find((s) => s.connector === connectorId);
    if (slot) await this.releaseSlot(slot._id, connectorId);
  }

  /** How many slots the owner holds. */
  async count(owner: string): Promise<number> {
    return (await this.taken(owner)).length;
  }

  private taken(owner: string): Promise<SlotDoc[]> {
    const prefix = prefixOf(owner);
    // A range of `_id`s: served from the index on FerretDB too (list-keys.ts).
    return this.slots.find({ _id: { $gte: prefix, $lt: `${prefix}~` } }).toArray();
  }

  /** Frees the slots no connector stands behind; whether any was freed. */
  private async freeOrphans(taken: readonly SlotDoc[]): Promise<boolean> {
    const present = await this.present(taken.map((s) => s.connector));
    const heldSince = this.now() - HOLD_MS;
    const orphans = taken.filter((s) => !present.has(s.connector) && (s.confirmed || s.at.getTime() < heldSince));
    for (const slot of orphans) await this.slots.deleteOne({ _id: slot._id, connector: slot.connector });
    return orphans.length > 0;
  }
}

function freeSlots(taken: readonly SlotDoc[], limit: number): number[] {
  const used = new Set(taken.map((s) => Number(s._id.slice(s._id.lastIndexOf('|') + 1))));
  const free: number[] = [];
  for (let n = 0; n < limit; n++) if (!used.has(n)) free.push(n);
  return free;
}
