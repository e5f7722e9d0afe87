// When shut-down workers have handed back everything Temporal must hear of. Core ends a worker's
// two pollers only once every workflow task and activity it gave out has been completed to the
// server, so once both have ended and no activity of this process still runs, what is left of the
// SDK's shutdown is local: it lets go of each cached workflow (a message to its workflow thread,
// 0.2–0.5 ms of CPU each: seconds with thousands cached) and frees its core. A stop can
// meanwhile go on with what does not need the worker (docs/operating.md, "Starting and stopping").
import type { Worker } from '@temporalio/worker';

const LOOK_EVERY_MS = 5;

/** Resolves once every worker has handed back its work, or `ended` (their `run()`s) has settled. */
export async function untilHandedBack(workers: readonly Worker[], ended: Promise<unknown>): Promise<void> {
  let over = false;
  const settled = ended.then(() => undefined, () => undefined).finally(() => (over = true));
  while (!over && !workers.every(hasHandedBack)) {
    await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS))]);
  }
}

function hasHandedBack(worker: Worker): boolean {
  const status = worker.getStatus();
  if (status.runState === 'STOPPED' || status.runState === 'FAILED' || status.runState === 'DRAINED') return true;
  return status.runState === 'DRAINING'
    && status.workflowPollerState === 'SHUTDOWN'
    && status.activityPollerState === 'SHUTDOWN'
    && status.numInFlightActivities === 0;
}
