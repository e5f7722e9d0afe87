// Puts the connector list index right (store/list-index.ts) at worker start and then every
// interval: keys a crash left stale or missing, and the keys of records written before the index
// existed. It reads every record and key: at 10,000 connectors about a second of FerretDB's time.
import type { Logger } from '../core/logger';
import type { ConnectorStore } from '../store/connector-store';
import { startPeriodicPass, type PeriodicPass } from './periodic-pass';

export const LIST_INDEX_REPAIR_INTERVAL_MS = 30 * 60_000;

export function startListIndexRepair(
  store: ConnectorStore,
  logger: Logger,
  intervalMs = LIST_INDEX_REPAIR_INTERVAL_MS,
): PeriodicPass<{ added: number; removed: number }, []> {
  return startPeriodicPass({
    intervalMs, logger, nothing: { added: 0, removed: 0 }, what: 'list index repair',
    pass: async () => {
      const result = await store.reconcileListIndex();
      if (result.added + result.removed > 0) logger.info(result, 'put the connector list index right');
      return result;
    },
  });
}
