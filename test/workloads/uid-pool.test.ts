// The uids of CONNECTOR__STDIO_UID_RANGE, one per running server: never two at once (in this
// process or across the service's processes on the machine), reused as late as the range allows,
// and never one that some process (a leftover, another worker's server) holds.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { WorkloadExitedError } from '../../activities/workloads/errors';
import { UidClaims } from '../../activities/workloads/uid-claims';
import { UidPool, UidPoolExhaustedError } from '../../activities/workloads/uid-pool';

const claimsDir = () => join(mkdtempSync(join(tmpdir(), 'uid-claims-')), 'claims');

test('one uid per server over the range, skipping the uids held here and those some process holds', (t) => {
  const busy = new Set([1001]);
  const pool = new UidPool({ first: 1000, last: 1003 }, { inUse: () => busy, claims: new UidClaims(claimsDir()) });
  const first = pool.acquire();
  const order = [first, pool.acquire(), pool.acquire()];
  t.false(order.includes(1001), '1001 runs something already');
  t.is(new Set(order).size, 3);
  t.throws(() => pool.acquire(), { instanceOf: UidPoolExhaustedError });
  pool.release(first);
  busy.clear();
  t.deepEqual([pool.acquire(), pool.acquire()].sort(), [1001, first].sort(), 'both free again: one released, one whose process is gone');
});

test('a range with every uid taken refuses the next server (502) until one is released', (t) => {
  const pool = new UidPool({ first: 5000, last: 5001 }, { inUse: () => new Set(), claims: new UidClaims(claimsDir()) });
  const [a] = [pool.acquire(), pool.acquire()];
  const error = t.throws(() => pool.acquire(), { instanceOf: UidPoolExhaustedError });
  t.true(error instanceof WorkloadExitedError);
  t.regex(error!.message, /every uid of CONNECTOR__STDIO_UID_RANGE \(5000-5001\) is taken/);
  pool.release(a!);
  t.is(pool.acquire(), a);
});

test('two pools sharing the machine\'s claims never hand out the same uid; a claim of a process that is gone is taken over', (t) => {
  const dir = claimsDir();
  const range = { first: 7000, last: 7009 };
  const one = new UidPool(range, { inUse: () => new Set(), claims: new UidClaims(dir) });
  const other = new UidPool(range, { inUse: () => new Set(), claims: new UidClaims(dir) });
  const given = Array.from({ length: 5 }, () => [one.acquire(), other.acquire()]).flat();
  t.is(new Set(given).size, 10, 'ten servers, ten uids');
  t.throws(() => one.acquire(), { instanceOf: UidPoolExhaustedError });

  // A worker that crashed left its claim on 7000 behind.
  one.release(7000);
  other.release(7000);
  const gone = spawnSync(process.execPath, ['-e', '0']).pid;
  writeFileSync(join(dir, '7000'), String(gone));
  t.is(other.acquire(), 7000);
  t.throws(() => one.acquire(), { instanceOf: UidPoolExhaustedError }, 'now held by a live process: this one');
});

test('the claims directory must be this user\'s alone', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'uid-claims-open-'));
  chmodSync(dir, 0o777);
  t.throws(() => new UidClaims(dir).claim(1000), { message: /no one else may write to/ });
});
