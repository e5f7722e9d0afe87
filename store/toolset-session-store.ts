// MongoDB: the 2025-11-25 toolset sessions, so that any proxy replica serves any session and a
// session outlives the replica that opened it. One document per session, in a slot of the owner
// who opened it: `_id` is `<owner, base64url>|<slot>` with the slot below the per-owner cap, so that
// the cap holds across replicas without a transaction (FerretDB has none): two opens racing for one
// slot meet the duplicate `_id`, as the connector quota's slots do (owner-slots.ts). A flood by one
// owner fills that owner's slots and nobody else's.
//
// A member session is kept the same way: two replicas opening one for the same session at once
// race to insert `<session>|<member>|<generation>` (FerretDB applies a conditional update as a read
// and a write, so only a duplicate `_id` settles a race); the loser uses the winner's. The session
// document keeps a copy of the latest for the readers, which a stale copy cannot mislead for long:
// a member that forgot its session answers 404, and replacing it meets the newer generation.
//
// The session id the client holds is `<slot>.<secret>`; only the secret's SHA-256 is stored, and a
// look-up goes by the caller's own owner, so another caller's request with the same id finds
// nothing. Sessions idle for longer than the idle timeout are gone: a read treats them as absent
// and removes them, an owner out of slots frees its expired ones first, and `sweep` removes the
// rest (FerretDB has no TTL indexes: store/expiry.ts).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import type { MemberSessionRecord, ToolsetSessionRecord } from '../contract/toolset-record';
import { onlyDuplicateKeys } from './duplicate-key';

interface MemberDoc {
  session_id: string | null;
  protocol_version: string;
  generation?: number;
}

/** The member sessions opened for a session: `<session _id>|<key's start>|<connector id>|<generation>`. */
interface MemberSessionDoc extends MemberDoc {
  _id: string;
  at: Date;
}

interface SessionDoc {
  _id: string;
  /** SHA-256 of the secret part of the session id, hex. */
  key: string;
  toolset_id: string;
  protocol_version: string;
  /** The client's capabilities and info, as JSON text (their keys are the client's, not the database's). */
  client: string;
  members: Record<string, MemberDoc>;
  created_at: Date;
  used_at: Date;
}

export type NewToolsetSession = Omit<ToolsetSessionRecord, 'members' | 'usedAt'>;

const SLOT_DIGITS = 7;
const SESSION_ID = /^(\d{7})\.([A-Za-z0-9_-]{32})$/;
/** Connector ids are UUIDs: safe as a field name. */
const CONNECTOR_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RANDOM_TRIES = 3;

const ownerPrefix = (owner: string) => `${Buffer.from(owner, 'utf8').toString('base64url')}|`;
const hash = (secret: string) => createHash('sha256').update(secret).digest('hex');

export class ToolsetSessionStore {
  private readonly docs: Collection<SessionDoc>;
  private readonly members: Collection<MemberSessionDoc>;

  constructor(db: Db, private readonly now: () => number = Date.now) {
    this.docs = db.collection<SessionDoc>('toolset_sessions');
    this.members = db.collection<MemberSessionDoc>('toolset_member_sessions');
  }

  /** Nothing but `_id`: every look-up goes by it (an owner's slots are a range of it). */
  async ensureIndexes(): Promise<void> {}

