// MongoDB: the connector records (a projection written by the workflow's activities), the audit
// trail, and the reads of the API. Writes are idempotent so that an activity retried after a
// crash changes nothing the first attempt already did.
import type { AuditEvent, ConnectorRecord } from '../core/connector-record';
import type { Collection, Db, Filter } from 'mongodb';

import { ensureTtlIndex, sweepExpired, type Expiry } from './expiry';
import { InvalidPageToken, decodePageToken, encodePageToken } from './page-token';

type RecordDoc = Omit<ConnectorRecord, 'id'> & { _id: string };
/** `expires_at` is set when the connector's record is removed: the events are kept until then. */
type EventDoc = Omit<AuditEvent, 'connectorId'> & { _id: string; connector_id: string; expires_at?: Date };

export const EVENT_EXPIRY: Expiry = { field: 'expires_at', afterSeconds: 0 };

export interface Page<T> {
  items: T[];
  total_count: number;
  has_more: boolean;
  next_page_token: string | null;
}

const DUPLICATE_KEY = 11000;

function onlyDuplicates(err: unknown): boolean {
  const e = err as { code?: number; writeErrors?: { code?: number } | { code?: number }[] };
  if (e.writeErrors === undefined) return e.code === DUPLICATE_KEY;
  return [e.writeErrors].flat().every((w) => w.code === DUPLICATE_KEY);
}

export class ConnectorStore {
  private readonly records: Collection<RecordDoc>;
  private readonly events: Collection<EventDoc>;

  constructor(private readonly db: Db) {
    this.records = db.collection<RecordDoc>('connectors');
    this.events = db.collection<EventDoc>('connector_events');
  }

  async ensureIndexes(): Promise<void> {
    await this.records.createIndex({ created_at: 1, _id: 1 });
    await this.records.createIndex({ state: 1, created_at: 1, _id: 1 });
    await this.records.createIndex({ created_by: 1, created_at: 1, _id: 1 });
    await this.events.createIndex({ connector_id: 1, seq: 1 }, { unique: true });
    await ensureTtlIndex(this.events, EVENT_EXPIRY);
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  /**
   * Writes the record unless the same or a newer version is already there (a retried or late
   * write): the filter matches only an older version, and the upsert of a record that is newer
   * runs into its own `_id` and changes nothing.
   */
  async project(view: ConnectorRecord): Promise<void> {
    const { id, ...rest } = view;
    try {
      await this.records.updateOne({ _id: id, version: { $lt: view.version } }, { $set: rest }, { upsert: true });
    } catch (err) {
      if (!onlyDuplicates(err)) throw err;
    }
  }

  /** Appends audit events; those already there (a retried write) are left as they are. */
  async appendEvents(events: AuditEvent[]): Promise<void> {
    const docs = events.map(({ connectorId, ...rest }) => ({ _id: `${connectorId}:${rest.seq}`, connector_id: connectorId, ...rest }));
    try {
      // insertOne for the usual single event: the driver's bulk path costs twice the CPU.
      if (docs.length === 1) await this.events.insertOne(docs[0]!);
      else await this.events.insertMany(docs, { ordered: false });
    } catch (err) {
      if (!onlyDuplicates(err)) throw err;
    }
  }

  /**
   * Removes the record, and dates the connector's audit events to go at `eventsExpireAt`. A
   * retried removal keeps the first date: only events without one are stamped.
   */
  async remove(connectorId: string, eventsExpireAt: Date): Promise<void> {
    await this.events.updateMany({ connector_id: connectorId, expires_at: { $exists: false } }, { $set: { expires_at: eventsExpireAt } });
    await this.records.deleteOne({ _id: connectorId });
  }

  /** Deletes the events the TTL index would have (those of connectors removed long enough ago). */
  async sweepExpiredEvents(now = new Date()): Promise<number> {
    return sweepExpired(this.events, EVENT_EXPIRY, now);
  }

  async get(connectorId: string): Promise<ConnectorRecord | null> {
    const doc = await this.records.findOne({ _id: connectorId });
    return doc ? toView(doc) : null;
  }

  /** Keyset paging on (created_at, id): a page token stays valid however many records are added. */
  async list(query: { limit: number; pageToken?: string; state?: string; createdBy?: string }): Promise<Page<ConnectorRecord>> {
    const base: Filter<RecordDoc> = {
      ...(query.state ? { state: query.state as RecordDoc['state'] } : {}),
      ...(query.createdBy !== undefined ? { created_by: query.createdBy } : {}),
    };
    const after = query.pageToken ? decodePageToken(query.pageToken) : null;
    const filter: Filter<RecordDoc> = after
      ? { ...base, $or: [{ created_at: { $gt: after.k } }, { created_at: after.k, _id: { $gt: after.id } }] }
      : base;
    const [docs, total] = await Promise.all([
      this.records.find(filter).sort({ created_at: 1, _id: 1 }).limit(query.limit + 1).toArray(),
      this.records.countDocuments(base),
    ]);
    const page = docs.slice(0, query.limit);
    const last = page[page.length - 1];
    const hasMore = docs.length > query.limit;
    return {
      items: page.map(toView),
      total_count: total,
      has_more: hasMore,
      next_page_token: hasMore && last ? encodePageToken({ k: last.created_at, id: last._id }) : null,
    };
  }

  /** How many connectors are in each state (a metrics scrape); states with none are absent. */
  async countByState(): Promise<Record<string, number>> {
    const rows = await this.records.aggregate<{ _id: string; n: number }>([{ $group: { _id: '$state', n: { $sum: 1 } } }]).toArray();
    return Object.fromEntries(rows.map((row) => [row._id, row.n]));
  }

  /** How many connectors `owner` has (the per-owner quota). */
  async countOwnedBy(owner: string): Promise<number> {
    return this.records.countDocuments({ created_by: owner });
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
  return { id: _id, ...rest };
}
