// The proxy's ear on the change feed: it starts at the feed's end, hands on each entry once and in
// order, forgets everything when entries were missed, and keeps polling through a failing feed.
import test from 'ava';
import { createLogger } from '../../platform/logger';
import type { FeedEntry } from '../../store/change-feed';
import { startChangeListener } from '../../service/change-listener';

const logger = createLogger('test-listener', process.env.LOG_LEVEL ?? 'silent');

function fakeFeed(entries: FeedEntry[]) {
  let failing = false;
  return {
    entries,
    fail: (on: boolean) => (failing = on),
    newest: async () => entries.at(-1)?.seq ?? 0,
    async after(seq: number, limit: number) {
      if (failing) throw new Error('database down');
      return entries.filter((e) => e.seq > seq).slice(0, limit);
    },
  };
}

const change = (seq: number, id = `c${seq}`): FeedEntry => ({ seq, changes: [{ kind: 'connector', id }] });

test('what was there before it started is not handed on; what comes after is, once and in order, past a failing read', async (t) => {
  const feed = fakeFeed([change(1), change(2)]);
  const forgotten: string[] = [];
  let all = 0;
  const listener = startChangeListener({ feed, intervalMs: 60_000, logger, forget: (c) => forgotten.push(c.id), forgetAll: () => all++ });
  t.teardown(() => listener.stop());
  await listener.runOnce();
  feed.entries.push(change(3), change(4));
  await listener.runOnce();
  await listener.runOnce();
  t.deepEqual(forgotten, ['c3', 'c4']);
  feed.fail(true);
  feed.entries.push(change(5));
  await listener.runOnce();
  feed.fail(false);
  await listener.runOnce();
  t.deepEqual(forgotten, ['c3', 'c4', 'c5']);
  t.is(all, 0);
});

test('a gap in the numbers (entries pruned before they were read) forgets everything', async (t) => {
  const feed = fakeFeed([change(1)]);
  let all = 0;
  const forgotten: string[] = [];
  const listener = startChangeListener({ feed, intervalMs: 60_000, logger, forget: (c) => forgotten.push(c.id), forgetAll: () => all++ });
  t.teardown(() => listener.stop());
  await listener.runOnce();
  feed.entries.splice(0, 1, change(7), change(8));
  await listener.runOnce();
  t.is(all, 1);
  t.deepEqual(forgotten, ['c7', 'c8']);
});
