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
  /** The writes of each count (and writer) under way in this process, and the batch that follows. */
  private readonly batches = new Map<string, CountQueue>();

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
    return new Promise<void>((resolve, reject) => this.join(countId, writer).marks.push({ resolve, reject }));
  }

  /**
   * Ends a change that moved the view's keys by `by`: takes the mark away; or, when a repair
   * already has, says the count is in doubt. Answers false in that case.
   */
  settle(countId: string, writer: string, by: number): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => this.join(countId, writer).settles.push({ by, resolve, reject }));
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
   * an embedded FerretDB; MongoDB's updates are atomic across processes). Serialised one by one,
   * every change of a busy view (all connectors, a state) waited for every other's two writes:
   * at 50 connects at once, most of a connect's time (issue 29). So the writes of a view group
   * (group commit): while one is under way, the marks and settles that arrive join the next
   * batch, which goes as one update once it ends. Each caller's promise still settles only when
   * the update carrying its part has been acknowledged, so nothing is reported done before it
   * is durable, and a batch is never applied in part.
   */
  private join(countId: string, writer: string): CountBatch {
    const key = `${countId}\u0000${writer}`;
    let queue = this.batches.get(key);
    if (!queue) {
      queue = { next: null, writing: false };
      this.batches.set(key, queue);
    }
    const batch = (queue.next ??= { marks: [], settles: [] });
    // The caller adds itself now; the first write starts a microtask later, with what joined by then.
    if (!queue.writing) {
      queue.writing = true;
      const started = queue;
      queueMicrotask(() => void this.drain(key, countId, writer, started));
    }
    return batch;
  }

  private async drain(key: string, countId: string, writer: string, queue: CountQueue): Promise<void> {
    while (queue.next) {
      const batch = queue.next;
      queue.next = null;
      await this.write(countId, writer, batch);
    }
    queue.writing = false;
    if (this.batches.get(key) === queue) this.batches.delete(key);
  }

  /** One update for a batch: its marks added, its settles' marks taken away and their moves counted. */
  private async write(countId: string, writer: string, batch: CountBatch): Promise<void> {
    const field = writerField(writer);
    const marks = batch.marks.length;
    const settles = batch.settles.length;
    try {
      let settled = true;
      if (settles === 0) {
        await this.upsert(countId, { $inc: { [field]: marks, v: 1 } });
      } else {
        const by = batch.settles.reduce((sum, s) => sum + s.by, 0);
        // Every settle's own mark is in the document (written before its change's keys).
        const filter = { _id: countId, [field]: { $gte: settles } } as Filter<CountDoc>;
        const { matchedCount } = await this.docs.updateOne(filter, { $inc: { n: by, [field]: marks - settles, v: 1 } });
        if (matchedCount !== 1) {
          // A repair took the marks away: the settles' moves are in doubt, the new marks still go in.
          settled = false;
          const update = { $set: { dirty: true as const }, $inc: marks > 0 ? { [field]: marks, v: 1 } : { v: 1 } };
          await this.docs.updateOne({ _id: countId }, update);
        }
      }
      for (const m of batch.marks) m.resolve();
      for (const s of batch.settles) s.resolve(settled);
    } catch (err) {
      for (const m of batch.marks) m.reject(err);
      for (const s of batch.settles) s.reject(err);
    }
  }
}

interface CountBatch {
  marks: { resolve: () => void; reject: (err: unknown) => void }[];
  settles: { by: number; resolve: (settled: boolean) => void; reject: (err: unknown) => void }[];
}

interface CountQueue {
  next: CountBatch | null;
  writing: boolean;
}

/** A writer slot as a key of `p`: any characters (a host name has dots) become base64url. */
export function writerKey(writer: string): string {
  return Buffer.from(writer, 'utf8').toString('base64url');
}

function writerField(writer: string): string {
  return `p.${writerKey(writer)}`;
}
