// The change feed against the embedded database (FerretDB, whose updates are not atomic): writers
// in several "processes" at once number their entries without a gap or a repeat, a reader gets
// them in order, and pruning keeps the newest while a writer never reuses a pruned number.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { MongoClient } from 'mongodb';
import { createLogger } from '../../core/logger';
import { startFerretDb, type FerretDbServer } from '../../stack/servers/ferretdb-server';
import { ChangeFeed } from '../../store/change-feed';

let dataDir: string;
let server: FerretDbServer;
const clients: MongoClient[] = [];

test.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'change-feed-'));
  server = await startFerretDb({ dataDir, port: 0, log: createLogger('test-feed', process.env.LOG_LEVEL ?? 'error') });
});

test.after.always(async () => {
  for (const client of clients) await client.close();
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** A feed on a connection of its own, as another process would have. */
function feedIn(database: string, keep?: number): ChangeFeed {
  const client = new MongoClient(server.uri);
  clients.push(client);
  return new ChangeFeed(client.db(database), keep);
}

const KEEP = 40;

test('writers on four connections publishing at once number their entries without a gap or a repeat, and every change is read once', async (t) => {
  const writers = Array.from({ length: 4 }, () => feedIn('concurrent'));
  // Each writer publishes 50 changes, in bursts of 10 at once.
  await Promise.all(writers.map(async (feed, w) => {
    for (let burst = 0; burst < 5; burst++) {
      await Promise.all(Array.from({ length: 10 }, (_, i) => feed.publish('connector', `w${w}-${burst * 10 + i}`)));
    }
  }));
  const reader = feedIn('concurrent');
  const newest = await reader.newest();
  const entries = [...await reader.after(0, 10), ...await reader.after(10, 1000)];
  t.deepEqual(entries.map((e) => e.seq), Array.from({ length: newest }, (_, i) => i + 1));
  const ids = entries.flatMap((e) => e.changes.map((c) => c.id));
  t.is(ids.length, 200);
  t.is(new Set(ids).size, 200, 'every change is there once');
  t.true(newest < 200, `a burst shares entries (${newest} entries)`);
  t.deepEqual(await reader.after(newest, 10), []);
});

test('the feed keeps its newest entries, and a writer after pruning goes on from the newest', async (t) => {
  const feed = feedIn('pruned', KEEP);
  for (let i = 0; i < 3 * KEEP; i++) await feed.publish(i % 2 ? 'toolset' : 'connector', `id-${i}`); // one entry each
  const left = await feed.after(0, 1000);
  t.is(left[0]!.seq, 3 * KEEP - KEEP + 1, `the newest ${KEEP} are kept, older ones pruned`);
  t.is(left.length, KEEP);
  await feedIn('pruned', KEEP).publish('connector', 'after-pruning');
  t.deepEqual(await feed.after(3 * KEEP, 10), [{ seq: 3 * KEEP + 1, changes: [{ kind: 'connector', id: 'after-pruning' }] }]);
});
