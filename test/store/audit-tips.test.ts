// Where a process last linked each connector's audit chain is only trusted for a minute (never
// near a batch's expiry) and kept for a bounded number of connectors.
import test from 'ava';
import { AuditTips } from '../../store/audit-tips';

test('a tip is trusted for a minute after it was linked, then read again from the database', (t) => {
  let now = 1_000_000;
  const tips = new AuditTips(() => now);
  t.is(tips.get('c'), undefined);
  tips.remember('c', 'c:batch1');
  now += 59_999;
  t.is(tips.get('c'), 'c:batch1');
  now += 1;
  t.is(tips.get('c'), undefined);
});

test('past 10,000 connectors the one written to the longest ago goes first', (t) => {
  const tips = new AuditTips(() => 0);
  for (let i = 0; i < 10_000; i++) tips.remember(`c${i}`, `c${i}:b`);
  tips.remember('c0', 'c0:b2'); // written to again: now the newest
  tips.remember('c10000', 'c10000:b');
  t.is(tips.get('c0'), 'c0:b2');
  t.is(tips.get('c1'), undefined, 'the oldest went');
  t.is(tips.get('c2'), 'c2:b');
  t.is(tips.get('c10000'), 'c10000:b');
});
