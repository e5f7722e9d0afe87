// The connector list index (list-keys.ts says why): one small document per key, found by `_id`
// alone, and one count per view (list-counts.ts). There are no multi-document transactions
// (FerretDB has none), so a change marks the views it moves before the record is written and
// settles them after its keys: whatever a crash, a killed database or a failed write cuts, the
// views it touched keep a mark, and their counts answer as not exact until the repair has put
// their keys right and recounted them.
//
// Why a recount at repair rather than a count derived on every list: counting a view's keys is a
// read of all of them (countDocuments on FerretDB decodes every document in Go: 250 ms at 10,000
// connectors), and a list must cost the same at 10,000 as at 10. The repair reads every record
// and key once (about a second of FerretDB's time at 10,000), at worker start, 30 minutes after,
// and a few seconds after any change this process saw cut (service/list-index-repair.ts).
import crypto from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { ExclusiveGate } from './exclusive-gate';
import { ListCounts, isExact, writerKey, type CountDoc, type ViewCount } from './list-counts';
import { countIdOf, type ListView, viewPrefix, viewRange } from './list-keys';
import type { PagePosition } from './page-token';
import { insertAbsent } from './duplicate-key';

interface KeyDoc {
  _id: string;
}

export interface RepairResult {
  added: number;
  removed: number;
  /** Views whose count the repair set. */
  recounted: number;
  /** Views left in doubt for now: another writer's change under way, or written while the repair looked. */
  unsettled: number;
}

const BATCH = 100;

export class ListIndex {
  readonly keys: Collection<KeyDoc>;
  readonly counts: ListCounts;
  private readonly gate = new ExclusiveGate();
  private readonly cutListeners: (() => void)[] = [];
  /** Other writers' marks seen at the last repair, by view: the same ones seen again were left by a crash. */
  private suspects = new Map<string, string>();

  /**
   * `writer`: the slot this process writes as. A worker takes its host and port (service/roles.ts),
   * so that one restarted in the same place knows the marks of that slot for its predecessor's.
   */
  constructor(db: Db, public writer: string = crypto.randomUUID()) {
    this.keys = db.collection<KeyDoc>('connector_list_keys');
    this.counts = new ListCounts(db);
  }

  /** `listener` hears of every change of this process that was cut (it left marks to repair). */
  onCut(listener: () => void): void {
    this.cutListeners.push(listener);
  }

  /**
   * A change around `write` (the record's): marks the views of `adds` and `removes`, runs `write`,
   * and when it answers true inserts `adds` and deletes `removes`; then settles each view by what
   * its keys really did. Answers what `write` answered.
   */
  async change(adds: readonly string[], removes: readonly string[], write: () => Promise<boolean>): Promise<boolean> {
    const views = [...new Set([...adds, ...removes].map(countIdOf))];
    if (views.length === 0) return write();
    return this.gate.share(async () => {
      try {
        await Promise.all(views.map((view) => this.counts.mark(view, this.writer)));
        const wrote = await write();
        const moved = new Map(views.map((view) => [view, 0]));
        const move = (key: string, by: number) => moved.set(countIdOf(key), moved.get(countIdOf(key))! + by);
        if (wrote) {
          await Promise.all([
            this.insertNew(adds).then((added) => added.forEach((key) => move(key, 1))),
            ...removes.map(async (key) => { if ((await this.keys.deleteOne({ _id: key })).deletedCount === 1) move(key, -1); }),
          ]);
        }
        const settled = await Promise.all(views.map((view) => this.counts.settle(view, this.writer, moved.get(view)!)));
        if (settled.includes(false)) this.cut();
        return wrote;
      } catch (err) {
        this.cut();
        throw err;
      }
    });
  }

  /** Up to `limit` keys of the view, in order, after `after`. */
  async page(view: ListView, after: PagePosition | null, limit: number): Promise<string[]> {
    const docs = await this.keys.find({ _id: viewRange(view, after) }, { projection: { _id: 1 } }).sort({ _id: 1 }).limit(limit).toArray();
    return docs.map((d) => d._id);
  }

