// Removes managed workloads whose connector is not connected, on worker start and then every
// interval. Removal on disconnect and delete is the workflow's job; this catches what slips past
// it (a worker that died between the two, a delete racing a connect, objects left by hand).
import type { WorkloadRuntime } from '../activities/workloads/runtime';
import type { Logger } from '../platform/logger';
import { startPeriodicPass, type PeriodicPass } from './periodic-pass';

export type Reconciler = PeriodicPass<string[], []>;

export function startReconciler(
  runtime: WorkloadRuntime,
  isConnected: (connectorId: string) => Promise<boolean>,
  intervalMs: number,
  logger: Logger,
): Reconciler {
  return startPeriodicPass({
    intervalMs, logger, nothing: [] as string[], what: 'workload reconciliation',
    pass: async () => {
      const removed = await runtime.reconcile(isConnected);
      if (removed.length > 0) logger.info({ removed }, 'removed workloads of connectors that are not connected');
      return removed;
    },
  });
}
