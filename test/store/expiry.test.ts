// Bounded collections against the embedded database (FerretDB): the TTL indexes asked for, the
// stand-in FerretDB gets (it has no TTL indexes), and the sweep that deletes expired OAuth states,
// day-old refresh answers and the expired audit events of deleted connectors while keeping
// everything still live.
import type { AuditEvent, ConnectorRecord } from '../../contract/connector-record';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { createLogger } from '../../platform/logger';
import { startExpirySweeper } from '../../service/expiry-sweeper';
import { startFerretDb, type FerretDbServer } from '../../stack/servers/ferretdb-server';
import { ConnectorStore, EVENT_EXPIRY } from '../../store/connector-store';
import { OAuthStore, STATE_EXPIRY } from '../../store/oauth-store';

const log = createLogger('test-expiry', process.env.LOG_LEVEL ?? 'silent');
const DAY_MS = 86_400_000;
let dataDir: string;
let server: FerretDbServer;
let client: MongoClient;
let db: Db;
let store: ConnectorStore;
let oauthStore: OAuthStore;
const createIndexes: CommandStartedEvent[] = [];

test.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'store-expiry-'));
  server = await startFerretDb({ dataDir, port: 0, log });
  client = new MongoClient(server.uri, { monitorCommands: true });
  client.on('commandStarted', (event) => {
    if (event.commandName === 'createIndexes') createIndexes.push(event);
  });
  db = client.db('expiry_test');
  store = new ConnectorStore(db);
  oauthStore = new OAuthStore(db);
  await store.ensureIndexes();
  await oauthStore.ensureIndexes();
});

