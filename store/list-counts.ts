// The counts of the connector list views (list-index.ts), one document per view found by `_id`:
//   { _id: <view prefix>, n, v, p: { <writer>: <changes under way> }, dirty? }
// `n` moves with every key really inserted or deleted. A count cannot move in one write with its
// key (no multi-document transactions on FerretDB), so a writer marks the view first (`p` of its
// writer slot + 1), writes its keys, then settles (`n` by what the keys did, its mark − 1): a crash,
// a killed database or a failed write anywhere in between leaves the mark, and a view with a mark
// left is reported as not exact (`total_count_exact: false`) until the repair recounts it. So a
// count is never wrong without saying so; a change's marks are one command however many views it
// moves, and so are its settles (below: the group writes).
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
  /** Each writer's count command under way in this process, and what follows it. */
  private readonly queues = new Map<string, CountQueue>();

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

  /**
   * FerretDB applies an update as a read and a write of the document, so two at once can lose
   * one: a process serialises its own writes of the counts (one worker process writes the index
   * of an embedded FerretDB; MongoDB's updates are atomic across processes). Serialised one by
   * one, every change of a busy view (all connectors, a state) waited for every other's two
   * writes: at 50 connects at once, most of a connect's time (issue 29). So a writer's count
   * writes are grouped (group commit): while one command is under way, the marks and settles that
   * arrive, of every view, join the next, which goes once it ends as one update command with a
   * statement per view (two commands beside each other when some views are only marked and others
   * settle). A change's marks of its four views are one command, and so are its settles.
   * Each caller's promise still settles only when the command carrying its part has been
   * acknowledged, so nothing is reported done before it is durable. A view's statement is
   * applied whole or not at all; a command that fails part-way rejects all its callers, whose
   * changes are then cut and leave marks for the repair, as a failed write of one view did.
   */
  private join(countId: string, writer: string): CountBatch {
    let queue = this.queues.get(writer);
    if (!queue) {
      queue = { next: null, writing: false };
      this.queues.set(writer, queue);
    }
    const views = (queue.next ??= new Map());
    let batch = views.get(countId);
    if (!batch) views.set(countId, (batch = { marks: [], settles: [] }));
    // The caller adds itself now; the first write starts a microtask later, with what joined by then.
    if (!queue.writing) {
      queue.writing = true;
      const started = queue;
      queueMicrotask(() => void this.drain(writer, started));
    }
    return batch;
  }

  private async drain(writer: string, queue: CountQueue): Promise<void> {
    while (queue.next) {
      const views = queue.next;
      queue.next = null;
      await this.write(writer, views);
    }
    queue.writing = false;
    if (this.queues.get(writer) === queue) this.queues.delete(writer);
  }

  /** One command for what joined: each view's marks added, its settles' marks taken away and their moves counted. */
  private async write(writer: string, views: Map<string, CountBatch>): Promise<void> {
    const field = writerField(writer);
    const batches = [...views];
    try {
      const statements = batches.map(([countId, batch]) => statementOf(countId, batch, field));
      let inDoubt = new Set<string>();
      if ((await this.apply(statements)) < statements.length) {
        // A repair took the marks of a view that settles here (its statement matched nothing): the
        // command tells how many matched, not which, so every settle of it is in doubt, and the
        // marks that went with one are written again (at worst twice: more marks than changes
        // under way keep a view not exact until the repair, never make it look exact).
        inDoubt = new Set(batches.filter(([, batch]) => batch.settles.length > 0).map(([countId]) => countId));
        await this.apply(batches.filter(([countId]) => inDoubt.has(countId)).map(([countId, batch]) => doubtOf(countId, batch, field)));
      }
      for (const [countId, batch] of batches) {
        for (const m of batch.marks) m.resolve();
        for (const s of batch.settles) s.resolve(!inDoubt.has(countId));
      }
    } catch (err) {
      for (const [, batch] of batches) {
        for (const m of batch.marks) m.reject(err);
        for (const s of batch.settles) s.reject(err);
      }
    }
  }

  /**
   * Runs the statements that settle as one command and answers how many matched a document; the
   * marks alone (which match always, or make their document) go as another, beside it.
   */
  private async apply(statements: Statement[]): Promise<number> {
    const upserts = statements.filter((s) => s.upsert);
    const [matched] = await Promise.all([this.update(statements.filter((s) => !s.upsert)), this.upsert(upserts)]);
    return matched + upserts.length;
  }

  /** One command (a lone statement as a single update: the driver's bulk path costs more); answers how many matched. */
  private async update(statements: Statement[]): Promise<number> {
    if (statements.length === 0) return 0;
    const result = statements.length === 1
      ? await this.docs.updateOne(statements[0]!.filter, statements[0]!.update, { upsert: statements[0]!.upsert })
      : await this.docs.bulkWrite(statements.map((updateOne) => ({ updateOne })), { ordered: true });
    return result.matchedCount + result.upsertedCount;
  }

  /**
   * Two first upserts of a view at once (two processes): the loser runs into the winner's `_id`
   * and goes again as an update. Ordered, because then what the refusal did not stop is exactly
   * the statements before it (FerretDB stops at the first refusal even unordered).
   */
  private async upsert(statements: Statement[]): Promise<void> {
    for (let rest = statements; rest.length > 0;) {
      try {
        await this.update(rest);
        return;
      } catch (err) {
        if (!onlyDuplicateKeys(err)) throw err;
        const refused = [(err as { writeErrors?: { index: number } | { index: number }[] }).writeErrors ?? { index: 0 }].flat()[0]!.index;
        await this.update([{ ...rest[refused]!, upsert: false }]);
        rest = rest.slice(refused + 1);
      }
    }
  }
}

interface Statement {
  filter: Filter<CountDoc>;
  update: Record<string, unknown>;
  upsert: boolean;
}

/**
 * A view's part of a group write. Marks alone create the document if it is not there. With
 * settles, every settle's own mark must be in the document (written before its change's keys):
 * where it is not, a repair took it, and the statement matches nothing.
 */
function statementOf(countId: string, batch: CountBatch, field: string): Statement {
  const marks = batch.marks.length;
  const settles = batch.settles.length;
  if (settles === 0) return { filter: { _id: countId }, update: { $inc: { [field]: marks, v: 1 } }, upsert: true };
  const by = batch.settles.reduce((sum, s) => sum + s.by, 0);
  return { filter: { _id: countId, [field]: { $gte: settles } } as Filter<CountDoc>, update: { $inc: { n: by, [field]: marks - settles, v: 1 } }, upsert: false };
}

/** A view whose settles are in doubt: says so, and keeps the marks that went with them. */
function doubtOf(countId: string, batch: CountBatch, field: string): Statement {
  const marks = batch.marks.length;
  return { filter: { _id: countId }, update: { $set: { dirty: true }, $inc: marks > 0 ? { [field]: marks, v: 1 } : { v: 1 } }, upsert: false };
}

interface CountBatch {
  marks: { resolve: () => void; reject: (err: unknown) => void }[];
  settles: { by: number; resolve: (settled: boolean) => void; reject: (err: unknown) => void }[];
}

interface CountQueue {
  /** What joined since the command under way, by view. */
  next: Map<string, CountBatch> | null;
  writing: boolean;
}

/** A writer slot as a key of `p`: any characters (a host name has dots) become base64url. */
export function writerKey(writer: string): string {
  return Buffer.from(writer, 'utf8').toString('base64url');
}

function writerField(writer: string): string {
  return `p.${writerKey(writer)}`;
}
