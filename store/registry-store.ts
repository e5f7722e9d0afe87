// What the registry sync keeps: each allow-listed server's entry as the registry last served it
// (validated, unknown fields dropped), the sync's high-water mark for `updated_since`, and the
// admins' approvals of registry stdio presets, one approved version per server. Every write is
// idempotent (keyed by server name, last write of the same data wins), so a retried activity
// changes nothing.
import type { Collection, Db } from 'mongodb';
import type { PresetApproval, StoredRegistryEntry } from '../catalog/preset-catalog';

type EntryDoc = Omit<StoredRegistryEntry, 'name'> & { _id: string };
type ApprovalDoc = Omit<PresetApproval, 'name'> & { _id: string };
interface MarkDoc { _id: string; updatedSince: string }

const MARK_ID = 'registry-sync';

export class RegistryStore {
  private readonly entries: Collection<EntryDoc>;
  private readonly approvals: Collection<ApprovalDoc>;
  private readonly marks: Collection<MarkDoc>;

  constructor(db: Db) {
    this.entries = db.collection<EntryDoc>('registry_entries');
    this.approvals = db.collection<ApprovalDoc>('preset_approvals');
    this.marks = db.collection<MarkDoc>('registry_sync');
  }

  async list(): Promise<StoredRegistryEntry[]> {
    const docs = await this.entries.find({}).sort({ _id: 1 }).toArray();
    return docs.map(({ _id, ...rest }) => ({ name: _id, ...rest }));
  }

  async get(name: string): Promise<StoredRegistryEntry | null> {
    const doc = await this.entries.findOne({ _id: name });
    return doc ? (({ _id, ...rest }) => ({ name: _id, ...rest }))(doc) : null;
  }

  async put(entries: readonly StoredRegistryEntry[]): Promise<void> {
    for (const { name, ...rest } of entries) {
      await this.entries.replaceOne({ _id: name }, rest, { upsert: true });
    }
  }

  /** Entries of servers no longer on the allow-list. */
  async keepOnly(names: readonly string[]): Promise<string[]> {
    const gone = (await this.entries.find({ _id: { $nin: [...names] } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id);
    if (gone.length) await this.entries.deleteMany({ _id: { $in: gone } });
    return gone;
  }

  async mark(): Promise<string | null> {
    return (await this.marks.findOne({ _id: MARK_ID }))?.updatedSince ?? null;
  }

  async setMark(updatedSince: string): Promise<void> {
    await this.marks.replaceOne({ _id: MARK_ID }, { updatedSince }, { upsert: true });
  }

  async approve(approval: PresetApproval): Promise<void> {
    const { name, ...rest } = approval;
    await this.approvals.replaceOne({ _id: name }, rest, { upsert: true });
  }

  async listApprovals(): Promise<PresetApproval[]> {
    const docs = await this.approvals.find({}).toArray();
    return docs.map(({ _id, ...rest }) => ({ name: _id, ...rest }));
  }
}
