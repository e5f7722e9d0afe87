// The per-owner connector quota against the embedded database (FerretDB): concurrent reserves
// get exactly the quota's slots; a failed or removed connector gives its slot back; and a slot
// left behind by a crash (held and never confirmed, or its record removed first) is freed once
// the owner runs out, so the count converges on the owner's records.
import type { ConnectorRecord } from '../../contract/connector-record';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { MongoClient } from 'mongodb';
import { createLogger } from '../../platform/logger';
import { startFerretDb, type FerretDbServer } from '../../stack/servers/ferretdb-server';
import { ConnectorStore } from '../../store/connector-store';
import { HOLD_MS } from '../../store/owner-slots';

let dataDir: string;
let server: FerretDbServer;
let client: MongoClient;

test.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'owner-slots-'));
  server = await startFerretDb({ dataDir, port: 0, log: createLogger('test-slots', process.env.LOG_LEVEL ?? 'error') });
  client = new MongoClient(server.uri);
});

test.after.always(async () => {
  await client?.close();
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

function freshStore(name: string, clock = { now: Date.now() }): ConnectorStore {
  return new ConnectorStore(client.db(name), undefined, () => clock.now);
}

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function record(n: number, owner: string): ConnectorRecord {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
  return {
    id: id(n), url: 'http://127.0.0.1:1/mcp', state: 'created', metadata: {}, auth_request: null,
    disconnect_reason: null, disconnect_permanent: null, preset: null, created_at: at, updated_at: at, created_by: owner, protocol_version: null, version: 1,
  };
}

test('concurrent reserves against a quota of 5: exactly 5 succeed, whatever the interleaving', async (t) => {
  const store = freshStore('slots_concurrent');
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => store.slots.reserve('key:a', id(i), 5)));
  t.is(answers.filter((slot) => slot !== null).length, 5);
  t.is(await store.slots.count('key:a'), 5);
  t.truthy(await store.slots.reserve('key:b', id(100), 5), 'another owner has slots of its own');
});

test('release gives a slot back, twice is harmless; a large quota costs no read of the owner\'s slots', async (t) => {
  const store = freshStore('slots_release');
  const slot = await store.slots.reserve('key:a', id(1), 1);
  t.truthy(slot);
  t.is(await store.slots.reserve('key:a', id(2), 1), null);
  await store.slots.releaseSlot(slot!, id(1)); // a failed create
  await store.slots.releaseSlot(slot!, id(1));
  t.truthy(await store.slots.reserve('key:a', id(2), 1));
  await store.slots.release('key:a', id(2)); // a removed record
  t.is(await store.slots.count('key:a'), 0);
  for (let i = 0; i < 50; i++) t.truthy(await store.slots.reserve('key:big', id(i), 1_000_000), `reserve ${i}`);
  t.is(await store.slots.count('key:big'), 50);
});

test('removing the record frees its slot', async (t) => {
  const store = freshStore('slots_remove');
  const slot = await store.slots.reserve('oidc:x', id(1), 1);
  await store.project(record(1, 'oidc:x'));
  await store.slots.confirm(slot!, id(1));
  t.is(await store.slots.reserve('oidc:x', id(2), 1), null, 'the confirmed slot counts');
  await store.remove(id(1), new Date());
  t.is(await store.slots.count('oidc:x'), 0);
  t.truthy(await store.slots.reserve('oidc:x', id(2), 1));
});

test('after a crash: a held slot without a record is freed once older than a create can take; one whose record went first, at once', async (t) => {
  const clock = { now: Date.now() };
  const store = freshStore('slots_crash', clock);
  // A create that reserved and died before its workflow started: no record, never confirmed.
  t.truthy(await store.slots.reserve('key:a', id(1), 2));
  // A connector whose record was removed, the process dying before its slot was freed.
  const removed = await store.slots.reserve('key:a', id(2), 2);
  await store.project(record(2, 'key:a'));
  await store.slots.confirm(removed!, id(2));
  await client.db('slots_crash').collection('connectors').deleteOne({ _id: id(2) as never });
  t.truthy(await store.slots.reserve('key:a', id(3), 2), 'the removed connector\'s slot is freed');
  await store.project(record(3, 'key:a')); // that create completes
  t.is(await store.slots.reserve('key:a', id(4), 2), null, 'a young held slot may still be a create under way');
  clock.now += HOLD_MS + 1;
  t.truthy(await store.slots.reserve('key:a', id(4), 2), 'past HOLD_MS the dead create\'s slot is freed');
  t.is(await store.slots.count('key:a'), 2, 'the count converged: the live connector and the new reservation');
});
