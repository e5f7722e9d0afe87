// MongoDB: the per-call audit of MCP traffic (contract/call-record.ts), written by the proxy's queue
// and listed by the API, newest first (in the order the calls ended, the queue's order; `time` is
// when each arrived).
//
// Laid out so that every read is an `_id` lookup, the only query the embedded database (FerretDB
// 1.24 on SQLite) pushes down: a range of `_id` is a scan of the whole collection there (explain:
// filterPushdown false; a page took 8 s at 50,000 calls). Each write of the queue stores one
// batch document per connector, naming the connector's batch before it; successor slots (unique
// inserts) lead from a hint to the newest batch. A listing finds the newest and walks back batch
// by batch (a first page: 3 ms at 50,000 calls in batches of 25, `npm run bench:call-audit`); a
// filter that matches nothing reads at most 100 batches before answering with a page token.
// Writers in several proxy processes each claim the next slot; only one insert of a slot can win.
// Batches go CONNECTOR__CALL_AUDIT_DAYS after their last call ended: by a TTL index on `at` where
// the database has them, else by the worker's sweep.
import { createHash, randomBytes } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import type { BodyShape, Call, CallEntry, TaskChangeRow } from '../contract/call-record';
import { ensureTtlIndex, sweepExpired, type Expiry } from './expiry';
import { InvalidPageToken } from './page-token';
import { onlyDuplicateKeys } from './duplicate-key';
import { AuditTips } from './audit-tips';

/** One call as a batch keeps it; `at` in epoch milliseconds. */
interface CallFields {
  at: number;
  caller: string | null;
  session_id: string | null;
  http_method: string;
  rpc_method: string | null;
  rpc_name: string | null;
  body: BodyShape;
  status: number | null;
  rpc_error_code: number | null;
  duration_ms: number;
  request_bytes: number;
  response_bytes: number;
  /** Calls through a toolset only. */
  toolset_id?: string;
  member_id?: string | null;
  /** A tools/call answered with a task of the server's own. */
  task_id?: string;
  /** A task's change of status. */
  task?: TaskChangeRow;
}

/**
 * A batch (`<connector>:<time key>`), a successor slot (`<batch or root>>`), a connector's hint
 * of its newest batch (`<connector>:head`) or where a task of a server's own was last seen to
 * stand (`<connector>:task:<hash of its id>`); `at` carries the expiry of each.
 */
interface AuditDoc {
  _id: string;
  connector_id: string;
  at: Date;
  /** Batch: the connector's batch before it. */
  prev?: string | null;
  /**
   * Batch: its calls, a JSON array of CallFields. One string rather than subdocuments: the
   * database stores and returns it without taking each call apart (FerretDB spent several times
   * the proxy's own CPU per call on subdocuments), and nothing is ever queried inside it.
   */
  calls?: string;
  /** Slot: the batch that follows. */
  next?: string;
  /** Hint: a recent batch, from which the slots lead to the newest. */
  head?: string;
  /** Server's task: the status last seen, and how many changes were. */
  status?: string;
  seen?: number;
}

export interface CallQuery {
  limit: number;
  pageToken?: string;
  since?: Date;
  until?: Date;
  method?: string;
  /** One status (404) or a class ('5xx'). */
  status?: string;
  /** true: HTTP status 400 and above or a JSON-RPC error; false: neither. */
  error?: boolean;
}

export interface CallPage {
  items: Call[];
  has_more: boolean;
  next_page_token: string | null;
}

const COLLECTION = 'connector_calls';
const INDEX_OPTIONS_CONFLICT = 85;
/**
 * Batches, and calls in them, read for one page at most: a filter that matches little answers a
 * short page with a token to go on. The calls bound it where batches are large (up to 2,000 calls,
 * about 500 KB, each).
 */
const MAX_BATCHES_PER_PAGE = 100;
const MAX_CALLS_READ_PER_PAGE = 50_000;
/**
 * A call that arrived after `since` ended after it, and a proxy's batches hold calls in the order
 * they ended: the walk stops at a batch that ended before `since`, less this for the batches of
 * several proxies interleaving on the chain.
 */
const CHAIN_SLACK_MS = 60_000;
/** Keeps batch ids of the same millisecond apart across proxies: a random tag per process, then a counter. */
const PROCESS_TAG = randomBytes(4).toString('hex');
let sequence = 0;

/** 12 hex digits of milliseconds: sorts as the time does until the year 10889. */
const timeKey = (ms: number) => ms.toString(16).padStart(12, '0');
const headId = (connectorId: string) => `${connectorId}:head`;
/** Stands before a connector's first batch; never a document itself. */
const rootOf = (connectorId: string) => `${connectorId}:0`;
/** The successor slot of a batch (or of the root): whoever inserts it first links the next batch. */
const slotOf = (id: string) => `${id}>`;

