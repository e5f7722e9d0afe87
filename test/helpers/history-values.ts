// What a workflow's history carries, as the JSON values of its payloads (inputs, activity
// results, update arguments), for tests that look for a secret there, sealed or not.
import type { Client } from '@temporalio/client';
import type proto from '@temporalio/proto';

type History = proto.temporal.api.history.v1.IHistory;

/**
 * The events of every run of a workflow, oldest first: a connector continues as new every
 * CONNECTOR__HISTORY_LIMIT events, so what a test did early may be in a run before the latest.
 * Followed back through each run's first event, which names the run it continued.
 */
export async function historyOfAllRuns(temporal: Client, workflowId: string): Promise<History> {
  const runs: History[] = [];
  for (let runId: string | undefined; ;) {
    const history = await temporal.workflow.getHandle(workflowId, runId).fetchHistory();
    runs.unshift(history);
    runId = continuedFrom(history);
    if (!runId) return { events: runs.flatMap((run) => run.events ?? []) };
  }
}

/** The run this one continued as new from, named by its first event (undefined: the workflow's first run). */
export function continuedFrom(history: History): string | undefined {
  return history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
}

/** Every JSON payload of the workflow's history (all its runs), decoded. */
export async function historyPayloads(temporal: Client, workflowId: string): Promise<unknown[]> {
  const values: unknown[] = [];
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    const payload = node as { metadata?: Record<string, Uint8Array>; data?: Uint8Array };
    if (payload.data instanceof Uint8Array && payload.metadata?.encoding) {
      if (Buffer.from(payload.metadata.encoding).toString() === 'json/plain') values.push(JSON.parse(Buffer.from(payload.data).toString('utf8')));
      return;
    }
    for (const child of Object.values(node)) walk(child);
  };
  walk(await historyOfAllRuns(temporal, workflowId));
  return values;
}

/** Every value held under `key`, at any depth, in `values`. */
export function valuesUnder(values: unknown[], key: string): unknown[] {
  const found: unknown[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === key) found.push(v);
        walk(v);
      }
    }
  };
  values.forEach(walk);
  return found;
}

type HistoryEvent = Record<string, any>;

/** Whether the event runs activity `name`: as a regular activity (its scheduling) or in a workflow task (a local activity's marker). */
export function runOf(event: HistoryEvent, name: string): 'activity' | 'in task' | null {
  if (event.activityTaskScheduledEventAttributes) return event.activityTaskScheduledEventAttributes.activityType?.name === name ? 'activity' : null;
  const data = event.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data as Uint8Array | undefined;
  return data && Buffer.from(data).toString('utf8').includes(`"${name}"`) ? 'in task' : null;
}

/**
 * What the events write for patched(): the change ids of its markers, and how many
 * `TemporalChangeVersion` search-attribute upserts the SDK's core wrote beside them (each names every change so far).
 */
export function patchWrites(events: ReadonlyArray<HistoryEvent>): { markers: string[]; upserts: number } {
  const markers: string[] = [];
  let upserts = 0;
  for (const event of events) {
    const marker = event.markerRecordedEventAttributes;
    const data = marker?.markerName === 'core_patch' ? marker.details?.['patch-data']?.payloads?.[0]?.data : undefined;
    if (data) markers.push(JSON.parse(Buffer.from(data).toString('utf8')).id);
    if (event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.TemporalChangeVersion) upserts += 1;
  }
  return { markers, upserts };
}
