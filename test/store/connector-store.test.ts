// The projection and audit writes against a real MongoDB-wire server (FerretDB): a retried or
// late write never takes the record back to an older version, and no audit event is doubled.
import type { AuditEvent, ConnectorRecord } from '../../contract/connector-record';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { MongoClient } from 'mongodb';
import { createLogger } from '../../platform/logger';
import { startFerretDb, type FerretDbServer } from '../../stack/servers/ferretdb-server';
import { ConnectorStore } from '../../store/connector-store';

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
