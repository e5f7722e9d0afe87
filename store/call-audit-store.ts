// MongoDB: the per-call audit of MCP traffic (core/call-record.ts), written in batches by the
// proxy's queue and listed by the API, newest first. `_id` is the connector's id followed by a
// time-sortable key, so that a connector's calls, in time order, are one range of `_id`: the
// embedded database (FerretDB on SQLite) pushes down nothing but `_id`, and a listing there walks
// that range instead of the whole collection. Calls go CONNECTOR__CALL_AUDIT_DAYS after their
// time: by a TTL index on `at` where the database has them, else by the worker's sweep.
import { randomBytes } from 'node:crypto';
import type { Collection, Db, Filter } from 'mongodb';
import type { BodyShape, Call, CallEntry } from '../core/call-record';
import { ensureTtlIndex, sweepExpired, type Expiry } from './expiry';
import { InvalidPageToken } from './page-token';

interface CallDoc {
  _id: string;
  connector_id: string;
  at: Date;
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
/** Keeps `_id`s of calls in the same millisecond apart across proxies: a random tag per process, then a counter. */
const PROCESS_TAG = randomBytes(4).toString('hex');
let sequence = 0;

/** 12 hex digits of milliseconds: sorts as the time does until the year 10889. */
const timeKey = (ms: number) => ms.toString(16).padStart(12, '0');

export function callDocId(connectorId: string, at: Date): string {
  sequence = (sequence + 1) % 0x1000000;
  return `${connectorId}:${timeKey(at.getTime())}${PROCESS_TAG}${sequence.toString(16).padStart(6, '0')}`;
}

export class CallAuditStore {
  private readonly calls: Collection<CallDoc>;
  readonly expiry: Expiry;

  constructor(private readonly db: Db, retentionDays: number) {
    this.calls = db.collection<CallDoc>(COLLECTION);
    this.expiry = { field: 'at', afterSeconds: retentionDays * 86_400 };
  }

  /** True when the database expires calls itself (a TTL index), false when the sweep must. */
  async ensureIndexes(): Promise<boolean> {
    try {
      return await ensureTtlIndex(this.calls, this.expiry);
    } catch (err) {
      if ((err as { code?: number }).code !== INDEX_OPTIONS_CONFLICT) throw err;
      // CONNECTOR__CALL_AUDIT_DAYS changed since the index was made: the index follows it.
      await this.db.command({ collMod: COLLECTION, index: { keyPattern: { at: 1 }, expireAfterSeconds: this.expiry.afterSeconds } });
      return true;
    }
  }

  /** One unordered insert of the batch; a failure is the queue's to count. */
  async insert(entries: CallEntry[]): Promise<void> {
    await this.calls.insertMany(entries.map(toDoc), { ordered: false });
  }

  /** Newest first: one range of `_id`, narrowed by the time filters, walked down from the page token. */
  async list(connectorId: string, query: CallQuery): Promise<CallPage> {
    const prefix = `${connectorId}:`;
    if (query.pageToken !== undefined && !validToken(query.pageToken, prefix)) {
      throw new InvalidPageToken('page_token is not a token this service issued');
    }
    const lower = prefix + (query.since ? timeKey(query.since.getTime()) : '');
    const upper = query.until ? prefix + timeKey(query.until.getTime() + 1) : `${connectorId};`; // ';' follows ':'
    const below = query.pageToken !== undefined && query.pageToken < upper ? query.pageToken : upper;
    const filter: Filter<CallDoc> = { _id: { $gte: lower, $lt: below }, ...fieldFilters(query) };
    const docs = await this.calls.find(filter).sort({ _id: -1 }).limit(query.limit + 1).toArray();
    const page = docs.slice(0, query.limit);
    const hasMore = docs.length > query.limit;
    return { items: page.map(toCall), has_more: hasMore, next_page_token: hasMore ? page.at(-1)!._id : null };
  }

  /** Deletes what the TTL index would have. */
  async sweepExpired(now = new Date()): Promise<number> {
    return sweepExpired(this.calls, this.expiry, now);
  }
}

function fieldFilters(query: CallQuery): Filter<CallDoc> {
  const filter: Filter<CallDoc> = {};
  if (query.method !== undefined) filter.rpc_method = query.method;
  if (query.status !== undefined) {
    const cls = /^([1-5])xx$/.exec(query.status);
    filter.status = cls ? { $gte: Number(cls[1]) * 100, $lt: Number(cls[1]) * 100 + 100 } : Number(query.status);
  }
  if (query.error === true) filter.$or = [{ status: { $gte: 400 } }, { rpc_error_code: { $ne: null } }];
  if (query.error === false) filter.$and = [{ status: { $not: { $gte: 400 } } }, { rpc_error_code: null }];
  return filter;
}

/** A page token is the `_id` of the last call of the page before. */
function validToken(token: string, prefix: string): boolean {
  return token.startsWith(prefix) && /^[0-9a-f]{26}$/.test(token.slice(prefix.length));
}

function toDoc(e: CallEntry): CallDoc {
  return {
    _id: callDocId(e.connectorId, e.at),
    connector_id: e.connectorId,
    at: e.at,
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
  };
}

function toCall({ _id, connector_id: _c, at, ...rest }: CallDoc): Call {
  return { id: _id, time: at.toISOString(), ...rest };
}