  /** A new session in one of `owner`'s `limit` slots: its id, or null when every slot is taken by a live session. */
  async open(owner: string, session: NewToolsetSession, limit: number, idleMs: number): Promise<string | null> {
    const secret = randomBytes(24).toString('base64url');
    const doc = (slot: number): SessionDoc => ({
      _id: ownerPrefix(owner) + String(slot).padStart(SLOT_DIGITS, '0'), key: hash(secret), toolset_id: session.toolsetId,
      protocol_version: session.protocolVersion, client: JSON.stringify({ capabilities: session.clientCapabilities, info: session.clientInfo }),
      members: {}, created_at: new Date(this.now()), used_at: new Date(this.now()),
    });
    const idOf = (slot: number) => `${String(slot).padStart(SLOT_DIGITS, '0')}.${secret}`;
    // Few slots taken (the usual case): a random one is free at the first try.
    for (let attempt = 0; attempt < RANDOM_TRIES; attempt++) {
      const slot = Math.floor(Math.random() * limit);
      if (await this.insert(doc(slot))) return idOf(slot);
    }
    for (let attempt = 0; attempt < RANDOM_TRIES; attempt++) {
      const free = await this.freeSlots(owner, limit, idleMs);
      if (free.length === 0) return null;
      const slot = free[Math.floor(Math.random() * free.length)]!;
      if (await this.insert(doc(slot))) return idOf(slot);
    }
    return null;
  }

  /** The caller's session `sessionId`, or null: unknown, another owner's, or idle past `idleMs`. */
  async get(owner: string, sessionId: string, idleMs: number): Promise<ToolsetSessionRecord | null> {
    const parsed = this.parse(owner, sessionId);
    if (!parsed) return null;
    const doc = await this.docs.findOne({ _id: parsed.id });
    return doc && this.live(doc, parsed.key, idleMs);
  }

  /** The live ones among several sessions (a replica checking the streams it holds), by session id. */
  async many(sessions: readonly { owner: string; sessionId: string }[], idleMs: number): Promise<Map<string, ToolsetSessionRecord>> {
    const parsed = sessions.map((s) => ({ sessionId: s.sessionId, key: this.parse(s.owner, s.sessionId) }));
    const ids = parsed.flatMap((p) => (p.key ? [p.key.id] : []));
    const docs = new Map((ids.length ? await this.docs.find({ _id: { $in: ids } }).toArray() : []).map((d) => [d._id, d]));
    const live = new Map<string, ToolsetSessionRecord>();
    for (const { sessionId, key } of parsed) {
      const doc = key && docs.get(key.id);
      const record = doc && (await this.live(doc, key.key, idleMs));
      if (record) live.set(sessionId, record);
    }
    return live;
  }

  async touch(owner: string, sessionId: string): Promise<void> {
    const parsed = this.parse(owner, sessionId);
    if (parsed) await this.docs.updateOne({ _id: parsed.id, key: parsed.key }, { $set: { used_at: new Date(this.now()) } });
  }

  /**
   * Keeps `fresh` as the session's member session unless another request kept one meanwhile (one
   * other than `replacing`): answers the one kept, or null when the session is gone.
   */
  async keepMember(owner: string, sessionId: string, connectorId: string, fresh: MemberSessionRecord, replacing: MemberSessionRecord | undefined): Promise<MemberSessionRecord | null> {
    const parsed = this.parse(owner, sessionId);
    if (!parsed || !CONNECTOR_ID.test(connectorId) || !(await this.docs.findOne({ _id: parsed.id, key: parsed.key }, { projection: { _id: 1 } }))) return null;
    const generation = (replacing?.generation ?? -1) + 1;
    // The key's start keeps a later session in the same slot from meeting this one's member sessions.
    const id = `${parsed.id}|${parsed.key.slice(0, 16)}|${connectorId}|${String(generation).padStart(6, '0')}`;
    const value: MemberDoc = { session_id: fresh.sessionId, protocol_version: fresh.protocolVersion, generation };
    try {
      await this.members.insertOne({ _id: id, ...value, at: new Date(this.now()) });
    } catch (err) {
      if (!onlyDuplicateKeys(err)) throw err;
      const kept = await this.members.findOne({ _id: id });
      return kept ? memberOf(kept) : null;
    }
    await this.docs.updateOne({ _id: parsed.id, key: parsed.key }, { $set: { [`members.${connectorId}`]: value } });
    return memberOf(value);
  }

