// A renewal is counted once (activities/refresh-metrics.ts). A try in a workflow task that
// overruns its budget runs on to its answer (activities/in-task-admission.ts), and the workflow
// runs the renewal again as an activity, which counts it: the try left behind counts nothing,
// whatever its outcome. Real prom-client metrics; the budget is a real timer.
import test from 'ava';
import { Registry } from 'prom-client';
import { callLeftItsTask, InTaskAdmission, type InTaskLimits } from '../../activities/in-task-admission';
import { measuredRenewal } from '../../activities/refresh-metrics';
import { createMetrics } from '../../platform/metrics';

const LIMITS: InTaskLimits = { budgetMs: 30, slowMs: 500, firstOutMs: 7_500, maxOutMs: 60_000, perOwner: 2 };

function held<T>() {
  let answer!: (value: T) => void;
  let refuse!: (err: Error) => void;
  const promise = new Promise<T>((resolve, reject) => { answer = resolve; refuse = reject; });
  return { promise, answer, refuse };
}

async function counts(registry: Registry) {
  const refreshes = (await registry.getSingleMetric('token_refreshes_total')!.get()).values;
  const lag = (await registry.getSingleMetric('token_refresh_lag_seconds')!.get()).values.find((v) => (v as { metricName?: string }).metricName === 'token_refresh_lag_seconds_count');
  return { byOutcome: Object.fromEntries(refreshes.map((v) => [v.labels.outcome, v.value])), lagObserved: lag?.value ?? 0 };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 10));

test('a renewal within its budget is counted once, with its lag', async (t) => {
  const registry = new Registry();
  const metrics = createMetrics(registry);
  const gate = new InTaskAdmission(LIMITS);
  t.is(await gate.run('bob', () => measuredRenewal(metrics, 0.2, async () => 'tokens')), 'tokens');
  t.deepEqual(await counts(registry), { byOutcome: { success: 1 }, lagObserved: 1 });
});

test('a renewal that overran its task counts nothing when it ends; the activity after it counts', async (t) => {
  const registry = new Registry();
  const metrics = createMetrics(registry);
  const gate = new InTaskAdmission(LIMITS);
  const answered = held<string>();
  const refused = held<string>();
  await t.throwsAsync(gate.run(null, () => measuredRenewal(metrics, 0.2, () => answered.promise)));
  await t.throwsAsync(gate.run(null, () => measuredRenewal(metrics, 0.2, () => refused.promise)));
  answered.answer('tokens');
  refused.refuse(new Error('refused'));
  await settled();
  t.deepEqual(await counts(registry), { byOutcome: {}, lagObserved: 0 }, 'the tries left behind counted nothing');

  // The activity the workflow runs next (outside any task).
  t.false(callLeftItsTask());
  await measuredRenewal(metrics, 1.2, async () => 'tokens');
  t.deepEqual(await counts(registry), { byOutcome: { success: 1 }, lagObserved: 1 });
});

test('a try that failed within its budget is counted by its outcome: the workflow saw it fail', async (t) => {
  const registry = new Registry();
  const metrics = createMetrics(registry);
  const gate = new InTaskAdmission(LIMITS);
  await t.throwsAsync(gate.run('bob', () => measuredRenewal(metrics, null, async () => { throw new Error('reset'); })));
  t.deepEqual(await counts(registry), { byOutcome: { failed: 1 }, lagObserved: 0 }, 'no schedule (a renewal on a 401): no lag');
});
