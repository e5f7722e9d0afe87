// The budget of a call in a workflow task, and the owners whose calls are sent out of tasks
// (activities/in-task-admission.ts). The clock that decides "slow" and "for how long" is the
// test's, and so are the meters of the worker's own busy time and of its timers' lateness, except in the tests that block this
// thread for real; the budget is a real timer, overrun by calls that the test holds unanswered.
import test from 'ava';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../contract/failures';
import { InTaskAdmission, inOwnStore, type InTaskLimits, type InTaskOutcome } from '../../activities/in-task-admission';

const LIMITS: InTaskLimits = { budgetMs: 30, slowMs: 500, firstOutMs: 7_500, maxOutMs: 60_000, perOwner: 2 };

function admission() {
  const clock = { now: 1_000_000, busy: 0, late: 0 };
  const sentOut: string[] = [];
  const timesOut: number[] = [];
  const outcomes: InTaskOutcome[] = [];
  const gate = new InTaskAdmission(LIMITS, {
    now: () => clock.now, loopBusy: () => clock.busy, lateness: () => clock.late,
    onSentOut: (owner, why, forMs) => { sentOut.push(`${owner}: ${why}`); timesOut.push(forMs); },
    onOutcome: (outcome) => outcomes.push(outcome),
  });
  return { clock, sentOut, timesOut, outcomes, gate };
}

/** A call the test answers when it likes. */
function held<T>() {
  let answer!: (value: T) => void;
  const promise = new Promise<T>((resolve) => { answer = resolve; });
  return { promise, answer };
}

test('a call that overruns its budget leaves the task with a retryable failure, and is not cut off', async (t) => {
  const { gate } = admission();
  const call = held<string>();
  let finished: string | undefined;
  const err = await t.throwsAsync(gate.run('mallory', () => call.promise.then((v) => (finished = v))));
  t.true(err instanceof ApplicationFailure);
  t.is((err as ApplicationFailure).type, FAILURE.transient);
  t.false((err as ApplicationFailure).nonRetryable, 'the workflow may run it again as an activity');
  call.answer('tokens');
  await new Promise((r) => setImmediate(r));
  t.is(finished, 'tokens', 'the overrun call ran on to its answer (a refresh leaves it in the ledger)');
});

test('an owner whose call overran has calls refused at once, other owners none, until the time is up', async (t) => {
  const { clock, gate, sentOut } = admission();
  await t.throwsAsync(gate.run('mallory', () => held<string>().promise));
  t.true(gate.isOut('mallory'));
  t.deepEqual(sentOut, ['mallory: the server did not answer within 30 ms: the call runs as an activity']);
  let ran = false;
  const refused = await t.throwsAsync(gate.run('mallory', async () => { ran = true; return 'x'; }));
  t.false(ran, 'a refused call does not start');
  t.is((refused as ApplicationFailure).type, FAILURE.transient);
  t.is(await gate.run('bob', async () => 'bob answered'), 'bob answered');
  t.false(gate.isOut('bob'));
  clock.now += LIMITS.firstOutMs - 1;
  t.true(gate.isOut('mallory'));
  clock.now += 2;
  t.is(await gate.run('mallory', async () => 'back'), 'back');
});

test('an owner sent out again soon after their time ended stays out twice as long, up to the longest; a while later the first time again', async (t) => {
  const { clock, gate, timesOut } = admission();
  const overrun = () => t.throwsAsync(gate.run('mallory', () => held<string>().promise));
  const backAfter = (ms: number) => { clock.now += ms; t.false(gate.isOut('mallory')); };
  await overrun();
  for (let again = 0; again < 4; again++) {
    backAfter(timesOut.at(-1)!);
    await overrun();
  }
  t.deepEqual(timesOut, [7_500, 15_000, 30_000, 60_000, 60_000], 'a tarpit is back in tasks no more than once a minute within four tries');
  clock.now += timesOut.at(-1)! - 1;
  t.true(gate.isOut('mallory'));
  backAfter(1 + LIMITS.maxOutMs);
  await overrun();
  t.deepEqual(timesOut.at(-1), LIMITS.firstOutMs, 'a minute without being sent out: the first time again');
  await t.throwsAsync(gate.run('bob', () => Promise.reject(new Error('no'))));
  t.deepEqual(timesOut.at(-1), LIMITS.firstOutMs, 'each owner has their own count');
});

test('calls of one burst that fail together send their owner out once, for the same time', async (t) => {
  const { clock, gate, timesOut } = admission();
  const calls = [held<string>(), held<string>()];
  const running = calls.map((call) => gate.run('mallory', () => call.promise));
  clock.now += 10;
  await Promise.all(running.map((call) => t.throwsAsync(call)));
  t.deepEqual(timesOut, [LIMITS.firstOutMs], 'told once');
  clock.now += LIMITS.firstOutMs - 1;
  t.true(gate.isOut('mallory'));
  clock.now += 1;
  t.false(gate.isOut('mallory'), 'not doubled by the second call of the burst');
});

