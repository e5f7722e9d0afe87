// The connector list index (list-keys.ts says why): one small document per key, and one count
// per view, both found by `_id` alone. There are no multi-document transactions (FerretDB has
// none): a count moves only with a key that was really inserted or deleted, so a retried write
// never counts twice. A crash between two writes can leave a stale or a missing key, which
// reconcile() (the worker, at start and then periodically) puts right; a crash between a key's
// write and its count's leaves that count one off.
import type { Collection, Db } from 'mongodb';
import { countIdOf, type ListView, viewPrefix, viewRange } from './list-keys';
import type { PagePosition } from './page-token';

interface KeyDoc {
  _id: string;
  /** When the key was written: reconcile() leaves young keys alone (their record may be on its way). */
  at: Date;
}
interface CountDoc {
  _id: string;
  n: number;
}

const DUPLICATE_KEY = 11000;
const isDuplicate = (err: unknown) => (err as { code?: number }).code === DUPLICATE_KEY;

const BATCH = 100;

/** How old an unexpected key must be before reconcile() removes it. */
export const STALE_KEY_AGE_MS = 60_000;

export class ListIndex {
  readonly keys: Collection<KeyDoc>;
  private readonly counts: Collection<CountDoc>;
  /** The last bump of each count under way in this process. */
  private readonly bumps = new Map<string, Promise<unknown>>();

  constructor(db: Db) {
    this.keys = db.collection<KeyDoc>('connector_list_keys');
    this.counts = db.collection<CountDoc>('connector_list_counts');
  }

  /** Inserts the keys; each one that was not there yet adds one to its view's count. */
  async add(keys: readonly string[], now = new Date()): Promise<void> {
    await Promise.all(keys.map(async (key) => {
      try {
        await this.keys.insertOne({ _id: key, at: now });
      } catch (err) {
        if (isDuplicate(err)) return;
        throw err;
      }
      await this.bump(countIdOf(key), 1);
    }));
  }

  /** Deletes the keys; each one that was there takes one from its view's count. */
  async remove(keys: readonly string[]): Promise<void> {
    await Promise.all(keys.map(async (key) => {
      const { deletedCount } = await this.keys.deleteOne({ _id: key });
      if (deletedCount === 1) await this.bump(countIdOf(key), -1);
    }));
  }

  /** Up to `limit` keys of the view, in order, after `after`. */
  async page(view: ListView, after: PagePosition | null, limit: number): Promise<string[]> {
    const docs = await this.keys.find({ _id: viewRange(view, after) }, { projection: { _id: 1 } }).sort({ _id: 1 }).limit(limit).toArray();
    return docs.map((d) => d._id);
  }

  async count(view: ListView): Promise<number> {
    return (await this.counts.findOne({ _id: viewPrefix(view) }))?.n ?? 0;
  }

  /** The counts of every view under a family prefix (e.g. `s|`: by state), by the rest of their `_id`. */
  async countsUnder(family: string): Promise<Record<string, number>> {
    const docs = await this.counts.find({ _id: { $gt: family, $lt: `${family}~` } }).toArray();
    return Object.fromEntries(docs.filter((d) => d.n > 0).map((d) => [d._id.slice(family.length, -1), d.n]));
  }

  /**
   * Makes the index what `expected` (every key of every record) says: adds the missing keys and
   * removes unexpected ones older than STALE_KEY_AGE_MS, moving the counts with them as any
   * write does (so a write racing this pass is counted once).
   */
  async reconcile(expected: ReadonlySet<string>, now = new Date()): Promise<{ added: number; removed: number }> {
    const present = new Map<string, Date>();
    for await (const doc of this.keys.find({})) present.set(doc._id, doc.at);
    const missing = [...expected].filter((key) => !present.has(key));
    const staleBefore = now.getTime() - STALE_KEY_AGE_MS;
    const stale = [...present].filter(([key, at]) => !expected.has(key) && at.getTime() < staleBefore).map(([key]) => key);
    for (let i = 0; i < missing.length; i += BATCH) await this.add(missing.slice(i, i + BATCH), now);
    for (let i = 0; i < stale.length; i += BATCH) await this.remove(stale.slice(i, i + BATCH));
    return { added: missing.length, removed: stale.length };
  }

  /**
   * FerretDB applies `$inc` as a read and a write of the document, so two at once can lose one:
   * a process serialises its own bumps of a count (the embedded stack has one worker process;
   * MongoDB's `$inc` is atomic across processes). Two first upserts at once: the loser retries.
   */
  private bump(countId: string, by: number): Promise<void> {
    const run = async () => {
      const inc = () => this.counts.updateOne({ _id: countId }, { $inc: { n: by } }, { upsert: true });
      await inc().catch((err) => (isDuplicate(err) ? inc() : Promise.reject(err)));
    };
    const next = (this.bumps.get(countId) ?? Promise.resolve()).then(run, run);
    const tail = next.catch(() => undefined);
    this.bumps.set(countId, tail);
    void tail.then(() => { if (this.bumps.get(countId) === tail) this.bumps.delete(countId); });
    return next;
  }
}