  count(view: ListView): Promise<ViewCount> {
    return this.counts.read(viewPrefix(view));
  }

  /** The counts of every view under a family prefix (e.g. `s|`: by state), by the rest of their `_id`. */
  countsUnder(family: string): Promise<Record<string, number>> {
    return this.counts.under(family);
  }

  /**
   * Makes every view what the records say (`expectedKeys`: every key of every record), alone
   * against this process's changes: adds missing keys, removes stale ones and sets the count of
   * each view that was off, in doubt or marked. Each view is taken by compare-and-set on its `v`,
   * read before the records were: a view another process wrote meanwhile is left for the next
   * pass, and so is one that carries another writer's marks not seen at the pass before.
   */
  repair(expectedKeys: () => Promise<ReadonlySet<string>>): Promise<RepairResult> {
    return this.gate.alone(async () => {
      const before = new Map((await this.counts.docs.find({}).toArray()).map((doc) => [doc._id, doc]));
      const expected = byView(await expectedKeys());
      const present = byView(await this.keys.find({}, { projection: { _id: 1 } }).map((doc) => doc._id).toArray());
      const result: RepairResult = { added: 0, removed: 0, recounted: 0, unsettled: 0 };
      const suspects = new Map<string, string>();
      for (const view of new Set([...before.keys(), ...expected.keys(), ...present.keys()])) {
        const doc = before.get(view) ?? null;
        const want = expected.get(view) ?? new Set<string>();
        const have = present.get(view) ?? new Set<string>();
        const missing = [...want].filter((key) => !have.has(key));
        const stale = [...have].filter((key) => !want.has(key));
        if (missing.length + stale.length === 0 && (doc?.n ?? 0) === want.size && isExact(doc) && onlyOwnMarks(doc, this.writer)) continue;
        const others = othersMarks(doc, this.writer);
        if (others !== '' && this.suspects.get(view) !== others) {
          suspects.set(view, others); // perhaps a change under way in another process: seen again, it was cut
          result.unsettled += 1;
          continue;
        }
        const v = await this.counts.claim(view, doc?.v);
        if (v === null) {
          result.unsettled += 1;
          continue;
        }
        await this.insertKeys(missing);
        for (let i = 0; i < stale.length; i += BATCH) await this.keys.deleteMany({ _id: { $in: stale.slice(i, i + BATCH) } });
        result.added += missing.length;
        result.removed += stale.length;
        if (await this.counts.finish(view, v, want.size)) result.recounted += 1;
        else result.unsettled += 1;
      }
      this.suspects = suspects;
      return result;
    });
  }

  /**
   * Inserts the keys of one change, in one command however many (a create has up to four), and
   * answers those that were not there. Each key is one view's, so the refused ones (a retried
   * change meeting its own keys) say which counts must not move.
   */
  private async insertNew(keys: readonly string[]): Promise<string[]> {
    return (await insertAbsent(this.keys, keys.map((_id) => ({ _id })))).map((doc) => doc._id);
  }

  private async insertKeys(keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += BATCH) await this.insertNew(keys.slice(i, i + BATCH));
  }

  private cut(): void {
    for (const listener of this.cutListeners) listener();
  }
}

function byView(keys: Iterable<string>): Map<string, Set<string>> {
  const views = new Map<string, Set<string>>();
  for (const key of keys) {
    const view = countIdOf(key);
    let set = views.get(view);
    if (!set) views.set(view, (set = new Set()));
    set.add(key);
  }
  return views;
}

/** Whether `p` holds no entry but this writer's (others' spent entries are cleared as the view is recounted). */
function onlyOwnMarks(doc: CountDoc | null, writer: string): boolean {
  return Object.keys(doc?.p ?? {}).every((key) => key === writerKey(writer));
}

/** Other writers' non-zero marks, as a comparable string ('' when none). */
function othersMarks(doc: CountDoc | null, writer: string): string {
  const mine = writerKey(writer);
  return Object.entries(doc?.p ?? {}).filter(([key, k]) => key !== mine && k !== 0).sort().map(([key, k]) => `${key}=${k}`).join(',');
}
