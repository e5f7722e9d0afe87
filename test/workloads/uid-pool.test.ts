// The uids of CONNECTOR__STDIO_UID_RANGE, one per running server: never two at once, reused as
// late as the range allows, and never one that some process (another worker's server, a leftover) holds.
import test from 'ava';
import { WorkloadExitedError } from '../../activities/workloads/errors';
import { UidPool, UidPoolExhaustedError } from '../../activities/workloads/uid-pool';

test('round robin over the range, skipping the uids held here and those some process holds', (t) => {
  const busy = new Set([1001]);
  const pool = new UidPool({ first: 1000, last: 1003 }, () => busy);
  t.deepEqual([pool.acquire(), pool.acquire()], [1000, 1002], '1001 runs something already');
  pool.release(1000);
  t.is(pool.acquire(), 1003, 'a released uid waits for its turn');
  t.is(pool.acquire(), 1000);
  busy.clear();
  t.is(pool.acquire(), 1001, 'free again once its process is gone');
});

test('a range with every uid taken refuses the next server (502) until one is released', (t) => {
  const pool = new UidPool({ first: 5000, last: 5001 }, () => new Set());
  pool.acquire();
  pool.acquire();
  const error = t.throws(() => pool.acquire(), { instanceOf: UidPoolExhaustedError });
  t.true(error instanceof WorkloadExitedError);
  t.regex(error!.message, /every uid of CONNECTOR__STDIO_UID_RANGE \(5000-5001\) is taken/);
  pool.release(5001);
  t.is(pool.acquire(), 5001);
});
