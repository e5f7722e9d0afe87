// The list's database side alone, at N records (BENCH_CONNECTORS, 10,000): the store's list
// (list index: keyset over `_id`, maintained counts) against the earlier query (filter and sort
// on the records, countDocuments) on the same database in the same run, for the first page, a
// deep page, the state filter and the owner filter. `npx tsx bench/scale/list-store.ts`;
// MONGODB_URI: a MongoDB instead of the embedded FerretDB.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import type { ConnectorRecord } from '../../contract/connector-record';
import { createLogger } from '../../platform/logger';
import { startFerretDb } from '../../stack/servers/ferretdb-server';
import { ConnectorStore } from '../../store/connector-store';
import { percentile } from '../lifecycle/rounds';

const N = Number(process.env.BENCH_CONNECTORS ?? 10_000);
const SAMPLES = Number(process.env.BENCH_LIST_SAMPLES ?? 40);
const STATES = ['connected', 'connected', 'connected', 'disconnected', 'auth_required'] as const;
const OWNERS = 20;

export interface ListTimings { [view: string]: { p50: number; p99: number } }

function record(i: number): ConnectorRecord {
  const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  return {
    id: randomUUID(), url: `https://mcp${i % 50}.example.com/mcp`, state: STATES[i % STATES.length]!, metadata: { team: `t${i % 7}` },
    auth_request: null, disconnect_reason: null, disconnect_permanent: null, preset: null, created_at: at, updated_at: at,
    created_by: `owner-${i % OWNERS}`, protocol_version: null, version: 1,
  };
}

async function time(fn: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  const ms: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    const start = performance.now();
    await fn();
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
}

/** The query lists made before the list index: filter and sort on the records, and a count. */
async function earlierList(db: Db, filter: Record<string, unknown>, skipTo: { k: string; id: string } | null) {
  const records = db.collection<{ _id: string }>('connectors');
  const after = skipTo ? { $or: [{ created_at: { $gt: skipTo.k } }, { created_at: skipTo.k, _id: { $gt: skipTo.id } }] } : {};
  return Promise.all([
    records.find({ ...filter, ...after }).sort({ created_at: 1, _id: 1 }).limit(101).toArray(),
    records.countDocuments(filter),
  ]);
}

/** Timings of the store's list for each view, and of the earlier query when `baseline`. */
export async function measureLists(store: ConnectorStore, db: Db | null, deepToken: string, deepAt: { k: string; id: string }) {
  const views: [string, Parameters<ConnectorStore['list']>[0], Record<string, unknown>, boolean][] = [
    ['first page', { limit: 100 }, {}, false],
    ['deep page', { limit: 100, pageToken: deepToken }, {}, true],
    ['state=auth_required', { limit: 100, state: 'auth_required' }, { state: 'auth_required' }, false],
    ['owner', { limit: 100, createdBy: 'owner-7' }, { created_by: 'owner-7' }, false],
    ['owner+state', { limit: 100, createdBy: 'owner-7', state: 'connected' }, { created_by: 'owner-7', state: 'connected' }, false],
  ];
  const out: Record<string, { p50: number; p99: number; earlier?: { p50: number; p99: number } }> = {};
  for (const [name, query, filter, deep] of views) {
    out[name] = await time(() => store.list(query));
    if (db) out[name].earlier = await time(() => earlierList(db, filter, deep ? deepAt : null));
  }
  return out;
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-list-'));
  const server = process.env.MONGODB_URI ? null : await startFerretDb({ dataDir, port: 0, log: createLogger('bench-list', 'warn') });
  const client = new MongoClient(process.env.MONGODB_URI ?? server!.uri);
  try {
    const db = client.db(`bench_list_${Date.now()}`);
    const store = new ConnectorStore(db);
    await store.ensureIndexes();
    const start = performance.now();
    const records = Array.from({ length: N }, (_, i) => record(i));
    for (let i = 0; i < N; i += 20) await Promise.all(records.slice(i, i + 20).map((r) => store.project(r)));
    const writeS = (performance.now() - start) / 1000;
    // A deep page: the one after 90 % of the records.
    const deepItems = [...records].sort((a, b) => (a.created_at + a.id < b.created_at + b.id ? -1 : 1));
    const deepAt = { k: deepItems[Math.floor(N * 0.9)]!.created_at, id: deepItems[Math.floor(N * 0.9)]!.id };
    const deepToken = Buffer.from(JSON.stringify(deepAt)).toString('base64url');
    const timings = await measureLists(store, db, deepToken, deepAt);
    console.log(`${N} records projected in ${writeS.toFixed(1)} s (${(N / writeS).toFixed(0)}/s, 20 at a time) on ${server ? 'FerretDB (embedded)' : 'MongoDB'}`);
    console.log('view                  list p50/p99 ms   earlier query p50/p99 ms   ratio p99');
    for (const [name, t] of Object.entries(timings)) {
      console.log(`${name.padEnd(22)}${t.p50.toFixed(1).padStart(7)} /${t.p99.toFixed(1).padStart(7)}   ${t.earlier!.p50.toFixed(1).padStart(9)} /${t.earlier!.p99.toFixed(1).padStart(8)}   ${(t.earlier!.p99 / t.p99).toFixed(1)}x`);
    }
  } finally {
    await client.close();
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