test('a slow answer or a failure sends the owner out too; a quick answer does not', async (t) => {
  const { clock, gate, sentOut } = admission();
  t.is(await gate.run('quick', async () => { clock.now += LIMITS.slowMs; return 'ok'; }), 'ok');
  t.false(gate.isOut('quick'), 'at the limit is not slow');
  t.is(await gate.run('slow', async () => { clock.now += LIMITS.slowMs + 1; return 'ok'; }), 'ok', 'a slow answer is still the answer');
  t.true(gate.isOut('slow'));
  const failure = new Error('refused');
  t.is(await t.throwsAsync(gate.run('failing', () => Promise.reject(failure))), failure, 'the failure passes unchanged');
  t.true(gate.isOut('failing'));
  const secret = new Error('connect ECONNREFUSED https://user:hunter2@mcp.example/');
  await t.throwsAsync(gate.run('failing', () => Promise.reject(secret)));
  t.deepEqual(sentOut, ['slow: a call took 501 ms', 'failing: a call failed (Error)'], 'told once per owner sent out, without the failure\'s message');
});

test('time the worker spent busy is not the server\'s: an answer read late by a busy worker does not send its owner out', async (t) => {
  const { clock, gate, sentOut } = admission();
  const lateBusy = async (busy: number) => { clock.now += LIMITS.slowMs * 3; clock.busy += busy; return 'ok'; };
  t.is(await gate.run('late', () => lateBusy(LIMITS.slowMs * 2)), 'ok');
  t.false(gate.isOut('late'), 'the server\'s part is the slow limit: not slow');
  t.is(await gate.run('slow', () => lateBusy(LIMITS.slowMs * 2 - 1)), 'ok');
  t.true(gate.isOut('slow'), 'the server\'s part is one past it');
  t.deepEqual(sentOut, [`slow: a call took ${LIMITS.slowMs * 3} ms (${LIMITS.slowMs * 2 - 1} ms of it the worker's own)`]);
});

test('an overrun sends its owner out even when the worker was busy all along: the call held its slot the whole budget', async (t) => {
  const { clock, gate, sentOut } = admission();
  const busyAll = () => { clock.busy += LIMITS.budgetMs * 2; return held<string>().promise; };
  const err = await t.throwsAsync(gate.run('mallory', busyAll), { message: /did not answer within 30 ms/ });
  t.is((err as ApplicationFailure).type, FAILURE.transient, 'the call runs again as an activity');
  t.true(gate.isOut('mallory'), 'a tarpit is not excused by a loaded worker');
  t.deepEqual(sentOut, [`mallory: the server did not answer within 30 ms: the call runs as an activity (${LIMITS.budgetMs * 2} ms of it the worker's own)`]);
});

test('why an owner was sent out names the time the worker was held off the CPU: its timers\' lateness beyond its own busy time', async (t) => {
  const { clock, gate, sentOut } = admission();
  // 100 ms running code (late timers by as much), then 300 ms ready to run and not let.
  const stalled = () => { clock.busy += 100; clock.late += 400; return held<string>().promise; };
  await t.throwsAsync(gate.run('alice', stalled), { message: 'the server did not answer within 30 ms: the call runs as an activity' });
  t.true(gate.isOut('alice'), 'held off for less than the slow limit: named, not excused');
  const lateOnlyFromBusy = async () => { clock.now += LIMITS.slowMs + 2; clock.busy += 1; clock.late += 1; return 'ok'; };
  await gate.run('bob', lateOnlyFromBusy);
  t.deepEqual(sentOut, [
    'alice: the server did not answer within 30 ms: the call runs as an activity (100 ms of it the worker\'s own, 300 ms of it the worker held off the CPU)',
    `bob: a call took ${LIMITS.slowMs + 2} ms (1 ms of it the worker's own)`,
  ]);
});

test('an overrun while the worker was held off the CPU longer than the slow limit leaves its task without sending its owner out', async (t) => {
  const { clock, gate, sentOut, outcomes } = admission();
  const stalledMachine = () => { clock.late += LIMITS.slowMs + 1; return held<string>().promise; };
  await t.throwsAsync(gate.run('carol', stalledMachine), { message: /did not answer within 30 ms/ }, 'it still leaves its task');
  t.false(gate.isOut('carol'));
  t.deepEqual(sentOut, []);
  t.deepEqual(outcomes, ['overran']);
  const answeredLateInAStall = async () => { clock.now += LIMITS.slowMs * 2; clock.late += LIMITS.slowMs + 1; return 'ok'; };
  t.is(await gate.run('dave', answeredLateInAStall), 'ok');
  t.false(gate.isOut('dave'), 'an answer read late in a stall is not the server\'s either');
});

