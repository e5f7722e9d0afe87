// The baseline of the lifecycle bench: the least a workflow can be and still take the same
// Temporal path as a connector (a start, then an Update that changes state). No activities,
// no database, no HTTP: what is left is Temporal's own cost.
import { condition, defineUpdate, setHandler } from '@temporalio/workflow';

export const setValueUpdate = defineUpdate<string, [{ value: string }]>('setValue');

export async function bareWorkflow(): Promise<void> {
  let value: string | null = null;
  setHandler(setValueUpdate, ({ value: next }) => {
    value = next;
    return value;
  });
  // Stays open like a connector's workflow does; the bench's dev server is thrown away after.
  await condition(() => false);
}
