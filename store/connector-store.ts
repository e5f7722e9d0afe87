// MongoDB: the connector records (a projection written by the workflow's activities), the audit
// trail, and the reads of the API. Writes are idempotent so that an activity retried after a
// crash changes nothing the first attempt already did.
import { ConnectorRecordSchema, type AuditEvent, type ConnectorRecord, type ProjectedVersion } from '../contract/connector-record';
import type { Collection, Db, Filter } from 'mongodb';

import { ensureTtlIndex, sweepExpired, type Expiry } from './expiry';
import { ListIndex, type RepairResult } from './list-index';
import { inView, listKeysOf, positionOf, type ListView } from './list-keys';
import { InvalidPageToken, decodePageToken, encodePageToken } from './page-token';
import { OwnerSlots } from './owner-slots';
import { onlyDuplicateKeys } from './duplicate-key';

type RecordDoc = Omit<ConnectorRecord, 'id'> & { _id: string };
/** `expires_at` is set when the connector's record is removed: the events are kept until then. */
type EventDoc = Omit<AuditEvent, 'connectorId'> & { _id: string; connector_id: string; expires_at?: Date };

const RECORD_FIELDS = Object.keys(ConnectorRecordSchema.shape);

export const EVENT_EXPIRY: Expiry = { field: 'expires_at', afterSeconds: 0 };

export interface Page<T> {
  items: T[];
  total_count: number;
  has_more: boolean;
  next_page_token: string | null;
}



export class ConnectorStore {
  private readonly records: Collection<RecordDoc>;
  private readonly events: Collection<EventDoc>;
  private readonly index: ListIndex;
  /** The per-owner quota's slots (owner-slots.ts); freed here when a record is removed. */
  readonly slots: OwnerSlots;

  /** `listWriter`: the slot this process writes the list index as (list-index.ts); a random one by default. */
  constructor(private readonly db: Db, listWriter?: string, now: () => number = Date.now) {
    this.records = db.collection<RecordDoc>('connectors');
    this.events = db.collection<EventDoc>('connector_events');
    this.index = new ListIndex(db, listWriter);
    this.slots = new OwnerSlots(db, (ids) => this.present(ids), now);
  }

