// Listing connectors against the embedded database (FerretDB): keyset pages by view (all, state,
// owner, owner and state) in creation order through state changes and removals, maintained
// counts, tokens of the earlier sort, stale keys skipped and put right by the repair, and the
// key ranges served from the _id index (the patched FerretDB's explain says so).
import type { ConnectorRecord } from '../../contract/connector-record';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { MongoClient, type Db } from 'mongodb';
import { createLogger } from '../../platform/logger';
import { startFerretDb, type FerretDbServer } from '../../stack/servers/ferretdb-server';
import { ConnectorStore } from '../../store/connector-store';
import { listKeysOf, viewRange } from '../../store/list-keys';
import { InvalidPageToken, encodePageToken } from '../../store/page-token';

let dataDir: string;
let server: FerretDbServer;
let client: MongoClient;

test.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'connector-list-'));
  server = await startFerretDb({ dataDir, port: 0, log: createLogger('test-list', process.env.LOG_LEVEL ?? 'error') });
  client = new MongoClient(server.uri);
});

test.after.always(async () => {
  await client?.close();
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

async function freshStore(name: string): Promise<{ db: Db; store: ConnectorStore }> {
  const db = client.db(name);
  const store = new ConnectorStore(db);
  await store.ensureIndexes();
  return { db, store };
}

function record(n: number, state: ConnectorRecord['state'], owner: string | null, version = 1): ConnectorRecord {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
  return {
    id: `c${String(n).padStart(3, '0')}`, url: 'http://127.0.0.1:1/mcp', state, metadata: {}, auth_request: null,
    disconnect_reason: null, disconnect_permanent: null, preset: null, created_at: at, updated_at: at, created_by: owner, protocol_version: null, version,
  };
}

async function listAll(store: ConnectorStore, query: { state?: string; createdBy?: string }, limit: number) {
  const ids: string[] = [];
  let pageToken: string | undefined;
  let pages = 0;
  do {
    const page = await store.list({ ...query, limit, pageToken });
    ids.push(...page.items.map((r) => r.id));
    pageToken = page.next_page_token ?? undefined;
    pages += 1;
    if (!page.has_more) break;
  } while (pageToken);
  return { ids, pages };
}

test('pages of every view walk the connectors in creation order, and the counts follow state changes and removals', async (t) => {
  const { store } = await freshStore('list_views');
  const owners = ['alice', 'bob|with/odd "chars"', null];
  // Written out of creation order: the order is the records' own.
  for (const n of [5, 1, 4, 2, 3, 9, 7, 8, 6, 10]) await store.project(record(n, 'created', owners[n % 3]!));
  for (const n of [2, 4, 6, 8, 10]) await store.project(record(n, 'connected', owners[n % 3]!, 2));
  await store.remove('c010', new Date());

  t.deepEqual((await listAll(store, {}, 3)).ids, ['c001', 'c002', 'c003', 'c004', 'c005', 'c006', 'c007', 'c008', 'c009']);
  t.deepEqual((await listAll(store, { state: 'connected' }, 2)).ids, ['c002', 'c004', 'c006', 'c008']);
  t.deepEqual((await listAll(store, { state: 'created' }, 2)).ids, ['c001', 'c003', 'c005', 'c007', 'c009']);
  t.deepEqual((await listAll(store, { createdBy: 'bob|with/odd "chars"' }, 2)).ids, ['c001', 'c004', 'c007']);
  t.deepEqual((await listAll(store, { createdBy: 'alice', state: 'connected' }, 1)).ids, ['c006']);
  t.deepEqual((await listAll(store, { createdBy: 'nobody' }, 5)).ids, []);

  const first = await store.list({ limit: 4 });
  t.is(first.total_count, 9);
  t.true(first.has_more);
  t.is((await store.list({ limit: 1, state: 'connected' })).total_count, 4);
  t.is((await store.list({ limit: 1, createdBy: 'alice', state: 'created' })).total_count, 2);
  t.is(await store.countOwnedBy('alice'), 3);
  t.deepEqual(await store.countByState(), { created: 5, connected: 4 });
});

test('changes at once share their count writes, and every count comes out exact and right', async (t) => {
  const { db, store } = await freshStore('list_concurrent');
  const counts = db.collection('connector_list_counts');
  let countWrites = 0;
  // The store's own collection object is another instance: count at the driver's class instead.
  // A lone view's write is an updateOne, several views' one bulkWrite: one command each.
  const proto = Object.getPrototypeOf(counts) as Record<'updateOne' | 'bulkWrite', (...args: unknown[]) => unknown>;
  const originals = { updateOne: proto.updateOne, bulkWrite: proto.bulkWrite };
  for (const name of ['updateOne', 'bulkWrite'] as const) {
    proto[name] = function (this: unknown, ...args: unknown[]) {
      if ((this as { collectionName?: string }).collectionName === 'connector_list_counts') countWrites += 1;
      return originals[name].apply(this, args);
    };
  }
  try {
    const n = 40;
    await Promise.all(Array.from({ length: n }, (_, i) => store.project(record(i + 1, 'created', i % 2 ? 'alice' : 'bob'))));
    await Promise.all(Array.from({ length: n }, (_, i) => store.project(record(i + 1, 'connected', i % 2 ? 'alice' : 'bob', 2))));
    const all = await store.list({ limit: 1 });
    t.is(all.total_count, n);
    t.true(all.total_count_exact);
    const connected = await store.list({ limit: 1, state: 'connected' });
    t.is(connected.total_count, n);
    t.true(connected.total_count_exact);
    t.deepEqual(await store.countByState(), { connected: n });
    t.is((await store.list({ limit: 1, createdBy: 'alice', state: 'connected' })).total_count, n / 2);
    t.deepEqual((await listAll(store, { state: 'created' }, 10)).ids, []);
    // One at a time, each change wrote its views' counts in two commands (the marks, the
    // settles): 4 per connector. How many changes share a command depends on how they
    // interleave, which a loaded machine spreads out: any fewer than 4 shows they were grouped.
    t.log(`count writes: ${countWrites} (${(countWrites / n).toFixed(1)} per connector)`);
    t.true(countWrites < 4 * n, `the count writes were grouped (${countWrites})`);
    t.true(countWrites > 0, 'the count writes were seen');
  } finally {
    Object.assign(proto, originals);
  }
});

test('a late or retried write changes neither the lists nor the counts', async (t) => {
  const { store } = await freshStore('list_late');
  await store.project(record(1, 'created', 'alice'));
  await store.project(record(1, 'connecting', 'alice', 2));
  await store.project(record(1, 'connected', 'alice', 3));
  await store.project(record(1, 'connecting', 'alice', 2)); // late
  await store.project(record(1, 'connected', 'alice', 3)); // retried
  t.deepEqual((await listAll(store, { state: 'connected' }, 5)).ids, ['c001']);
  t.deepEqual((await listAll(store, { state: 'connecting' }, 5)).ids, []);
  t.deepEqual(await store.countByState(), { connected: 1 });
  t.is((await store.list({ limit: 5, createdBy: 'alice' })).total_count, 1);
});

test('a token of the earlier sort (created_at, id) continues where it left off; a hand-made one pages too; one that is not a token is refused', async (t) => {
  const { store } = await freshStore('list_tokens');
  for (let n = 1; n <= 5; n += 1) await store.project(record(n, 'created', null));
  const old = encodePageToken({ k: record(2, 'created', null).created_at, id: 'c002' });
  t.deepEqual((await store.list({ limit: 10, pageToken: old })).items.map((r) => r.id), ['c003', 'c004', 'c005']);
  t.deepEqual((await store.list({ limit: 10, pageToken: encodePageToken({ k: record(3, 'created', null).created_at, id: 'c003"\u0000' }) })).items.map((r) => r.id), ['c004', 'c005'], 'a hand-made position pages as any other');
  await t.throwsAsync(store.list({ limit: 10, pageToken: 'not-a-token' }), { instanceOf: InvalidPageToken });
});

test('a stale key is skipped by lists and removed by the repair, a missing one is added, counts are set right', async (t) => {
  const { db, store } = await freshStore('list_reconcile');
  for (let n = 1; n <= 3; n += 1) await store.project(record(n, 'connected', 'alice'));
  // Written behind the index's back: c002's connected keys stayed after it moved on, c003 lost its keys.
  const keys = db.collection<{ _id: string }>('connector_list_keys');
  await db.collection('connectors').updateOne({ _id: 'c002' as never }, { $set: { state: 'disconnected', version: 2 } });
  await keys.deleteMany({ _id: { $in: listKeysOf(record(3, 'connected', 'alice')) } });

  t.deepEqual((await listAll(store, { state: 'connected' }, 1)).ids, ['c001'], 'c002 is no longer connected; c003 has no keys');
  const repaired = await store.repairListIndex();
  t.like(repaired, { added: 6, removed: 2, unsettled: 0 });
  t.deepEqual((await listAll(store, { state: 'connected' }, 1)).ids, ['c001', 'c003']);
  t.deepEqual((await listAll(store, { state: 'disconnected', createdBy: 'alice' }, 1)).ids, ['c002']);
  t.deepEqual(await store.countByState(), { connected: 2, disconnected: 1 });
  t.like(await store.list({ limit: 1 }), { total_count: 3, total_count_exact: true });
  t.deepEqual(await store.repairListIndex(), { added: 0, removed: 0, recounted: 0, unsettled: 0 }, 'a second pass finds nothing to do');
});

test('a key without its record lists nothing, and the repair removes it at once', async (t) => {
  const { db, store } = await freshStore('list_young');
  await db.collection<{ _id: string }>('connector_list_keys').insertMany(listKeysOf(record(1, 'created', null)).map((_id) => ({ _id })));
  t.deepEqual((await store.list({ limit: 5 })).items, []);
  t.like(await store.repairListIndex(), { removed: 2, unsettled: 0 });
  t.like(await store.list({ limit: 5 }), { items: [], total_count: 0, total_count_exact: true });
});

test('the embedded FerretDB serves a page of keys and the records of a page from the _id index', async (t) => {
  const { db, store } = await freshStore('list_explain');
  for (let n = 1; n <= 3; n += 1) await store.project(record(n, 'created', null));
  const explain = async (collection: string, find: Record<string, unknown>) =>
    (await db.command({ explain: { find: collection, ...find }, verbosity: 'queryPlanner' })) as Record<string, unknown>;
  const keys = await explain('connector_list_keys', { filter: { _id: viewRange({ state: 'created' }, null) }, sort: { _id: 1 }, limit: 21 });
  t.like(keys, { filterPushdown: true, sortPushdown: true, limitPushdown: true }, JSON.stringify(keys));
  t.regex(JSON.stringify(keys.queryPlanner), /USING INDEX/);
  const records = await explain('connectors', { filter: { _id: { $in: ['c001', 'c002'] } } });
  t.like(records, { filterPushdown: true }, JSON.stringify(records));
});