test('why an owner was sent out names the time the call waited on the registry\'s own database, the wait under way included', async (t) => {
  const { gate, sentOut } = admission();
  const storeNeverAnswers = held<string>();
  await t.throwsAsync(gate.run('alice', () => inOwnStore(() => storeNeverAnswers.promise)), { message: /did not answer within 30 ms/ });
  const [, waited] = /\((\d+) ms of it waiting on the registry's own database\)$/.exec(sentOut[0] ?? '') ?? [];
  t.true(Number(waited) >= LIMITS.budgetMs - 5, `the database's part is the budget: ${sentOut[0]}`);
  const serverNeverAnswers = async () => { await inOwnStore(async () => 'claimed'); return held<string>().promise; };
  await t.throwsAsync(gate.run('bob', serverNeverAnswers));
  t.is(sentOut[1], 'bob: the server did not answer within 30 ms: the call runs as an activity', 'a quick database is no part');
  t.is(await inOwnStore(async () => 'outside a call'), 'outside a call', 'outside a call in a task it only runs the work');
});

// Real time: the database's waits are read off performance.now().
const STORE: InTaskLimits = { budgetMs: 300, slowMs: 100, firstOutMs: 7_500, maxOutMs: 60_000, perOwner: 2 };

test('an overrun spent waiting on the registry\'s own database is the registry\'s: the owner stays in; a tarpit behind a quick database goes out', async (t) => {
  const sentOut: string[] = [];
  const gate = new InTaskAdmission(STORE, { onSentOut: (owner, why) => sentOut.push(`${owner}: ${why}`) });
  await t.throwsAsync(gate.run('alice', () => inOwnStore(() => held<string>().promise)), { message: /did not answer within 300 ms/ });
  t.false(gate.isOut('alice'), 'the server was never asked');
  const tarpit = async () => { await inOwnStore(async () => 'claimed'); return held<string>().promise; };
  await t.throwsAsync(gate.run('mallory', tarpit));
  t.true(gate.isOut('mallory'));
  t.is(sentOut.length, 1);
  t.regex(sentOut[0] ?? '', /^mallory: the server did not answer within 300 ms/);
});

test('an answer that waited on the registry\'s own database is not slow for it; the same time spent at the server is', async (t) => {
  const sentOut: string[] = [];
  const gate = new InTaskAdmission(STORE, { onSentOut: (owner, why) => sentOut.push(`${owner}: ${why}`) });
  const wait = (ms: number) => new Promise<string>((resolve) => setTimeout(() => resolve('ok'), ms));
  t.is(await gate.run('alice', () => inOwnStore(() => wait(STORE.slowMs * 2))), 'ok');
  t.false(gate.isOut('alice'));
  t.is(await gate.run('mallory', () => wait(STORE.slowMs * 2)), 'ok');
  t.true(gate.isOut('mallory'));
  t.regex(sentOut.join('\n'), /^mallory: a call took \d+ ms/);
});

test('every call offered to a task is told by its outcome, refusals included', async (t) => {
  const { gate, outcomes } = admission();
  await gate.run('alice', async () => 'ok');
  await gate.run(null, async () => 'ok');
  await t.throwsAsync(gate.run('mallory', () => Promise.reject(new Error('no'))));
  await t.throwsAsync(gate.run('mallory', async () => 'refused'));
  const [first, second] = [held<string>(), held<string>()];
  const running = [gate.run('bob', () => first.promise), gate.run('bob', () => second.promise)];
  await t.throwsAsync(gate.run('bob', async () => 'refused'));
  await Promise.all(running.map((call) => t.throwsAsync(call)));
  t.deepEqual(outcomes, ['answered', 'answered', 'failed', 'owner_out', 'owner_busy', 'overran', 'overran']);
});

test('an owner has at most two calls in tasks at once; a third runs as an activity, and costs them nothing later', async (t) => {
  const { gate } = admission();
  const first = held<string>();
  const second = held<string>();
  const running = [gate.run('mallory', () => first.promise), gate.run('mallory', () => second.promise)];
  let ran = false;
  const third = await t.throwsAsync(gate.run('mallory', async () => { ran = true; return 'x'; }));
  t.false(ran);
  t.is((third as ApplicationFailure).type, FAILURE.transient);
  t.false(gate.isOut('mallory'), 'being busy is no fault');
  t.is(await gate.run('bob', async () => 'bob answered'), 'bob answered', 'other owners are not counted against');
  first.answer('a');
  second.answer('b');
  t.deepEqual(await Promise.all(running), ['a', 'b']);
  t.is(await gate.run('mallory', async () => 'again'), 'again', 'the calls that left freed their places');
});

test('an owner\'s calls in tasks are counted per shard: two in one shard\'s slots do not refuse a call in another\'s', async (t) => {
  const { gate, outcomes } = admission();
  const first = held<string>();
  const second = held<string>();
  const running = [gate.run('mallory', () => first.promise, 'shard-0'), gate.run('mallory', () => second.promise, 'shard-0')];
  await t.throwsAsync(gate.run('mallory', async () => 'x', 'shard-0'), { message: /2 calls in this shard's workflow tasks/ });
  t.is(await gate.run('mallory', async () => 'in shard 1', 'shard-1'), 'in shard 1');
  const third = held<string>();
  const fourth = held<string>();
  running.push(gate.run('mallory', () => third.promise, 'shard-1'), gate.run('mallory', () => fourth.promise, 'shard-1'));
  await t.throwsAsync(gate.run('mallory', async () => 'x', 'shard-1'), { message: /2 calls in this shard's/ }, 'each shard has its own two');
  [first, second, third, fourth].forEach((call, i) => call.answer(`answer ${i}`));
  t.deepEqual(await Promise.all(running), ['answer 0', 'answer 1', 'answer 2', 'answer 3']);
  t.deepEqual(outcomes, ['owner_busy', 'answered', 'owner_busy', 'answered', 'answered', 'answered', 'answered']);
  t.is(await gate.run('mallory', async () => 'again', 'shard-0'), 'again');
  t.is((gate as unknown as { inTask: Map<string, unknown> }).inTask.size, 0, 'no count is kept for a shard with no calls in it');
});

test('without authentication (one tenant) only the budget applies', async (t) => {
  const { clock, gate } = admission();
  await t.throwsAsync(gate.run(null, () => held<string>().promise), { message: /did not answer within 30 ms/ });
  t.is(await gate.run(null, async () => { clock.now += LIMITS.slowMs + 1; return 'slow'; }), 'slow');
  const calls = [held<string>(), held<string>(), held<string>()];
  const running = calls.map((call) => gate.run(undefined, () => call.promise));
  calls.forEach((call, i) => call.answer(`answer ${i}`));
  t.deepEqual(await Promise.all(running), ['answer 0', 'answer 1', 'answer 2'], 'no limit on calls at once, nobody sent out');
});

test('owners whose time is up are forgotten once many were sent out', async (t) => {
  const { clock, gate } = admission();
  for (let i = 0; i < 1_024; i++) await t.throwsAsync(gate.run(`owner-${i}`, () => Promise.reject(new Error('no'))));
  clock.now += LIMITS.firstOutMs + LIMITS.maxOutMs - 1;
  await t.throwsAsync(gate.run('recent', () => Promise.reject(new Error('no'))));
  const held = (gate as unknown as { sentOut: Map<string, unknown> }).sentOut;
  t.is(held.size, 1_025, 'an owner back for less than the longest time out is remembered: their next time doubles');
  clock.now += 2;
  await t.throwsAsync(gate.run('last', () => Promise.reject(new Error('no'))));
  t.deepEqual([...held.keys()], ['recent', 'last']);
});

// This thread, blocked for real: the meter is the event loop's own (performance.eventLoopUtilization).
const REAL: InTaskLimits = { budgetMs: 5_000, slowMs: 150, firstOutMs: 7_500, maxOutMs: 60_000, perOwner: 2 };

function blockThisThread(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) { /* the worker busy with other connectors' tasks */ }
}

const answerAfter = (ms: number) => new Promise<string>((resolve) => setTimeout(() => resolve('ok'), ms));

test.serial('on a real event loop: a quick answer read late because this thread was blocked does not send its owner out', async (t) => {
  const sentOut: string[] = [];
  const gate = new InTaskAdmission(REAL, { onSentOut: (owner, why) => sentOut.push(`${owner}: ${why}`) });
  const call = gate.run('alice', () => answerAfter(5));
  blockThisThread(REAL.slowMs * 3);
  t.is(await call, 'ok');
  t.false(gate.isOut('alice'));
  t.deepEqual(sentOut, []);
});

test.serial('on a real event loop: a server that is slow while this thread idles sends its owner out', async (t) => {
  const sentOut: string[] = [];
  const gate = new InTaskAdmission(REAL, { onSentOut: (owner, why) => sentOut.push(`${owner}: ${why}`) });
  t.is(await gate.run('mallory', () => answerAfter(REAL.slowMs * 3)), 'ok');
  t.true(gate.isOut('mallory'));
  t.regex(sentOut[0] ?? '', /^mallory: a call took \d+ ms/);
});