  /** Lists use the list index (list-keys.ts), found by `_id` alone: no index on records but `_id`. */
  async ensureIndexes(): Promise<void> {
    await this.events.createIndex({ connector_id: 1, seq: 1 }, { unique: true });
    await ensureTtlIndex(this.events, EVENT_EXPIRY);
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  /**
   * Writes the record unless the same or a newer version is already there (a retried or late
   * write changes nothing), and moves its list keys. Without `prior`, the record is read first, so
   * that the views its keys leave are known and marked before it is written (list-index.ts), and
   * written only over that version (compare-and-set): a write that raced this one is read again.
   * With `prior` (the version its writer wrote last, null when none), that stands in for the
   * read; where the stored record is not that version, the write changes nothing and the read
   * follows.
   */
  async project(view: ConnectorRecord, prior?: ProjectedVersion | null): Promise<void> {
    if (prior !== undefined) {
      const before = prior && { version: prior.version, keys: listKeysOf({ ...view, state: prior.state }) };
      if (await this.writeOver(view, before, unsetOf(RECORD_FIELDS, view))) return;
    }
    for (;;) {
      const before = await this.records.findOne({ _id: view.id });
      // The same or a newer version is there. A write that stopped after it and before its keys
      // left the marks of its views: the repair puts those keys right.
      if (before && before.version >= view.version) return;
      const stored = before && { version: before.version, keys: listKeysOf(toView(before)) };
      if (await this.writeOver(view, stored, unsetOf(before ? Object.keys(before) : [], view))) return;
    }
  }

  /**
   * Writes `view` over the record at `before` (null: none), moving only the keys that change (a
   * state's: one transition moves two or four keys, not eight). False where the stored record was
   * not that version.
   */
  private writeOver(view: ConnectorRecord, before: { version: number; keys: string[] } | null, unset: { $unset?: Record<string, ''> }): Promise<boolean> {
    const { id, ...rest } = view;
    const old = before?.keys ?? [];
    const now = listKeysOf(view);
    const write = async () => {
      if (before) return (await this.records.updateOne({ _id: id, version: before.version }, { $set: rest, ...unset })).matchedCount === 1;
      return this.records.insertOne({ _id: id, ...rest }).then(() => true, (err) => (onlyDuplicateKeys(err) ? false : Promise.reject(err)));
    };
    return this.index.change(now.filter((key) => !old.includes(key)), old.filter((key) => !now.includes(key)), write);
  }

  /** Appends audit events; those already there (a retried write) are left as they are. */
  async appendEvents(events: AuditEvent[]): Promise<void> {
    const docs = events.map(({ connectorId, ...rest }) => ({ _id: `${connectorId}:${rest.seq}`, connector_id: connectorId, ...rest }));
    try {
      // insertOne for the usual single event: the driver's bulk path costs twice the CPU.
      if (docs.length === 1) await this.events.insertOne(docs[0]!);
      else await this.events.insertMany(docs, { ordered: false });
    } catch (err) {
      if (!onlyDuplicateKeys(err)) throw err;
    }
  }

  /**
   * Removes the record, and dates the connector's audit events to go at `eventsExpireAt`. A
   * retried removal keeps the first date: only events without one are stamped. The record goes
   * before its keys, with their views marked: a connector GET no longer finds is never listed again.
   */
  async remove(connectorId: string, eventsExpireAt: Date): Promise<void> {
    await this.events.updateMany({ connector_id: connectorId, expires_at: { $exists: false } }, { $set: { expires_at: eventsExpireAt } });
    for (;;) {
      const doc = await this.records.findOne({ _id: connectorId });
      if (!doc) return;
      const write = async () => (await this.records.deleteOne({ _id: connectorId, version: doc.version })).deletedCount === 1;
      if (await this.index.change([], listKeysOf(toView(doc)), write)) {
        // A crash before this leaves the slot to OwnerSlots' own repair (no record behind it).
        if (doc.created_by) await this.slots.release(doc.created_by, connectorId);
        return;
      }
    }
  }

  /** Deletes the events the TTL index would have (those of connectors removed long enough ago). */
  async sweepExpiredEvents(now = new Date()): Promise<number> {
    return sweepExpired(this.events, EVENT_EXPIRY, now);
  }

  async get(connectorId: string): Promise<ConnectorRecord | null> {
    const doc = await this.records.findOne({ _id: connectorId });
    return doc ? toView(doc) : null;
  }

  /**
   * The ids of the connectors made from a preset (by its normalised URL), for the registry sync
   * that withdraws one. A scan: it runs when a registry server is deleted, not per request.
   */
  async idsWithPreset(presetUrl: string): Promise<string[]> {
    const docs = await this.records.find({ 'preset.url': presetUrl }, { projection: { _id: 1 } }).toArray();
    return docs.map((d) => d._id);
  }

  /**
   * Keyset paging on (created_at, id) over the view's keys in the list index: a page token stays
   * valid however many records are added, and a page costs the same on page 1 and page 100.
   * `total_count` is the view's maintained count, and `total_count_exact` false while a change of
   * the view is being written or was cut and not yet repaired (list-index.ts).
   */
  async list(query: { limit: number; pageToken?: string; state?: string; createdBy?: string }): Promise<Page<ConnectorRecord> & { total_count_exact: boolean }> {
    const view: ListView = { state: query.state, owner: query.createdBy };
    const after = query.pageToken ? decodePageToken(query.pageToken) : null;
    const [keys, count] = await Promise.all([this.index.page(view, after, query.limit + 1), this.index.count(view)]);
    const pageKeys = keys.slice(0, query.limit);
    const ids = pageKeys.map((key) => positionOf(key).id);
    const docs = ids.length === 0 ? [] : await this.records.find({ _id: { $in: ids } }).toArray();
    const byId = new Map(docs.map((doc) => [doc._id, toView(doc)]));
    // A key can be a moment ahead of or behind its record (list-index.ts): the record decides.
    const items = ids.map((id) => byId.get(id)).filter((r): r is ConnectorRecord => r !== undefined && inView(r, view));
    const hasMore = keys.length > query.limit;
    const last = pageKeys[pageKeys.length - 1];
    return {
      items,
      total_count: count.n,
      total_count_exact: count.exact,
      has_more: hasMore,
      next_page_token: hasMore && last ? encodePageToken(positionOf(last)) : null,
    };
  }

  /** How many connectors are in each state (a metrics scrape); states with none are absent. */
  async countByState(): Promise<Record<string, number>> {
    return this.index.countsUnder('s|');
  }

  /** Which of these connectors have a record (one `$in` on `_id`, served from the index). */
  private async present(ids: readonly string[]): Promise<ReadonlySet<string>> {
    if (ids.length === 0) return new Set();
    const docs = await this.records.find({ _id: { $in: [...ids] } }, { projection: { _id: 1 } }).toArray();
    return new Set(docs.map((d) => d._id));
  }

  /** How many connectors `owner` has (the list index's count: a floor for the quota, see owner-slots.ts). */
  async countOwnedBy(owner: string): Promise<number> {
    return (await this.index.count({ owner })).n;
  }

  /**
   * Puts the list index right after a cut change (list-index.ts), and fills it for records from
   * before it: every record's keys, read after the counts were.
   */
  async repairListIndex(): Promise<RepairResult> {
    return this.index.repair(async () => {
      const expected = new Set<string>();
      const fields = { _id: 1, state: 1, created_at: 1, created_by: 1 } as const;
      for await (const doc of this.records.find({}, { projection: fields })) {
        for (const key of listKeysOf({ id: doc._id, state: doc.state, created_at: doc.created_at, created_by: doc.created_by })) expected.add(key);
      }
      return expected;
    });
  }

  /** `listener` hears of every list index change of this process that was cut (a repair is due). */
  onListIndexCut(listener: () => void): void {
    this.index.onCut(listener);
  }

  /** The slot this process writes the list index as (list-index.ts); set once, before any write. */
  writeListIndexAs(writer: string): void {
    this.index.writer = writer;
  }

  async listEvents(connectorId: string, query: { limit: number; pageToken?: string }): Promise<Page<AuditEvent>> {
    const after = query.pageToken ? decodePageToken(query.pageToken) : null;
    if (after && !/^\d{1,9}$/.test(after.k)) throw new InvalidPageToken('page_token is not a token this service issued');
    const base: Filter<EventDoc> = { connector_id: connectorId };
    const filter: Filter<EventDoc> = after ? { ...base, seq: { $gt: Number(after.k) } } : base;
    const [docs, total] = await Promise.all([
      this.events.find(filter).sort({ seq: 1 }).limit(query.limit + 1).toArray(),
      this.events.countDocuments(base),
    ]);
    const page = docs.slice(0, query.limit);
    const last = page[page.length - 1];
    const hasMore = docs.length > query.limit;
    return {
      items: page.map(({ _id, connector_id, expires_at, ...e }) => ({ connectorId: connector_id, ...e })),
      total_count: total,
      has_more: hasMore,
      next_page_token: hasMore && last ? encodePageToken({ k: String(last.seq), id: last._id }) : null,
    };
  }
}

function toView({ _id, ...rest }: RecordDoc): ConnectorRecord {
  // Records projected before protocol_version existed lack it.
  return { id: _id, ...rest, protocol_version: rest.protocol_version ?? null };
}

// The view leaves out an optional field that is empty (approval rules removed, no headers): $set
// alone would keep the stored one. So each of `fields` (the stored document's, or unread, every
// field the schema allows) that the view has not goes.
function unsetOf(fields: readonly string[], view: ConnectorRecord): { $unset?: Record<string, ''> } {
  const gone = fields.filter((key) => key !== '_id' && key !== 'id' && !(key in view));
  return gone.length ? { $unset: Object.fromEntries(gone.map((key) => [key, ''])) } : {};
}
