// The activity stubs the workflow calls, with the timeouts and retry policies each kind of work
// needs. Only types are imported from activities/: the workflow bundle stays free of I/O.
import { NON_RETRYABLE_FAILURES } from '../contract/failures';
import { ApplicationFailure, TimeoutFailure, isCancellation, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities';

type Activities = ReturnType<typeof createActivities>;

// The failure table says which types a retry may cure (contract/failures.ts).
const NON_RETRYABLE = [...NON_RETRYABLE_FAILURES];

/**
 * Projection and audit writes retry until the database is back: a transition is never dropped.
 * They are regular activities, never local ones: a regular activity is scheduled by the workflow
 * task that decided the transition and runs only once that task is in history, so what MongoDB
 * shows never gets ahead of what Temporal has persisted. A local activity runs inside the task,
 * before it completes; a crash then left records (`connected`, a `created_at`, an audit event)
 * of tasks that never made it into history, and that no later write could take back.
 */
export const store = proxyActivities<Activities>({
  // A write takes milliseconds; one that a dead worker held is tried again after this long (a
  // write that is only slow is retried too, and the writes are idempotent).
  startToCloseTimeout: '1500ms',
  retry: { initialInterval: '200ms', maximumInterval: '30s' },
});

/** Calls to MCP and authorization servers: a dead worker is noticed by its missing heartbeats. */
export function remote(connectTimeoutMs: number) {
  return proxyActivities<Activities>({ ...remoteCallOptions(connectTimeoutMs), heartbeatTimeout: '4s' });
}

function remoteCallOptions(connectTimeoutMs: number) {
  return {
    startToCloseTimeout: connectTimeoutMs * 3 + 5_000,
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE },
  };
}

/**
 * The probe of a given token as histories before `inTaskFirst` ran it: one MCP handshake, retried
 * inside the connect's workflow task for up to 10 s.
 */
export function probe(connectTimeoutMs: number) {
  return proxyLocalActivities<Activities>({ ...remoteCallOptions(connectTimeoutMs), localRetryThreshold: '10s' });
}

/** Refreshing a grant: transient failures of the authorization server are retried with backoff, for long. */
export const refresher = proxyActivities<Activities>({
  startToCloseTimeout: '60s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '5m', nonRetryableErrorTypes: NON_RETRYABLE },
});

/** A renewal in the timer's workflow task as histories before `inTaskFirst` ran it: retried in the task for up to 10 s. */
export const inTaskRefresher = proxyLocalActivities<Activities>({
  startToCloseTimeout: '60s',
  localRetryThreshold: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '5m', nonRetryableErrorTypes: NON_RETRYABLE },
});

/**
 * One try of a call inside the workflow task that needs its answer, as a local activity: the
 * probe of a given token in the connect's task (the connect then costs Temporal about what a bare
 * Update does, bench/lifecycle.ts), a renewal in the task its timer wakes (issue 42: a refresh
 * that changes nothing a reader of the record sees costs one workflow task and one activity). It
 * writes nothing anywhere: what it answers reaches history in the task's marker, as a regular
 * activity's answer reaches it in its completion, so nothing is seen before Temporal has it. The
 * worker gives it a short budget (activities/in-task-admission.ts): it holds a workflow-task slot
 * while it waits. A worker that dies mid-call is noticed by the workflow task timeout (2 s,
 * api/connector-commands.ts). The timeout here only backs the budget up.
 */
export const inTaskTry = proxyLocalActivities<Activities>({ startToCloseTimeout: '5s', retry: { maximumAttempts: 1 } });

/**
 * `inTask` (one try in the workflow task), else, when that try failed in a way a retry may cure
 * (the server was slow, unreachable or overloaded, or its owner's servers were slow of late), the
 * same call as a regular activity: it waits for its server, and retries, without a slot.
 */
export async function inTaskFirst<T>(inTask: () => Promise<T>, asActivity: () => Promise<T>): Promise<T> {
  try {
    return await inTask();
  } catch (err) {
    if (isCancellation(err) || !mayRetry(err)) throw err;
    return asActivity();
  }
}

function mayRetry(err: unknown): boolean {
  const cause = (err as { cause?: unknown }).cause ?? err;
  if (cause instanceof TimeoutFailure) return true;
  return cause instanceof ApplicationFailure && !cause.nonRetryable && !NON_RETRYABLE.includes(cause.type as never);
}

/** Tear-down work (revocation, workload removal): best effort, bounded. */
export const cleanup = proxyActivities<Activities>({
  startToCloseTimeout: '60s',
  retry: { maximumAttempts: 5, initialInterval: '1s' },
});

/** Managed workloads: starting waits for readiness; watching runs as long as the workload lives. */
export function workloads(readinessTimeoutMs: number) {
  return proxyActivities<Activities>({
    startToCloseTimeout: readinessTimeoutMs + 60_000,
    heartbeatTimeout: '10s',
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE },
  });
}

export const watcher = proxyActivities<Activities>({
  startToCloseTimeout: '3650 days',
  heartbeatTimeout: '15s',
  retry: { initialInterval: '1s', maximumInterval: '30s' },
});
