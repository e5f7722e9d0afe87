// A write that did not happen is never taken for one that had already happened. The store's
// inserts treat a duplicate key as "a retried write met its earlier attempt"; the driver wraps a
// lost connection during insertMany in a bulk error with no write errors at all, which once read
// as "only duplicates" and dropped audit events when the database was killed.
import type { AuditEvent } from '../../contract/connector-record';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { MongoClient } from 'mongodb';
import { createLogger } from '../../platform/logger';
import { startFerretDb } from '../../stack/servers/ferretdb-server';
import { ConnectorStore } from '../../store/connector-store';
import { onlyDuplicateKeys } from '../../store/duplicate-key';

function event(id: string, seq: number): AuditEvent {
  return { connectorId: id, seq, time: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(), actor: 'test', from: null, to: 'created', reason: null };
}

async function storeOnFerretDb(name: string) {
  const dataDir = await mkdtemp(join(tmpdir(), `${name}-`));
  const server = await startFerretDb({ dataDir, port: 0, log: createLogger(name, process.env.LOG_LEVEL ?? 'error') });
  const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 1_000 });
  const store = new ConnectorStore(client.db('lost_writes'));
  await store.ensureIndexes();
  const cleanup = async () => { await client.close(); await server.stop(); await rm(dataDir, { recursive: true, force: true }); };
  return { server, client, store, cleanup };
}

test.serial('a retried append (every event already there) succeeds and doubles nothing', async (t) => {
  const { client, store, cleanup } = await storeOnFerretDb('retried-append');
  t.teardown(cleanup);
  await store.appendEvents([event('c1', 1), event('c1', 2)]);
  await t.notThrowsAsync(store.appendEvents([event('c1', 1), event('c1', 2), event('c1', 3)]));
  t.is(await client.db('lost_writes').collection('connector_events').countDocuments({ connector_id: 'c1' }), 3);
});

test.serial('an append while the database is gone fails, for one event and for several', async (t) => {
  const { server, store, cleanup } = await storeOnFerretDb('gone-append');
  t.teardown(cleanup);
  await store.appendEvents([event('c2', 1)]);
  await server.stop();
  const several = await t.throwsAsync(store.appendEvents([event('c2', 2), event('c2', 3)]));
  t.false(onlyDuplicateKeys(several), `${several?.name}: ${several?.message}`);
  await t.throwsAsync(store.appendEvents([event('c2', 2)]));
});

test('an error without write errors, or with a write concern error, is not "only duplicates"', (t) => {
  t.true(onlyDuplicateKeys({ code: 11000 }));
  t.true(onlyDuplicateKeys({ writeErrors: [{ code: 11000 }, { code: 11000 }] }));
  t.false(onlyDuplicateKeys({ writeErrors: [] }));
  t.false(onlyDuplicateKeys({ writeErrors: [{ code: 11000 }, { code: 121 }] }));
  t.false(onlyDuplicateKeys({ writeErrors: [{ code: 11000 }], writeConcernError: { code: 64 } }));
  t.false(onlyDuplicateKeys(new Error('connection 3 to 127.0.0.1:27017 closed')));
});
