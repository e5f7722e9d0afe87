// MongoDB: the toolsets. A toolset is one document, written whole by the API (compare-and-set on
// `updated_at`, so that two PATCHes cannot interleave) and pruned by the connector workflow's
// delete (a member whose connector is gone is pulled from every toolset, idempotently).
import type { Collection, Db, Filter } from 'mongodb';
import type { ToolsetRecord } from '../contract/toolset-record';
import type { Page } from './connector-store';
import { InvalidPageToken, decodePageToken, encodePageToken } from './page-token';

type ToolsetDoc = Omit<ToolsetRecord, 'id'> & { _id: string };

export class ToolsetStore {
  private readonly docs: Collection<ToolsetDoc>;

  constructor(db: Db) {
    this.docs = db.collection<ToolsetDoc>('toolsets');
  }

  /**
   * No index but `_id`: FerretDB (the embedded database) serves only `_id` from an index anyway,
   * and an owner's toolsets are few (a scan of the collection per list or connector delete).
   */
  async ensureIndexes(): Promise<void> {}

  async insert(record: ToolsetRecord): Promise<void> {
    const { id, ...rest } = record;
    await this.docs.insertOne({ _id: id, ...rest });
  }

  async get(id: string): Promise<ToolsetRecord | null> {
    const doc = await this.docs.findOne({ _id: id });
    return doc ? toRecord(doc) : null;
  }

  /** Replaces the toolset if it is still as `before` left it; false when it changed or went meanwhile. */
  async replace(before: ToolsetRecord, after: ToolsetRecord): Promise<boolean> {
    const { id, ...rest } = after;
    const result = await this.docs.replaceOne({ _id: id, updated_at: before.updated_at }, rest);
    return result.matchedCount === 1;
  }

  async delete(id: string): Promise<boolean> {
    return (await this.docs.deleteOne({ _id: id })).deletedCount === 1;
  }

  /** Pulls the connector from every toolset that has it; a second run finds none. */
  async removeConnector(connectorId: string): Promise<number> {
    const holding = await this.docs.find({ 'members.connector_id': connectorId }).toArray();
    let changed = 0;
    for (const doc of holding) {
      const members = doc.members.filter((m) => m.connector_id !== connectorId);
      const updated = await this.docs.updateOne({ _id: doc._id, updated_at: doc.updated_at }, { $set: { members, updated_at: new Date().toISOString() } });
      // A toolset changed meanwhile is read again: its new members may still hold the connector.
      if (updated.matchedCount === 0) return changed + (await this.removeConnector(connectorId));
      changed += 1;
    }
    return changed;
  }

  /** Keyset paging on (created_at, id), like the connector lists; `createdBy` undefined: everyone's. */
  async list(query: { limit: number; pageToken?: string; createdBy?: string }): Promise<Page<ToolsetRecord>> {
    const base: Filter<ToolsetDoc> = query.createdBy === undefined ? {} : { created_by: query.createdBy };
    const after = query.pageToken ? decodePageToken(query.pageToken) : null;
    if (after && Number.isNaN(Date.parse(after.k))) throw new InvalidPageToken('page_token is not a token this service issued');
    const filter: Filter<ToolsetDoc> = after
      ? { ...base, $or: [{ created_at: { $gt: after.k } }, { created_at: after.k, _id: { $gt: after.id } }] }
      : base;
    const [docs, total] = await Promise.all([
      this.docs.find(filter).sort({ created_at: 1, _id: 1 }).limit(query.limit + 1).toArray(),
      this.docs.countDocuments(base),
    ]);
    const page = docs.slice(0, query.limit);
    const last = page[page.length - 1];
    const hasMore = docs.length > query.limit;
    return {
      items: page.map(toRecord),
      total_count: total,
      has_more: hasMore,
      next_page_token: hasMore && last ? encodePageToken({ k: last.created_at, id: last._id }) : null,
    };
  }
}

function toRecord({ _id, ...rest }: ToolsetDoc): ToolsetRecord {
  return { id: _id, ...rest };
}
