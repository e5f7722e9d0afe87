// The change feed: what proxies in other processes must forget, as it happens. An activity that
// changes a connector's route (every transition: connect, disconnect, re-authorization, step-up,
// delete) and the API when it changes a toolset append an entry; each proxy process polls the
// entries after the last it saw and drops what they name from its caches (service/change-listener.ts).
// MongoDB's change streams would do this, but FerretDB (the embedded database) has none.
//
// Entries are numbered without gaps, so that a reader can tell it missed some: an entry takes the
// number after the newest by inserting it under that `_id` (an insert of a taken `_id` fails on
// both databases, where FerretDB's updates are not atomic: owner-slots.ts), and a writer always
// reads the newest first, so it never reuses the number of an entry pruned long ago. The newest
// KEEP_ENTRIES entries are kept; older ones go as the feed moves on.
import type { Collection, Db } from 'mongodb';
import { onlyDuplicateKeys } from './duplicate-key';

export type ChangeKind = 'connector' | 'toolset';

export interface Change {
  kind: ChangeKind;
  id: string;
}

/** One entry: the changes one process published while its previous entry was being written. */
export interface FeedEntry {
  seq: number;
  changes: Change[];
}

interface EntryDoc {
  _id: string;
  changes: Change[];
  at: Date;
}

interface Batch {
  changes: Change[];
  written: Promise<void>;
  settle(err?: unknown): void;
}

/** How many entries the feed keeps by default: a reader further behind than this has missed some. */
export const KEEP_ENTRIES = 1000;
const MAX_BATCH = 500;
const TRIES = 50;

// Fixed width, so that the `_id`s sort as their numbers (and FerretDB serves the range from its index).
const idOf = (seq: number) => `c${String(seq).padStart(13, '0')}`;
const seqOf = (id: string) => Number(id.slice(1));

export class ChangeFeed {
  private readonly docs: Collection<EntryDoc>;
  private next: Batch | null = null;
  private writing = false;

  /** `keep`: how many of the newest entries are kept (every tenth entry prunes the older ones). */
  constructor(db: Db, private readonly keep = KEEP_ENTRIES) {
    this.docs = db.collection<EntryDoc>('route_changes');
  }

  /**
   * Appends a change; resolves once it is in the database. A process writes one entry at a time:
   * what is published meanwhile joins the next (group commit), so that its own writers never
   * contend for a number. A retried publish adds another entry, which only means one more forget.
   */
  publish(kind: ChangeKind, id: string): Promise<void> {
    if (!this.next || this.next.changes.length >= MAX_BATCH) this.next = newBatch();
    const batch = this.next;
    batch.changes.push({ kind, id });
    if (!this.writing) void this.writeBatches();
    return batch.written;
  }

  private async writeBatches(): Promise<void> {
    this.writing = true;
    // A microtask later, with what joined by then.
    await Promise.resolve();
    while (this.next) {
      const batch = this.next;
      this.next = null;
      await this.append(batch.changes).then(() => batch.settle(), (err: unknown) => batch.settle(err));
    }
    this.writing = false;
  }

  private async append(changes: Change[]): Promise<void> {
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const seq = (await this.newest()) + 1;
      try {
        await this.docs.insertOne({ _id: idOf(seq), changes, at: new Date() });
        if (seq % Math.ceil(this.keep / 10) === 0) await this.docs.deleteMany({ _id: { $gt: 'c', $lte: idOf(seq - this.keep) } });
        return;
      } catch (err) {
        if (!onlyDuplicateKeys(err)) throw err;
        // Another process took the number: spread the next tries so that the same ones do not meet again.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (attempt + 1)));
      }
    }
    throw new Error(`the change feed stayed contended for ${TRIES} tries`);
  }

  /** The number of the newest entry; 0 when there is none. */
  async newest(): Promise<number> {
    const [doc] = await this.docs.find({ _id: { $gt: 'c', $lt: 'd' } }, { projection: { _id: 1 } }).sort({ _id: -1 }).limit(1).toArray();
    return doc ? seqOf(doc._id) : 0;
  }

  /** The entries after `seq`, oldest first, at most `limit`. */
  async after(seq: number, limit: number): Promise<FeedEntry[]> {
    const docs = await this.docs.find({ _id: { $gt: idOf(seq), $lt: 'd' } }).sort({ _id: 1 }).limit(limit).toArray();
    return docs.map((d) => ({ seq: seqOf(d._id), changes: d.changes }));
  }
}

function newBatch(): Batch {
  let settle!: (err?: unknown) => void;
  const written = new Promise<void>((resolve, reject) => (settle = (err) => (err === undefined ? resolve() : reject(err))));
  return { changes: [], written, settle };
}
