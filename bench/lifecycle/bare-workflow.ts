// The baseline of the lifecycle bench: the least a workflow can be and still take the same
// Temporal path as a connector (a start, then an Update that changes state). No activities,
// no database, no HTTP: what is left is Temporal's own cost.
//
// `setValueRecorded` is the same Update answered only once a regular activity has completed:
// the Temporal path of a connector's create or connect with its projection write, the floor
// of what the service's design allows (bench/lifecycle.ts, the "floor" loop).
import { condition, defineUpdate, proxyActivities, setHandler } from '@temporalio/workflow';
import type { floorActivities } from './floor-activities';

export const setValueUpdate = defineUpdate<string, [{ value: string }]>('setValue');
export const setValueRecordedUpdate = defineUpdate<string, [{ value: string }]>('setValueRecorded');

const { recordNothing } = proxyActivities<typeof floorActivities>({ startToCloseTimeout: '10s' });

export async function bareWorkflow(): Promise<void> {
  let value: string | null = null;
  setHandler(setValueUpdate, ({ value: next }) => {
    value = next;
    return value;
  });
  setHandler(setValueRecordedUpdate, async ({ value: next }) => {
    value = next;
    await recordNothing();
    return value;
  });
  // Stays open like a connector's workflow does; the bench's dev server is thrown away after.
  await condition(() => false);
}
