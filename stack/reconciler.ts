// Removes managed workloads whose connector is not connected, on worker start and then every
// interval. Removal on disconnect and delete is the workflow's job; this catches what slips past
// it (a worker that died between the two, a delete racing a connect, objects left by hand).
import type { WorkloadRuntime } from '../activities/workloads/runtime';
import type { Logger } from '../core/logger';

export interface Reconciler {
  /** Resolves when the pass under way (if any) has finished. */
  stop(): Promise<void>;
  /** One pass now (also what the timer runs); passes never overlap. */
  runOnce(): Promise<string[]>;
}

export function startReconciler(
  runtime: WorkloadRuntime,
  isConnected: (connectorId: string) => Promise<boolean>,
  intervalMs: number,
  logger: Logger,
): Reconciler {
  let running: Promise<string[]> | undefined;
  let stopped = false;
  const pass = async (): Promise<string[]> => {
    try {
      const removed = await runtime.reconcile(isConnected);
      if (removed.length > 0) logger.info({ removed }, 'removed workloads of connectors that are not connected');
      return removed;
    } catch (error) {
      // The next pass tries again; a failing pass must not take the worker down.
      logger.warn({ err: (error as Error).message }, 'workload reconciliation failed');
      return [];
    }
  };
  const runOnce = (): Promise<string[]> => {
    if (stopped) return Promise.resolve([]);
    running ??= pass().finally(() => (running = undefined));
    return running;
  };
  void runOnce();
  const timer = setInterval(() => void runOnce(), intervalMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
