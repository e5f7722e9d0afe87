// The worker's list index repair (service/list-index-repair.ts) against the embedded database: it
// runs at start, and again within seconds of a change this process saw cut, long before its
// 30-minute interval, so that a count left in doubt by a failed write comes right by itself.
import type { ConnectorRecord } from '../../contract/connector-record';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { MongoClient, type Db } from 'mongodb';
import { createLogger } from '../../platform/logger';
import { startFerretDb, type FerretDbServer } from '../../stack/servers/ferretdb-server';
import { startListIndexRepair } from '../../service/list-index-repair';
import { ConnectorStore } from '../../store/connector-store';
import { eventually } from '../helpers/test-stack';

let dataDir: string;
let server: FerretDbServer;
let client: MongoClient;

test.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'list-index-repair-'));
  server = await startFerretDb({ dataDir, port: 0, log: createLogger('test-list-repair', 'error') });
  client = new MongoClient(server.uri);
});

test.after.always(async () => {
  await client?.close();
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const record = (state: ConnectorRecord['state'], version: number): ConnectorRecord => ({
  id: 'c1', url: 'http://127.0.0.1:1/mcp', state, metadata: {}, auth_request: null, disconnect_reason: null,
  disconnect_permanent: null, preset: null, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', created_by: 'alice', protocol_version: null, version,
});

/** `db` whose `connectors` writes fail while `failing.on` (a database gone for a moment). */
function flaky(db: Db, failing: { on: boolean }): Db {
  return { collection: (name: string) => {
    const collection = db.collection(name);
    return new Proxy(collection, { get: (target, prop, receiver) => {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (name !== 'connectors' || prop !== 'updateOne') return value.bind(target);
      return (...args: unknown[]) => (failing.on ? Promise.reject(new Error('connection closed')) : value.apply(target, args));
    } });
  } } as unknown as Db;
}

test('a change cut by a failed write is repaired within seconds, not at the next interval', async (t) => {
  const db = client.db('repair_soon');
  const failing = { on: false };
  const store = new ConnectorStore(flaky(db, failing), 'worker-a');
  await store.ensureIndexes();
  await store.project(record('created', 1));
  const repair = startListIndexRepair(store, createLogger('test-list-repair', 'error'), 24 * 3_600_000);
  t.teardown(() => repair.stop());
  await repair.runOnce(); // the pass at start
  failing.on = true;
  await t.throwsAsync(store.project(record('connecting', 2)), { message: 'connection closed' });
  failing.on = false;
  const view = { limit: 10, state: 'created' };
  t.false((await store.list(view)).total_count_exact, 'the cut change left its views in doubt');
  const repaired = await eventually(async () => {
    const page = await store.list(view);
    return page.total_count_exact ? page : undefined;
  }, 60_000, 'the repair after the cut');
  t.is(repaired.total_count, 1);
  t.deepEqual(repaired.items.map((r) => r.id), ['c1']);
});