function batchId(connectorId: string, first: Date): string {
  sequence = (sequence + 1) % 0x1000000;
  return `${connectorId}:${timeKey(first.getTime())}${PROCESS_TAG}${sequence.toString(16).padStart(6, '0')}`;
}

export class CallAuditStore {
  private readonly docs: Collection<AuditDoc>;
  readonly expiry: Expiry;
  private readonly tips = new AuditTips();

  constructor(private readonly db: Db, retentionDays: number) {
    this.docs = db.collection<AuditDoc>(COLLECTION);
    this.expiry = { field: 'at', afterSeconds: retentionDays * 86_400 };
  }

  /** True when the database expires batches itself (a TTL index), false when the sweep must. */
  async ensureIndexes(): Promise<boolean> {
    try {
      return await ensureTtlIndex(this.docs, this.expiry);
    } catch (err) {
      if ((err as { code?: number }).code !== INDEX_OPTIONS_CONFLICT) throw err;
      // CONNECTOR__CALL_AUDIT_DAYS changed since the index was made: the index follows it.
      await this.db.command({ collMod: COLLECTION, index: { keyPattern: { at: 1 }, expireAfterSeconds: this.expiry.afterSeconds } });
      return true;
    }
  }

  /** One batch per connector in `entries`; a failure is the queue's to count. */
  async insert(entries: CallEntry[]): Promise<void> {
    const byConnector = new Map<string, CallEntry[]>();
    for (const entry of entries) {
      const list = byConnector.get(entry.connectorId);
      if (list) list.push(entry);
      else byConnector.set(entry.connectorId, [entry]);
    }
    await Promise.all([...byConnector].map(([connectorId, calls]) => this.append(connectorId, calls)));
  }

  /**
   * Stores the batch, then links it after the connector's newest batch by claiming that batch's
   * successor slot: an insert with a unique `_id`, so that of two proxies only one can win it even
   * on a database whose updates are not atomic (FerretDB's are not). The loser follows the winner
   * and tries the next slot. Until it is linked, a batch is invisible to listings. Where this
   * process linked the connector's newest batch itself (AuditTips), the batch and its claim go in
   * one ordered command, and nothing is read: each command costs both processes about a
   * millisecond of CPU here, which the calls of a batch share.
   */
  private async append(connectorId: string, entries: CallEntry[]): Promise<void> {
    const id = batchId(connectorId, entries[0]!.at);
    const at = endOf(entries);
    const tip = this.tips.get(connectorId) ?? (await this.tipOf(connectorId));
    const batch: AuditDoc = { _id: id, connector_id: connectorId, at, prev: tip === rootOf(connectorId) ? null : tip, calls: JSON.stringify(entries.map(toFields)) };
    await this.link(connectorId, id, tip, at, (slot) => this.insertClaiming(batch, slot));
  }

  /**
   * One row under a key of the writer's (a task's id and change number): written once however
   * often it is asked, so that a retried activity or a replayed workflow adds nothing. Its batch
   * id derives from the key, and a batch's `prev` always names the slot it claims next (it is
   * set before each claim), so a retry after a crash finds whether that slot took it and, if
   * not, goes on linking from there.
   */
  async appendOnce(connectorId: string, key: string, entry: CallEntry): Promise<void> {
    const id = `${connectorId}:${timeKey(entry.at.getTime())}${createHash('sha256').update(key).digest('hex').slice(0, 14)}`;
    // When it is written, not when its change was: a row written late (its worker was down) goes
    // at the head of the chain, and the walk for `since` must not stop at it.
    const at = new Date(Math.max(Date.now(), endOf([entry]).getTime()));
    let batch = await this.docs.findOne({ _id: id });
    if (!batch) {
      const tip = await this.tipOf(connectorId);
      batch = { _id: id, connector_id: connectorId, at, prev: tip === rootOf(connectorId) ? null : tip, calls: JSON.stringify([toFields(entry)]) };
      try {
        await this.docs.insertOne(batch);
      } catch (err) {
        if (!onlyDuplicateKeys(err)) throw err;
        batch = (await this.docs.findOne({ _id: id }))!; // another attempt's insert: link from where it stands
      }
    }
    const claimed = batch.prev ?? rootOf(connectorId);
    if ((await this.docs.findOne({ _id: slotOf(claimed) }))?.next === id) return this.hint(connectorId, id, at);
    await this.link(connectorId, id, claimed, at);
  }

