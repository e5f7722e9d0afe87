// The registry sync's clock: a Temporal schedule that starts one sync workflow every
// CONNECTOR__REGISTRY_SYNC_MINUTES (never two at once), made or brought up to date by each worker
// at start, and triggered once then, so that a fresh deployment has its presets within seconds.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { REGISTRY_SYNC_WORKFLOW } from '../workflows/registry-sync';

export const registryScheduleId = (taskQueue: string): string => `registry-sync:${taskQueue}`;

export async function ensureRegistrySchedule(client: Client, taskQueue: string, minutes: number): Promise<void> {
  const scheduleId = registryScheduleId(taskQueue);
  const handle = client.schedule.getHandle(scheduleId);
  const spec = { intervals: [{ every: `${minutes}m` as const }] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: REGISTRY_SYNC_WORKFLOW,
    workflowId: `registry-sync:${taskQueue}`,
    taskQueue,
    args: [] as [],
  };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies: { overlap: ScheduleOverlapPolicy.SKIP } });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await handle.update((previous) => ({ ...previous, spec, action }));
  }
  await handle.trigger(ScheduleOverlapPolicy.SKIP);
}