test.after.always(async () => {
  await client?.close();
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** The indexes sent to the server for `collection` (the driver sends each key as a Map). */
function requestedIndexes(collection: string): Array<{ key: object; expireAfterSeconds?: number }> {
  return createIndexes
    .filter((e) => e.command.createIndexes === collection)
    .flatMap((e) => e.command.indexes as Array<{ key: Map<string, number>; expireAfterSeconds?: number }>)
    .map((index) => ({ ...index, key: Object.fromEntries(index.key) }));
}

async function indexKeys(collection: string): Promise<object[]> {
  return (await db.collection(collection).listIndexes().toArray()).map((index) => index.key);
}

test('TTL indexes are asked for on oauth_states, oauth_refreshes and connector_events; FerretDB refuses them and gets a plain index for the sweep', async (t) => {
  t.like(requestedIndexes('oauth_states').find((i) => i.expireAfterSeconds !== undefined), { key: { expires_at: 1 }, expireAfterSeconds: 3600 });
  t.like(requestedIndexes('oauth_refreshes').find((i) => i.expireAfterSeconds !== undefined), { key: { claimed_at: 1 }, expireAfterSeconds: 86_400 });
  t.like(requestedIndexes('connector_events').find((i) => i.expireAfterSeconds !== undefined), { key: { expires_at: 1 }, expireAfterSeconds: 0 });
  t.is(STATE_EXPIRY.afterSeconds, 3600);
  t.is(EVENT_EXPIRY.afterSeconds, 0);
  // FerretDB 1.24 answers NotImplemented to expireAfterSeconds: the plain index stands in.
  t.false(await oauthStore.ensureIndexes(), 'FerretDB does not expire documents itself');
  t.deepEqual((await indexKeys('oauth_states')).filter((k) => 'expires_at' in k), [{ expires_at: 1 }]);
  t.deepEqual((await indexKeys('connector_events')).filter((k) => 'expires_at' in k), [{ expires_at: 1 }]);
  t.deepEqual((await indexKeys('oauth_refreshes')).filter((k) => 'claimed_at' in k), [{ claimed_at: 1 }]);
});

function state(id: string, expiresAt: Date) {
  return { _id: id, connector_id: `connector-of-${id}`, redirect_url: null, expires_at: expiresAt };
}

test.serial('the sweep deletes OAuth states an hour past their expiry and keeps the others', async (t) => {
  const now = new Date();
  await oauthStore.rememberState(state('long-expired', new Date(now.getTime() - 2 * 3600_000)));
  await oauthStore.rememberState(state('just-expired', new Date(now.getTime() - 60_000)));
  await oauthStore.rememberState(state('pending', new Date(now.getTime() + 600_000)));
  // What the TTL index needs: a BSON Date, as the activity writes it.
  t.true((await oauthStore.findState('pending'))?.expires_at instanceof Date);

  t.is(await oauthStore.sweepExpiredStates(now), 1);
  t.is(await oauthStore.findState('long-expired'), null);
  t.truthy(await oauthStore.findState('just-expired'), 'a late callback still hears "expired"');
  t.truthy(await oauthStore.pendingState('pending'));
});

function record(id: string): ConnectorRecord {
  const at = new Date().toISOString();
  return {
    id, url: 'http://127.0.0.1:1/mcp', state: 'created', metadata: {}, auth_request: null, disconnect_reason: null,
    disconnect_permanent: null, preset: null, created_at: at, updated_at: at, created_by: null, protocol_version: null, version: 1,
  };
}

function events(id: string): AuditEvent[] {
  const time = new Date().toISOString();
  return [
    { connectorId: id, seq: 1, time, actor: 'test', from: null, to: 'created', reason: null },
    { connectorId: id, seq: 2, time, actor: 'test', from: 'created', to: 'deleting', reason: null },
  ];
}

const eventCount = (id: string) => db.collection('connector_events').countDocuments({ connector_id: id });

test.serial('removing a connector dates its events; the sweep deletes them once that date has passed and keeps live connectors’ events', async (t) => {
  for (const id of ['deleted', 'live']) {
    await store.project(record(id));
    await store.appendEvents(events(id));
  }
  const now = new Date();
  const expireAt = new Date(now.getTime() + 90 * DAY_MS);
  await store.remove('deleted', expireAt);
  // A retried removal keeps the first date.
  await store.remove('deleted', new Date(expireAt.getTime() + DAY_MS));
  const stamped = await db.collection('connector_events').find({ connector_id: 'deleted' }).toArray();
  t.deepEqual(stamped.map((e) => e.expires_at), [expireAt, expireAt]);
  t.is(await store.get('deleted'), null);

  t.is(await store.sweepExpiredEvents(now), 0, 'kept for the retention period');
  t.is(await eventCount('deleted'), 2);
  t.is(await store.sweepExpiredEvents(new Date(expireAt.getTime() + 1000)), 2);
  t.is(await eventCount('deleted'), 0);
  t.is(await eventCount('live'), 2, 'a live connector’s events have no expiry');
  t.deepEqual((await store.listEvents('live', { limit: 10 })).items.map((e) => Object.keys(e).includes('expires_at')), [false, false]);
});

test.serial('the worker’s sweeper deletes what has expired, on start and on each pass', async (t) => {
  const now = Date.now();
  await oauthStore.rememberState(state('sweeper-expired', new Date(now - 2 * 3600_000)));
  await oauthStore.rememberState(state('sweeper-pending', new Date(now + 600_000)));
  await store.project(record('sweeper-deleted'));
  await store.appendEvents(events('sweeper-deleted'));
  await store.remove('sweeper-deleted', new Date(now - 1000));
  await oauthStore.refreshes.claim('sweeper-old-answer', 'sweeper-connector', 'holder', new Date(now - 2 * DAY_MS));
  await oauthStore.refreshes.claim('sweeper-new-answer', 'sweeper-connector', 'holder', new Date(now - 60_000));

  const sweeper = startExpirySweeper({ store, oauthStore }, log);
  t.teardown(() => sweeper.stop());
  await sweeper.runOnce();
  await sweeper.runOnce();
  t.is(await oauthStore.findState('sweeper-expired'), null);
  t.truthy(await oauthStore.findState('sweeper-pending'));
  t.is(await eventCount('sweeper-deleted'), 0);
  const answers = await db.collection('oauth_refreshes').find({ connector_id: 'sweeper-connector' }).toArray();
  t.deepEqual(answers.map((a) => a._id), ['sweeper-new-answer'], 'refresh answers go a day after their claim');
});
