// One sync of the MCP registry's presets, started by a Temporal schedule
// (CONNECTOR__REGISTRY_SYNC_MINUTES): read what changed, store it, then disconnect the connectors
// whose preset the registry deleted, through their own workflow's disconnect. Deterministic: every
// side effect is an idempotent activity, so a run retried or overlapping a crash changes nothing twice.
import { getExternalWorkflowHandle, log, proxyActivities } from '@temporalio/workflow';
import type { RegistryActivities } from '../activities/registry/sync-activities';
import { FAILURE } from '../contract/failures';
import { connectorWorkflowId, presetWithdrawnSignal } from './messages';

export const REGISTRY_SYNC_WORKFLOW = 'registrySyncWorkflow';

const registry = proxyActivities<RegistryActivities>({
  // A full read pages through the registry; every page is bounded by the guarded fetch's timeout.
  startToCloseTimeout: '10m',
  retry: { maximumAttempts: 3, initialInterval: '5s', nonRetryableErrorTypes: [FAILURE.unprocessable] },
});

export interface RegistrySyncResult {
  stored: number;
  skipped: string[];
  removed: string[];
  withdrawn: string[];
  complete: boolean;
}

export async function registrySyncWorkflow(): Promise<RegistrySyncResult> {
  const read = await registry.registryFetch();
  const { stored, removed } = await registry.registryStore(read);
  const withdrawn = await registry.registryWithdrawn();
  for (const { connectorId, reason } of withdrawn) {
    try {
      await getExternalWorkflowHandle(connectorWorkflowId(connectorId)).signal(presetWithdrawnSignal, { reason });
    } catch (err) {
      // A connector deleted meanwhile has no workflow to tell: nothing is left to disconnect.
      log.info('a withdrawn preset\'s connector is gone', { connectorId, error: (err as Error).message });
    }
  }
  return { stored, skipped: read.skipped, removed, withdrawn: withdrawn.map((w) => w.connectorId), complete: read.complete };
}