  /**
   * The row of a status a relayed answer showed of a task the server owns, where it differs from
   * the one seen last. Each change is a claim document (`<task>#<n>`) that only one insert can
   * make, so of the replicas that see a change at once one numbers it and writes its row; the
   * others find the claim and write nothing. The task's own document hints at its latest claim.
   */
  async appendServerTask(entry: CallEntry): Promise<void> {
    const task = entry.task!;
    const base = `${entry.connectorId}:task:${createHash('sha256').update(task.task_id).digest('hex').slice(0, 32)}`;
    const claim = (n: number) => this.docs.findOne({ _id: `${base}#${n}` });
    let n = (await this.docs.findOne({ _id: base }))?.seen ?? 0;
    let last = n > 0 ? (await claim(n))?.status : undefined;
    for (let attempt = 0; attempt < 50; attempt++) {
      for (let next = await claim(n + 1); next; next = await claim(n + 1)) {
        n += 1;
        last = next.status;
      }
      if (last === task.status) return; // it stands where it was seen last
      try {
        await this.docs.insertOne({ _id: `${base}#${n + 1}`, connector_id: entry.connectorId, at: new Date(), status: task.status });
      } catch (err) {
        if (!onlyDuplicateKeys(err)) throw err;
        continue; // another replica claimed that change first: read it
      }
      await this.docs.updateOne({ _id: base }, { $set: { seen: n + 1, at: new Date(), connector_id: entry.connectorId } }, { upsert: true });
      return this.appendOnce(entry.connectorId, `task:${task.task_id}:server:${n + 1}`, { ...entry, task: { ...task, change: n + 1 } });
    }
    throw new Error('the server\'s task kept changing under this write');
  }

  /**
   * Claims the successor slot of `from`, or of the batches after it, for the batch `id`; the first
   * claim by `firstClaim` (the batch's own insert with it), the rest by inserting the slot alone.
   */
  private async link(connectorId: string, id: string, from: string, at: Date, firstClaim = (slot: AuditDoc) => this.claim(slot)): Promise<void> {
    let tip = from;
    for (let attempt = 0; attempt < 50; attempt++) {
      const slot: AuditDoc = { _id: slotOf(tip), connector_id: connectorId, at, next: id };
      if (await (attempt === 0 ? firstClaim(slot) : this.claim(slot))) return this.linked(connectorId, id, at);
      // Another writer's batch took the slot: go after it — unless the chain already leads to
      // this batch (a second attempt of the same activity ran at once and linked it). Then its
      // `prev` is set to where it is linked: this attempt may have set it to a slot it then lost,
      // and listings walk back by `prev` (a batch in between would be skipped).
      const walked = await this.walk(tip, id);
      await this.docs.updateOne({ _id: id }, { $set: { prev: walked.tip === rootOf(connectorId) ? null : walked.tip } });
      if (walked.linked) return this.linked(connectorId, id, at);
      tip = walked.tip;
    }
    throw new Error('the connector\'s audit chain kept growing under this write');
  }

  /** Inserts the slot; false where another writer's batch holds it already. */
  private async claim(slot: AuditDoc): Promise<boolean> {
    try {
      await this.docs.insertOne(slot);
      return true;
    } catch (err) {
      if (!onlyDuplicateKeys(err)) throw err;
      return false;
    }
  }

  /**
   * The batch, then the claim of the slot after its tip, in one ordered insert: a slot never names
   * a batch that is not there. False where only the slot was refused (the batch is in).
   */
  private async insertClaiming(batch: AuditDoc, slot: AuditDoc): Promise<boolean> {
    try {
      await this.docs.insertMany([batch, slot], { ordered: true });
      return true;
    } catch (err) {
      const refused = [(err as { writeErrors?: { index?: number } | { index?: number }[] }).writeErrors ?? []].flat();
      if (!onlyDuplicateKeys(err) || !refused.every((w) => w.index === 1)) throw err;
      return false;
    }
  }

  private async linked(connectorId: string, id: string, at: Date): Promise<void> {
    this.tips.remember(connectorId, id);
    await this.hint(connectorId, id, at);
  }

  /** The connector's newest linked batch (its root when it has none): the hint, then the slots after it. */
  private async tipOf(connectorId: string): Promise<string> {
    const hinted = (await this.docs.findOne({ _id: headId(connectorId) }))?.head;
    return this.forward(hinted ?? rootOf(connectorId));
  }

  /** The newest batch after `from`. */
  private async forward(from: string): Promise<string> {
    return (await this.walk(from)).tip;
  }

  /** The newest batch after `from`; or, where the walk meets `stop` (linked already), the batch it follows. */
  private async walk(from: string, stop?: string): Promise<{ tip: string; linked: boolean }> {
    let tip = from;
    for (let slot = await this.docs.findOne({ _id: slotOf(tip) }); slot?.next; slot = await this.docs.findOne({ _id: slotOf(tip) })) {
      if (slot.next === stop) return { tip, linked: true };
      tip = slot.next;
    }
    return { tip, linked: false };
  }

