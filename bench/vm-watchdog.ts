// What one call into a workflow's sandbox costs the workflow thread (npm run bench:vm-watchdog).
// The Temporal SDK runs each activation as at least three calls into the workflow's `vm` context
// (activate, tryUnblockConditions until nothing unblocks, concludeActivation), each with
// `timeout` set to its isolateExecutionTimeout (5 s by default, and there is no way to leave it
// unset). Node starts a watchdog thread for every call made with a timeout and joins it after.
// This bench makes the same call, in a context made the way the SDK makes it, with and without
// the timeout, in interleaved rounds: the ratio is what the watchdog adds to every call
// (docs/scale.md, "Where a refresh's CPU goes").
//
// Env: BENCH_CALLS per round (20,000), BENCH_ROUNDS per variant (4).
import vm from 'node:vm';
import { percentile } from './lifecycle/rounds';

const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SDK_TIMEOUT_MS = 5_000;

const context = vm.createContext({ calls: 0 }, { microtaskMode: 'afterEvaluate' });
const call = new vm.Script('calls += 1');

/** CPU µs per call (this process, every thread) over one round. */
function round(options: vm.RunningScriptOptions): number {
  const before = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) call.runInContext(context, options);
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / CALLS;
}

const without: number[] = [];
const withTimeout: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  without.push(round({}));
  withTimeout.push(round({ timeout: SDK_TIMEOUT_MS }));
}
const median = (xs: number[]) => percentile(xs, 50);
console.log(`bench:vm-watchdog: ${CALLS} calls into a vm context per round, ${ROUNDS} interleaved rounds each (Node ${process.version})`);
console.log(`  without timeout (the baseline)  ${median(without).toFixed(1)} µs CPU per call`);
console.log(`  timeout ${SDK_TIMEOUT_MS} ms (the SDK's)      ${median(withTimeout).toFixed(1)} µs CPU per call`);
console.log(`  ratio ${(median(withTimeout) / median(without)).toFixed(1)}x; per activation (three calls at least) +${(3 * (median(withTimeout) - median(without))).toFixed(0)} µs`);
