// Puts the connector list index right (store/list-index.ts) at worker start, every interval, and
// soon after this process saw one of its changes cut (a failed write: the database went away):
// keys a crash left stale or missing, counts left off or in doubt, and the keys of records
// written before the index existed. A pass that fails (the database is down) is tried again
// after RETRY_MS, doubling up to RETRY_MAX_MS, so that the counts are exact within seconds of
// the database's return; one that leaves a view in doubt because another process wrote it
// meanwhile is tried again after RETRY_MS too, doubling up to the interval. It reads every record and key: at 10,000 connectors about a second of
// FerretDB's time, during which this process's index writes wait.
import type { Logger } from '../platform/logger';
import type { ConnectorStore } from '../store/connector-store';
import type { RepairResult } from '../store/list-index';
import { startPeriodicPass, type PeriodicPass } from './periodic-pass';

export const LIST_INDEX_REPAIR_INTERVAL_MS = 30 * 60_000;
export const LIST_INDEX_REPAIR_RETRY_MS = 2_000;
export const LIST_INDEX_REPAIR_RETRY_MAX_MS = 16_000;

const FAILED: RepairResult = { added: 0, removed: 0, recounted: 0, unsettled: 1 };

export function startListIndexRepair(
  store: ConnectorStore,
  logger: Logger,
  intervalMs = LIST_INDEX_REPAIR_INTERVAL_MS,
): PeriodicPass<RepairResult, []> {
  let retryMs = LIST_INDEX_REPAIR_RETRY_MS;
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;
  let retryAt = Infinity;
  /** Runs a pass after `afterMs`, unless one is due sooner already. */
  const again = (afterMs: number) => {
    if (stopped || Date.now() + afterMs >= retryAt) return;
    clearTimeout(retry);
    retryAt = Date.now() + afterMs;
    retry = setTimeout(() => { retryAt = Infinity; void periodic.runOnce(); }, afterMs);
    retry.unref();
  };
  const periodic = startPeriodicPass({
    intervalMs, logger, nothing: FAILED, what: 'list index repair',
    pass: async () => {
      const result = await store.repairListIndex().catch((err: Error) => {
        again(retryMs);
        retryMs = Math.min(retryMs * 2, LIST_INDEX_REPAIR_RETRY_MAX_MS);
        throw err;
      });
      if (result.added + result.removed + result.recounted > 0) logger.info(result, 'put the connector list index right');
      if (result.unsettled > 0) {
        again(retryMs);
        retryMs = Math.min(retryMs * 2, intervalMs);
      } else {
        retryMs = LIST_INDEX_REPAIR_RETRY_MS;
      }
      return result;
    },
  });
  store.onListIndexCut(() => {
    retryMs = LIST_INDEX_REPAIR_RETRY_MS;
    again(retryMs);
  });
  return {
    runOnce: periodic.runOnce,
    async stop() {
      stopped = true;
      clearTimeout(retry);
      await periodic.stop();
    },
  };
}