  /** Where the next walk for the tip starts; only a hint, so a lost update costs a step, never a call. */
  private async hint(connectorId: string, head: string, at: Date): Promise<void> {
    try {
      await this.docs.updateOne({ _id: headId(connectorId) }, { $set: { connector_id: connectorId, head, at } }, { upsert: true });
    } catch (err) {
      if (!onlyDuplicateKeys(err)) throw err; // two first upserts at once
    }
  }

  /** Newest first (by end), walking the chain from the head (or from where the page token points). */
  async list(connectorId: string, query: CallQuery): Promise<CallPage> {
    const start: { batch: string | null; below?: number } = query.pageToken === undefined
      ? { batch: await this.newest(connectorId) }
      : parseToken(query.pageToken, connectorId);
    const stopBefore = query.since ? query.since.getTime() - CHAIN_SLACK_MS : -Infinity;
    const items: Call[] = [];
    let next: string | null = start.batch;
    let below = start.below;
    let callsRead = 0;
    for (let read = 0; next !== null && read < MAX_BATCHES_PER_PAGE && callsRead < MAX_CALLS_READ_PER_PAGE; read++) {
      const batch = await this.docs.findOne({ _id: next });
      if (!batch?.calls || batch.at.getTime() < stopBefore) return page(items, null); // expired, or past `since`
      const calls = JSON.parse(batch.calls) as CallFields[];
      callsRead += calls.length;
      for (let i = (below ?? calls.length) - 1; i >= 0; i--) {
        const call = calls[i]!;
        if (!matches(call, query)) continue;
        items.push(toCall(`${batch._id}.${i}`, call));
        if (items.length === query.limit) return page(items, i > 0 ? `${batch._id}.${i}` : batch.prev ?? null);
      }
      next = batch.prev ?? null;
      below = undefined;
    }
    return page(items, next); // the read limit: the rest of the chain is a page token away
  }

  private async newest(connectorId: string): Promise<string | null> {
    const tip = await this.tipOf(connectorId);
    return tip === rootOf(connectorId) ? null : tip;
  }

  /** Deletes what the TTL index would have. */
  async sweepExpired(now = new Date()): Promise<number> {
    return sweepExpired(this.docs, this.expiry, now);
  }
}

/** When the batch's last call ended: what the walk for `since` and the expiry go by. */
function endOf(entries: CallEntry[]): Date {
  return new Date(Math.max(...entries.map((e) => e.at.getTime() + e.durationMs)));
}

function page(items: Call[], token: string | null): CallPage {
  return { items, has_more: token !== null, next_page_token: token };
}

/** A token is a batch id, with `.<n>` when the page goes on with that batch's calls before the nth. */
function parseToken(token: string, connectorId: string): { batch: string; below?: number } {
  const match = /^([0-9a-f-]+:[0-9a-f]{26})(?:\.(\d{1,6}))?$/.exec(token);
  if (!match || !match[1]!.startsWith(`${connectorId}:`)) throw new InvalidPageToken('page_token is not a token this service issued');
  return { batch: match[1]!, below: match[2] === undefined ? undefined : Number(match[2]) };
}

function matches(call: CallFields, q: CallQuery): boolean {
  if (q.since && call.at < q.since.getTime()) return false;
  if (q.until && call.at > q.until.getTime()) return false;
  if (q.method !== undefined && call.rpc_method !== q.method) return false;
  if (q.status !== undefined && !statusMatches(call.status, q.status)) return false;
  if (q.error !== undefined && q.error !== ((call.status ?? 0) >= 400 || call.rpc_error_code !== null || call.task?.status === 'failed')) return false;
  return true;
}

function statusMatches(status: number | null, wanted: string): boolean {
  if (status === null) return false;
  return wanted.endsWith('xx') ? Math.floor(status / 100) === Number(wanted[0]) : status === Number(wanted);
}

function toFields(e: CallEntry): CallFields {
  return {
    at: e.at.getTime(),
    caller: e.caller,
    session_id: e.sessionId,
    http_method: e.httpMethod,
    rpc_method: e.rpcMethod,
    rpc_name: e.rpcName,
    body: e.body,
    status: e.status,
    rpc_error_code: e.rpcErrorCode,
    duration_ms: e.durationMs,
    request_bytes: e.requestBytes,
    response_bytes: e.responseBytes,
    ...(e.toolsetId === undefined ? {} : { toolset_id: e.toolsetId, member_id: e.memberId ?? null }),
    ...(e.taskId === undefined ? {} : { task_id: e.taskId }),
    ...(e.task ? { task: e.task } : {}),
  };
}

function toCall(id: string, { at, ...rest }: CallFields): Call {
  return { id, time: new Date(at).toISOString(), ...rest };
}
