// The per-call audit's store against the embedded database (FerretDB): batches from two writers
// at once (as two proxy processes) all land on the connector's chain, each call listed once and
// newest first across pages; a filter that matches nothing answers after a bounded read with a
// token to go on; and every read the listing and the linking make is an `_id` lookup FerretDB
// pushes down. A task's rows (appendOnce) are written once under their keys: asked again, as a
// retried activity asks, or after a crash left one written but not linked, nothing is added.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { MongoClient, type Db } from 'mongodb';
import type { CallEntry } from '../../contract/call-record';
import { createLogger } from '../../platform/logger';
import { startFerretDb, type FerretDbServer } from '../../stack/servers/ferretdb-server';
import { CallAuditStore } from '../../store/call-audit-store';
import { randomBytes } from 'node:crypto';
import { taskAuditRows } from '../../activities/task-audit-rows';
import { createToolTaskActivities, type ConnectorCalls } from '../../activities/tool-task-activities';
import { SecretBox } from '../../platform/secret-box';
import type { TaskSummary } from '../../contract/task-record';

let dataDir: string;
let server: FerretDbServer;
const clients: MongoClient[] = [];
let db: Db;

test.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'store-calls-'));
  server = await startFerretDb({ dataDir, port: 0, log: createLogger('test-calls', 'silent') });
  for (let i = 0; i < 2; i++) clients.push(await MongoClient.connect(server.uri));
  db = clients[0]!.db('calls_test');
});

