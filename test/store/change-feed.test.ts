// The change feed against the embedded database (FerretDB, whose updates are not atomic): writers
// in several "processes" at once number their entries without a gap or a repeat, a reader gets
// them in order, and pruning keeps the newest while a writer never reuses a pruned number.
import test from 'ava';
import { databasePerFile } from '../helpers/database-per-file';
import { ChangeFeed } from '../../store/change-feed';

const database = databasePerFile('change-feed');

/** A feed on a connection of its own, as another process would have. */
function feedIn(name: string, keep?: number): ChangeFeed {
  return new ChangeFeed(database.connect().db(name), keep);
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