  /** Ends the session: what it was (its members' sessions are the caller's to close), or null when there was none. */
  async end(owner: string, sessionId: string): Promise<ToolsetSessionRecord | null> {
    const parsed = this.parse(owner, sessionId);
    if (!parsed) return null;
    const doc = await this.docs.findOne({ _id: parsed.id, key: parsed.key });
    if (!doc || (await this.docs.deleteOne({ _id: parsed.id, key: parsed.key })).deletedCount !== 1) return null;
    await this.forgetMembers([parsed.id]);
    return recordOf(doc);
  }

  /** Removes every session idle for longer than `idleMs`; how many went. */
  async sweep(idleMs: number): Promise<number> {
    const cutoff = new Date(this.now() - idleMs);
    const expired = (await this.docs.find({ used_at: { $lt: cutoff } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id);
    if (expired.length === 0) return 0;
    const { deletedCount } = await this.docs.deleteMany({ _id: { $in: expired }, used_at: { $lt: cutoff } });
    await this.forgetMembers(expired);
    return deletedCount;
  }

  private async forgetMembers(sessionIds: readonly string[]): Promise<void> {
    for (const id of sessionIds) await this.members.deleteMany({ _id: { $gte: `${id}|`, $lt: `${id}}` } });
  }

  private parse(owner: string, sessionId: string): { id: string; key: string } | null {
    const match = SESSION_ID.exec(sessionId);
    return match ? { id: ownerPrefix(owner) + match[1]!, key: hash(match[2]!) } : null;
  }

  private async live(doc: SessionDoc, key: string, idleMs: number): Promise<ToolsetSessionRecord | null> {
    const given = Buffer.from(key, 'hex');
    const stored = Buffer.from(doc.key, 'hex');
    if (given.length !== stored.length || !timingSafeEqual(given, stored)) return null;
    if (doc.used_at.getTime() < this.now() - idleMs) {
      if ((await this.docs.deleteOne({ _id: doc._id, used_at: doc.used_at })).deletedCount === 1) await this.forgetMembers([doc._id]);
      return null;
    }
    return recordOf(doc);
  }

  private async insert(doc: SessionDoc): Promise<boolean> {
    try {
      await this.docs.insertOne(doc);
      return true;
    } catch (err) {
      if (onlyDuplicateKeys(err)) return false;
      throw err;
    }
  }

  /** The owner's slots not held by a live session; expired ones are removed on the way. */
  private async freeSlots(owner: string, limit: number, idleMs: number): Promise<number[]> {
    const prefix = ownerPrefix(owner);
    // '}' follows '|': the range holds exactly this owner's slots.
    const taken = await this.docs.find({ _id: { $gte: prefix, $lt: `${prefix.slice(0, -1)}}` } }, { projection: { used_at: 1 } }).toArray();
    const cutoff = this.now() - idleMs;
    const expired = taken.filter((d) => d.used_at.getTime() < cutoff).map((d) => d._id);
    if (expired.length) {
      await this.docs.deleteMany({ _id: { $in: expired }, used_at: { $lt: new Date(cutoff) } });
      await this.forgetMembers(expired);
    }
    const held = new Set(taken.filter((d) => d.used_at.getTime() >= cutoff).map((d) => Number(d._id.slice(prefix.length))));
    const free: number[] = [];
    for (let slot = 0; slot < limit; slot++) if (!held.has(slot)) free.push(slot);
    return free;
  }
}

function memberOf(doc: MemberDoc): MemberSessionRecord {
  return { sessionId: doc.session_id, protocolVersion: doc.protocol_version, ...(doc.generation === undefined ? {} : { generation: doc.generation }) };
}

function recordOf(doc: SessionDoc): ToolsetSessionRecord {
  const client = JSON.parse(doc.client) as { capabilities: Record<string, unknown>; info: Record<string, unknown> };
  const members: Record<string, MemberSessionRecord> = {};
  for (const [id, member] of Object.entries(doc.members ?? {})) members[id] = memberOf(member);
  return {
    toolsetId: doc.toolset_id, protocolVersion: doc.protocol_version, clientCapabilities: client.capabilities, clientInfo: client.info,
    members, usedAt: doc.used_at.getTime(),
  };
}
