// The sweep that times the upstream requests' headers: a deadline fires once, after its timeout
// and within a tick of it; a disarmed one never fires; a re-armed one counts from the new start;
// the interval timer runs only while deadlines are pending.
import test from 'ava';
import { performance } from 'node:perf_hooks';
import { DeadlineSweep, type Deadline } from '../../proxy/deadline-sweep';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function recorder(): Deadline & { fired: number[] } {
  const fired: number[] = [];
  return { dueAt: 0, fired, onDue: () => fired.push(performance.now()) };
}

test('a deadline fires once, not before its timeout; a disarmed one never', async (t) => {
  const sweep = new DeadlineSweep(100);
  const due = recorder();
  const kept = recorder();
  const start = performance.now();
  sweep.arm(due);
  sweep.arm(kept);
  sweep.disarm(kept);
  await sleep(400);
  t.is(due.fired.length, 1, 'fired exactly once');
  t.true(due.fired[0]! - start >= 100, `not before the timeout (${(due.fired[0]! - start).toFixed(0)} ms)`);
  t.deepEqual(kept.fired, [], 'disarmed: never fired');
  t.is(sweep.size, 0);
});

test('a deadline armed again counts from the new start', async (t) => {
  const sweep = new DeadlineSweep(150);
  const due = recorder();
  sweep.arm(due);
  await sleep(100);
  const restarted = performance.now();
  sweep.arm(due);
  await sleep(500);
  t.is(due.fired.length, 1);
  t.true(due.fired[0]! - restarted >= 150, 'timed from the second arm');
});

test('the interval stops once nothing is pending, and starts again for the next deadline', async (t) => {
  const sweep = new DeadlineSweep(50);
  const first = recorder();
  sweep.arm(first);
  await sleep(200);
  t.is((sweep as unknown as { ticker: unknown }).ticker, null, 'no timer left running');
  const second = recorder();
  sweep.arm(second);
  t.not((sweep as unknown as { ticker: unknown }).ticker, null);
  await sleep(200);
  t.is(second.fired.length, 1);
});
