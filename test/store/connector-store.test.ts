// The projection and audit writes against a real MongoDB-wire server (FerretDB): a retried or
// late write never takes the record back to an older version, and no audit event is doubled.
import type { AuditEvent, ConnectorRecord } from '../../contract/connector-record';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { MongoClient } from 'mongodb';
import { createLogger } from '../../platform/logger';
import { startFerretDb, type FerretDbServer } from '../../stack/servers/ferretdb-server';
import { ConnectorStore } from '../../store/connector-store';
import { watchedDatabase } from '../helpers/watched-database';

let dataDir: string;
let server: FerretDbServer;
let client: MongoClient;
let store: ConnectorStore;

test.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'connector-store-'));
  server = await startFerretDb({ dataDir, port: 0, log: createLogger('test-store', process.env.LOG_LEVEL ?? 'error') });
  client = new MongoClient(server.uri);
  store = new ConnectorStore(client.db('store_test'));
  await store.ensureIndexes();
});

test.after.always(async () => {
  await client?.close();
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

function view(id: string, version: number, state: ConnectorRecord['state']): ConnectorRecord {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, version)).toISOString();
  return {
    id, url: 'http://127.0.0.1:1/mcp', state, metadata: {}, auth_request: null, disconnect_reason: null,
    disconnect_permanent: null, preset: null, created_at: at, updated_at: at, created_by: null, protocol_version: null, version,
  };
}

function event(id: string, seq: number, to: AuditEvent['to']): AuditEvent {
  return { connectorId: id, seq, time: new Date().toISOString(), actor: 'test', from: null, to, reason: null };
}

test.serial('a write of an older or the same version leaves the newer record as it is', async (t) => {
  await store.project(view('c1', 1, 'created'));
  await store.project(view('c1', 3, 'connected'));
  await store.project(view('c1', 2, 'connecting')); // late
  await store.project(view('c1', 3, 'connected')); // retried
  const stored = await store.get('c1');
  t.is(stored?.version, 3);
  t.is(stored?.state, 'connected');
});

test.serial('appending events again (a retried write) keeps one of each, in order', async (t) => {
  await store.appendEvents([event('c2', 1, 'created')]);
  await store.appendEvents([event('c2', 2, 'connecting'), event('c2', 3, 'connected')]);
  await store.appendEvents([event('c2', 2, 'connecting'), event('c2', 3, 'connected')]);
  const page = await store.listEvents('c2', { limit: 10 });
  t.deepEqual(page.items.map((e) => [e.seq, e.to]), [[1, 'created'], [2, 'connecting'], [3, 'connected']]);
});

/** A store whose client records the commands it sends to `database`, in order. */
async function watchedStore(t: ExecutionContext, database: string) {
  const { db, commands } = await watchedDatabase(t, server.uri, database);
  return { store: new ConnectorStore(db), commands };
}

const owned = (id: string, version: number, state: ConnectorRecord['state']): ConnectorRecord => ({ ...view(id, 1, state), created_by: 'alice', version });

test.serial('a create and a transition told the version before them read nothing, and a create files its four keys in one insert and its four counts\' marks and settles in one update each', async (t) => {
  const { store: watched, commands } = await watchedStore(t, 'store_prior');
  const id = 'a1a1a1a1-a1a1-4a1a-8a1a-a1a1a1a1a1a1';
  await watched.project(owned(id, 1, 'created'), null);
  // The four views' marks in one update, the record, its four keys in one insert, the four settles in one update.
  t.deepEqual(commands.splice(0), ['update', 'insert', 'insert', 'update']);
  await watched.project(owned(id, 2, 'connected'), { version: 1, state: 'created' });
  t.false(commands.includes('find'), `nothing read (${commands.join(', ')})`);
  t.is(commands.filter((c) => c === 'insert').length, 1, 'the connected keys in one insert');
  t.is(commands.filter((c) => c === 'delete').length, 2, 'the created keys, one delete each');
  commands.length = 0;
  await watched.project(owned(id, 3, 'disconnecting')); // no prior: the read
  t.is(commands[0], 'find');
  const counts = await Promise.all([{}, { state: 'disconnecting' }, { state: 'created' }, { createdBy: 'alice' }, { createdBy: 'alice', state: 'disconnecting' }]
    .map(async (v) => (await watched.list({ ...v, limit: 10 })).total_count));
  t.deepEqual(counts, [1, 1, 0, 1, 1]);
});

test.serial('a prior that is not what is stored changes nothing by itself: the write reads and goes over what is there, or leaves a newer one', async (t) => {
  const { store: watched } = await watchedStore(t, 'store_prior_wrong');
  const id = 'b2b2b2b2-b2b2-4b2b-8b2b-b2b2b2b2b2b2';
  await watched.project(owned(id, 1, 'created'), null);
  await watched.project(owned(id, 1, 'created'), null); // a retried create: the record is there
  await watched.project(owned(id, 3, 'connected'), { version: 2, state: 'connecting' }); // version 2 was never written
  let stored = await watched.get(id);
  t.is(stored?.version, 3);
  await watched.project(owned(id, 2, 'connecting'), { version: 1, state: 'created' }); // late
  stored = await watched.get(id);
  t.is(stored?.state, 'connected', 'a late write does not take it back');
  const counts = await Promise.all([{}, { state: 'created' }, { state: 'connecting' }, { state: 'connected' }, { createdBy: 'alice', state: 'connected' }]
    .map(async (v) => { const page = await watched.list({ ...v, limit: 10 }); return [page.total_count, page.total_count_exact, page.items.length]; }));
  t.deepEqual(counts, [[1, true, 1], [0, true, 0], [0, true, 0], [1, true, 1], [1, true, 1]]);
});

test.serial('a field the view no longer has goes from the stored record without a read too', async (t) => {
  const { store: watched } = await watchedStore(t, 'store_prior_unset');
  const id = 'c3c3c3c3-c3c3-4c3c-8c3c-c3c3c3c3c3c3';
  await watched.project({ ...owned(id, 1, 'created'), headers: ['X-Api-Key'] }, null);
  t.deepEqual((await watched.get(id))?.headers, ['X-Api-Key']);
  await watched.project(owned(id, 2, 'created'), { version: 1, state: 'created' });
  t.false('headers' in (await watched.get(id))!);
});

test.serial('keys already there when a change files them (left by a cut change) move no count; the others do', async (t) => {
  const db = client.db('store_stale_key');
  const stale = new ConnectorStore(db);
  const id = 'd4d4d4d4-d4d4-4d4d-8d4d-d4d4d4d4d4d4';
  const record = owned(id, 1, 'created');
  // The by-state key, as a change cut after its keys and before its settle would leave it.
  await db.collection<{ _id: string }>('connector_list_keys').insertOne({ _id: `s|created|${record.created_at}|${id}` });
  await stale.project(record, null);
  const counts = await Promise.all([{}, { state: 'created' }, { createdBy: 'alice' }, { createdBy: 'alice', state: 'created' }]
    .map(async (v) => (await stale.list({ ...v, limit: 10 })).total_count));
  t.deepEqual(counts, [1, 0, 1, 1], 'only the keys this change inserted are counted');
});
