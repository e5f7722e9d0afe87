// The counts of the connector list views (list-index.ts), one document per view found by `_id`:
//   { _id: <view prefix>, n, v, p: { <writer>: <changes under way> }, dirty? }
// `n` moves with every key really inserted or deleted. A count cannot move in one write with its
// key (no multi-document transactions on FerretDB), so a writer marks the view first (`p` of its
// writer slot + 1), writes its keys, then settles (`n` by what the keys did, its mark − 1): a crash,
// a killed database or a failed write anywhere in between leaves the mark, and a view with a mark
// left is reported as not exact (`total_count_exact: false`) until the repair recounts it. So a
// count is never wrong without saying so, and a mark costs one write per view a change moves.
// `v` goes up with every write of the document: the repair recounts a view only when `v` shows
// that nothing else wrote it meanwhile (compare-and-set), and a writer whose mark the repair took
// away (it settles into a document that no longer holds it) sets `dirty` instead of settling,
// because its key may or may not be in the repair's count.
import type { Collection, Db, Filter } from 'mongodb';
import { onlyDuplicateKeys } from './duplicate-key';

export interface CountDoc {
  _id: string;
  n: number;
  /** Absent on counts written before marks existed: not trusted until the repair has set it. */
  v?: number;
  p?: Record<string, number>;
  dirty?: true;
}

export interface ViewCount {
  n: number;
  /** False while a change of the view is being written, or was cut and not yet repaired. */
  exact: boolean;
}


export function isExact(doc: CountDoc | null): boolean {
  if (doc === null) return true;
  return doc.v !== undefined && doc.dirty === undefined && Object.values(doc.p ?? {}).every((k) => k === 0);
}

export class ListCounts {
  readonly docs: Collection<CountDoc>;
  /** The last write of each count under way in this process. */
  private readonly queue = new Map<string, Promise<unknown>>();

  constructor(db: Db) {
    this.docs = db.collection<CountDoc>('connector_list_counts');
  }

  async read(countId: string): Promise<ViewCount> {
    const doc = await this.docs.findOne({ _id: countId });
    return { n: doc?.n ?? 0, exact: isExact(doc) };
  }

  /** The counts of every view under a family prefix (e.g. `s|`: by state), by the rest of their `_id`. */
  async under(family: string): Promise<Record<string, number>> {
    const docs = await this.docs.find({ _id: { $gt: family, $lt: `${family}~` } }).toArray();
    return Object.fromEntries(docs.filter((d) => d.n > 0).map((d) => [d._id.slice(family.length, -1), d.n]));
  }

  /** Marks the view as being changed by `writer` (slot: see writerField). */
  mark(countId: string, writer: string): Promise<void> {
    return this.serially(countId, () => this.upsert(countId, { $inc: { [writerField(writer)]: 1, v: 1 } }));
  }

  /**
   * Ends a change that moved the view's keys by `by`: takes the mark away; or, when a repair
   * already has, says the count is in doubt. Answers false in that case.
   */
  settle(countId: string, writer: string, by: number): Promise<boolean> {
    const field = writerField(writer);
    return this.serially(countId, async () => {
      const filter = { _id: countId, [field]: { $gte: 1 } } as Filter<CountDoc>;
      const { matchedCount } = await this.docs.updateOne(filter, { $inc: { n: by, [field]: -1, v: 1 } });
      if (matchedCount === 1) return true;
      await this.docs.updateOne({ _id: countId }, { $set: { dirty: true }, $inc: { v: 1 } });
      return false;
    });
  }

  /**
   * The repair takes a view (compare-and-set on `v`, read before it scanned): marks it `dirty`
   * unless something wrote it since. `v` undefined: a count of the earlier shape, or none yet.
   * Answers the `v` it left, or null when the view moved on.
   */
  async claim(countId: string, v: number | undefined): Promise<number | null> {
    const filter = { _id: countId, v: v === undefined ? { $exists: false } : v } as Filter<CountDoc>;
    try {
      const { matchedCount, upsertedCount } = await this.docs.updateOne(filter, { $set: { dirty: true }, $inc: { v: 1 } }, { upsert: v === undefined });
      return matchedCount + upsertedCount === 1 ? (v ?? 0) + 1 : null;
    } catch (err) {
      if (onlyDuplicateKeys(err)) return null; // it exists with a `v`: written meanwhile
      throw err;
    }
  }

  /** The repair sets the count it made and clears every mark, if nothing wrote the view since its claim. */
  async finish(countId: string, v: number, n: number): Promise<boolean> {
    const { matchedCount } = await this.docs.updateOne({ _id: countId, v }, { $set: { n, v: v + 1, p: {} }, $unset: { dirty: '' } });
    return matchedCount === 1;
  }

  /** Two first upserts at once: the loser runs into the winner's `_id`, and tries again as an update. */
  private async upsert(countId: string, update: Record<string, unknown>): Promise<void> {
    const write = () => this.docs.updateOne({ _id: countId }, update, { upsert: true });
    await write().catch((err) => (onlyDuplicateKeys(err) ? write() : Promise.reject(err)));
  }

  /**
   * FerretDB applies an update as a read and a write of the document, so two at once can lose
   * one: a process serialises its own writes of a count (one worker process writes the index of
   * an embedded FerretDB; MongoDB's updates are atomic across processes).
   */
  private serially<T>(countId: string, run: () => Promise<T>): Promise<T> {
    const next = (this.queue.get(countId) ?? Promise.resolve()).then(run, run);
    const tail = next.catch(() => undefined);
    this.queue.set(countId, tail);
    void tail.then(() => { if (this.queue.get(countId) === tail) this.queue.delete(countId); });
    return next;
  }
}

/** A writer slot as a key of `p`: any characters (a host name has dots) become base64url. */
export function writerKey(writer: string): string {
  return Buffer.from(writer, 'utf8').toString('base64url');
}

function writerField(writer: string): string {
  return `p.${writerKey(writer)}`;
}