test.after.always(async () => {
  for (const client of clients) await client.close();
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const NO_CALLS: ConnectorCalls = { request: () => Promise.reject(new Error('no calls here')), notify: () => Promise.resolve() };

let clock = Date.parse('2026-11-20T10:00:00Z');
const entry = (connectorId: string, rpcMethod: string, status = 200): CallEntry => ({
  at: new Date((clock += 10)), connectorId, caller: 'alice', sessionId: 's', httpMethod: 'POST', rpcMethod, rpcName: null,
  body: 'message', status, rpcErrorCode: null, durationMs: 1, requestBytes: 10, responseBytes: 20,
});

async function listAll(store: CallAuditStore, connectorId: string, query: Record<string, unknown> = {}) {
  const ids: string[] = [];
  const methods: string[] = [];
  let token: string | undefined;
  do {
    const page = await store.list(connectorId, { limit: 7, pageToken: token, ...query });
    ids.push(...page.items.map((c) => c.id));
    methods.push(...page.items.map((c) => c.rpc_method!));
    token = page.next_page_token ?? undefined;
  } while (token);
  return { ids, methods };
}

test.serial('two writers at once: every call on the chain once, newest first', async (t) => {
  const connector = '11111111-1111-4111-8111-111111111111';
  const writers = clients.map((c) => new CallAuditStore(c.db('calls_test'), 30));
  await writers[0]!.ensureIndexes();
  const batches = Array.from({ length: 30 }, (_, b) => Array.from({ length: 5 }, (_, i) => entry(connector, `m${b}.${i}`)));
  // Batch b goes through writer b % 2; all of them at once.
  await Promise.all(batches.map((batch, b) => writers[b % 2]!.insert(batch)));
  const { methods } = await listAll(writers[0]!, connector);
  t.is(methods.length, 150);
  t.deepEqual([...methods].sort(), batches.flat().map((e) => e.rpcMethod!).sort(), 'each call once');
  for (const batch of batches) {
    const at = batch.map((e) => methods.indexOf(e.rpcMethod!));
    t.deepEqual(at, [...at].sort((a, b) => b - a), 'a batch\'s calls newest first, together');
  }
});

test.serial('two writers taking turns, each sure it linked the newest batch: the other has moved on, and each batch still lands after it', async (t) => {
  const connector = '12121212-1212-4121-8121-121212121212';
  const writers = clients.map((c) => new CallAuditStore(c.db('calls_test'), 30));
  const batches = Array.from({ length: 12 }, (_, b) => [entry(connector, `turn${b}.0`), entry(connector, `turn${b}.1`)]);
  for (const [b, batch] of batches.entries()) await writers[b % 2]!.insert(batch);
  const { methods } = await listAll(writers[1]!, connector);
  t.deepEqual(methods, batches.flat().map((e) => e.rpcMethod!).reverse(), 'every call once, newest first, in the order written');
});

test.serial('a writer alone on a connector writes each batch after its first with one insert and the hint, reading nothing', async (t) => {
  const connector = '13131313-1313-4131-8131-131313131313';
  const client = await MongoClient.connect(server.uri, { monitorCommands: true });
  t.teardown(() => client.close());
  const commands: string[] = [];
  client.on('commandStarted', (event) => { if (event.databaseName === 'calls_test') commands.push(event.commandName); });
  const store = new CallAuditStore(client.db('calls_test'), 30);
  await store.insert([entry(connector, 'first')]);
  const first = commands.splice(0);
  t.true(first.includes('find'), `the first batch looks for the newest (${first.join(', ')})`);
  for (let b = 0; b < 5; b++) await store.insert([entry(connector, `next${b}`)]);
  t.deepEqual(commands, Array.from({ length: 5 }, () => ['insert', 'update']).flat());
  const { methods } = await listAll(store, connector);
  t.deepEqual(methods, ['next4', 'next3', 'next2', 'next1', 'next0', 'first']);
});

test.serial('a filter that matches nothing reads a bounded number of batches and gives a token to go on', async (t) => {
  const connector = '22222222-2222-4222-8222-222222222222';
  const store = new CallAuditStore(db, 30);
  for (let b = 0; b < 130; b++) await store.insert([entry(connector, 'tools/list')]);
  await store.insert([entry(connector, 'tools/call', 500)]);
  const first = await store.list(connector, { limit: 10, method: 'nothing' });
  t.deepEqual(first.items, []);
  t.true(first.has_more);
  const second = await store.list(connector, { limit: 10, method: 'nothing', pageToken: first.next_page_token! });
  t.deepEqual(second, { items: [], has_more: false, next_page_token: null });
  t.deepEqual((await listAll(store, connector, { status: '5xx' })).methods, ['tools/call']);
  t.is((await listAll(store, connector, { error: false })).methods.length, 130);
  t.is((await listAll(store, connector, { since: new Date(clock - 100) })).methods.length, 11, 'the walk for since stops early yet finds all');
});

test.serial('large batches bound a page by the calls read: a filter that matches nothing stops after 50,000 and gives a token to go on', async (t) => {
  const connector = '23232323-2323-4232-8232-232323232323';
  const store = new CallAuditStore(db, 30);
  for (let b = 0; b < 3; b++) await store.insert(Array.from({ length: 25_000 }, () => entry(connector, 'tools/list')));
  const first = await store.list(connector, { limit: 10, method: 'nothing' });
  t.deepEqual(first.items, []);
  t.true(first.has_more, 'two batches of three read: 50,000 calls');
  const second = await store.list(connector, { limit: 10, method: 'nothing', pageToken: first.next_page_token! });
  t.deepEqual(second, { items: [], has_more: false, next_page_token: null });
});

test.serial('the listing and the linking are `_id` lookups the database pushes down', async (t) => {
  const connector = '11111111-1111-4111-8111-111111111111';
  const calls = db.collection('connector_calls');
  const hint = await calls.findOne({ _id: `${connector}:head` as never });
  t.truthy(hint);
  for (const _id of [`${connector}:head`, hint!.head, `${hint!.head}>`]) {
    // FerretDB's explain says whether SQLite got the filter (the tests' database is always FerretDB).
    const plan = await calls.find({ _id } as never).explain() as { filterPushdown?: boolean };
    t.is(plan.filterPushdown, true, _id);
  }
});

test.serial('a task\'s rows are written once, however often the activity asks, and one left unlinked by a crash is linked once', async (t) => {
  const connector = '33333333-3333-4333-8333-333333333333';
  const store = new CallAuditStore(db, 30);
  const at = (s: number) => new Date(Date.parse('2026-11-20T11:00:00Z') + s * 1000).toISOString();
  const task: TaskSummary = {
    task_id: 'task-1', tool: 'charge_card', caller: 'key:alice', status: 'completed', created_at: at(0), updated_at: at(3),
    toolset_id: null, unknown_outcome: false,
    history: [{ status: 'input_required', at: at(0), approval: 'pending' }, { status: 'working', at: at(1), by: 'key:ann', approval: 'approved' }, { status: 'completed', at: at(3) }],
  };
  const rows = taskAuditRows(connector, 3, task, 0);
  t.deepEqual(rows.map((r) => r.key), ['task:task-1:1', 'task:task-1:2', 'task:task-1:3']);
  t.deepEqual(taskAuditRows(connector, 3, task, 2).map((r) => r.key), ['task:task-1:3'], 'only the changes after those written');
  // The activity: the first change copied, then all three, twice (a retry), a proxy's batch in between.
  const { recordTask } = createToolTaskActivities({ secrets: new SecretBox(randomBytes(32)), calls: NO_CALLS, callAudit: store });
  await recordTask({ connectorId: connector, seq: 1, task: { ...task, status: 'input_required', history: task.history!.slice(0, 1) } });
  await store.insert([entry(connector, 'tools/call')]);
  await recordTask({ connectorId: connector, seq: 3, task, audited: 1 });
  await recordTask({ connectorId: connector, seq: 3, task, audited: 1 });
  await recordTask({ connectorId: connector, seq: 3, task }); // as a run from before `audited` asks
  // A crash after the batch was stored, before its slot was claimed: the retry links it, once.
  const late = { key: 'task:task-2:1', entry: { ...rows[2]!.entry, task: { ...rows[2]!.entry.task!, task_id: 'task-2', change: 1 } } };
  const calls = db.collection('connector_calls');
  await store.appendOnce(connector, late.key, late.entry);
  const batch = (await calls.find({ connector_id: connector, calls: { $exists: true } }).toArray()).find((b) => String(b.calls).includes('task-2'));
  t.truthy(batch?.prev);
  t.truthy((await calls.deleteOne({ next: batch!._id })).deletedCount);
  await calls.updateOne({ _id: `${connector}:head` as never }, { $set: { head: batch!.prev } });
  await store.appendOnce(connector, late.key, late.entry);
  await store.appendOnce(connector, late.key, late.entry);

  const page = await store.list(connector, { limit: 50 });
  const listed = page.items.filter((c) => c.task).reverse();
  t.deepEqual(listed.map((c) => [c.task!.task_id, c.task!.change, c.task!.status, c.task!.by, c.task!.approval ?? null]), [
    ['task-1', 1, 'input_required', null, 'pending'], ['task-1', 2, 'working', 'key:ann', 'approved'], ['task-1', 3, 'completed', null, null],
    ['task-2', 1, 'completed', null, null],
  ]);
  t.is(page.items.length, 5, 'the proxy\'s call, and each task row once');
  t.like(listed[0], { http_method: 'TASK', rpc_method: 'tools/call', rpc_name: 'charge_card', caller: 'key:alice', status: null });
  t.deepEqual((await store.list(connector, { limit: 50, error: true })).items, [], 'no failure among them');
  // A row written long after its change (its worker was down) does not end the walk for `since` early.
  const old = { ...rows[0]!.entry, at: new Date('2026-11-20T09:00:00Z'), task: { ...rows[0]!.entry.task!, task_id: 'task-9' } };
  await store.appendOnce(connector, 'task:task-9:1', old);
  const recent = await store.list(connector, { limit: 50, since: new Date('2026-11-20T11:00:02Z') });
  t.deepEqual(recent.items.map((c) => [c.task?.task_id, c.task?.change]), [['task-2', 1], ['task-1', 3]]);
});

test.serial('attempts of the same row at once, beside a proxy\'s writes, link it once (no loop in the chain)', async (t) => {
  const connector = '44444444-4444-4444-8444-444444444444';
  const store = new CallAuditStore(db, 30);
  const other = new CallAuditStore(clients[1]!.db('calls_test'), 30);
  await store.insert([entry(connector, 'initialize')]);
  const task: TaskSummary = {
    task_id: 'task-3', tool: 'charge_card', caller: 'key:alice', status: 'working', created_at: '2026-11-20T12:00:00.000Z',
    updated_at: '2026-11-20T12:00:00.000Z', toolset_id: null, unknown_outcome: false, history: [{ status: 'working', at: '2026-11-20T12:00:00.000Z' }],
  };
  const [row] = taskAuditRows(connector, 1, task, 0);
  await Promise.all([
    ...[store, other, store, other].map((s) => s.appendOnce(connector, row!.key, row!.entry)),
    ...Array.from({ length: 4 }, (_, i) => (i % 2 ? store : other).insert([entry(connector, `tools/list.${i}`)])),
  ]);
  const { methods } = await listAll(store, connector);
  t.is(methods.length, 6, 'the row once, and each call once');
  t.is(methods.filter((m) => m === 'tools/call').length, 1);
});

test.serial('a server\'s task seen by several replicas at once: a row per change of status, numbered, never one per answer', async (t) => {
  const connector = '55555555-5555-4555-8555-555555555555';
  const stores = [new CallAuditStore(db, 30), new CallAuditStore(clients[1]!.db('calls_test'), 30)];
  const seen = (status: 'working' | 'input_required' | 'completed') => ({
    ...entry(connector, 'tools/call'), httpMethod: 'TASK', task: { task_id: 'server-task-1', status, change: 0, by: null, observed: true as const },
  });
  await Promise.all(stores.flatMap((store) => [store.appendServerTask(seen('working')), store.appendServerTask(seen('working'))]));
  await Promise.all(stores.map((store) => store.appendServerTask(seen('input_required'))));
  await stores[1]!.appendServerTask(seen('working'));
  await Promise.all(stores.map((store) => store.appendServerTask(seen('completed'))));
  const rows = (await stores[0]!.list(connector, { limit: 50 })).items.reverse();
  t.deepEqual(rows.map((c) => [c.task?.change, c.task?.status, c.task?.observed]), [
    [1, 'working', true], [2, 'input_required', true], [3, 'working', true], [4, 'completed', true],
  ]);
});

test.serial('an attempt that set a row\'s prev to a slot it then lost puts it right: no batch in between is skipped by listings', async (t) => {
  // The race: attempt X links the row after P2; attempt Y, walking from an older view, set its
  // prev to P1 just before finding it linked. Listings walk back by prev, so P2 would be skipped.
  const connector = '66666666-6666-4666-8666-666666666666';
  const store = new CallAuditStore(db, 30);
  await store.insert([entry(connector, 'tools/list.P1')]);
  await store.insert([entry(connector, 'tools/list.P2')]);
  const task: TaskSummary = {
    task_id: 'task-race', tool: 'charge_card', caller: 'key:alice', status: 'working', created_at: '2026-11-20T13:00:00.000Z',
    updated_at: '2026-11-20T13:00:00.000Z', toolset_id: null, unknown_outcome: false, history: [{ status: 'working', at: '2026-11-20T13:00:00.000Z' }],
  };
  const [row] = taskAuditRows(connector, 1, task, 0);
  await store.appendOnce(connector, row!.key, row!.entry);
  const calls = db.collection('connector_calls');
  const batches = await calls.find({ connector_id: connector, calls: { $exists: true } }).toArray();
  const mine = batches.find((b) => String(b.calls).includes('task-race'))!;
  const p1 = batches.find((b) => String(b.calls).includes('tools/list.P1'))!;
  await calls.updateOne({ _id: mine._id }, { $set: { prev: p1._id } }); // Y's stale write
  t.is((await listAll(store, connector)).methods.length, 2, 'as the race leaves it: P2 skipped');
  await store.appendOnce(connector, row!.key, row!.entry); // Y goes on (or any retry): it finds the row linked
  const { methods } = await listAll(store, connector);
  t.deepEqual([...methods].sort(), ['tools/call', 'tools/list.P1', 'tools/list.P2']);
});
