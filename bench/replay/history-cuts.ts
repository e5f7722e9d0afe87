// Prefixes of one recorded connector history, as the worker would replay a connector of that age:
// each ends on a workflow task's completion, so the replay stops where the live run once stood.
import proto from '@temporalio/proto';

type History = proto.temporal.api.history.v1.IHistory;

const { EVENT_TYPE_WORKFLOW_TASK_COMPLETED: COMPLETED, EVENT_TYPE_MARKER_RECORDED: MARKER } = proto.temporal.api.enums.v1.EventType;

export interface HistoryCut {
  events: number;
  /** Workflow tasks the prefix holds: what a replay hands the workflow code, one activation each. */
  tasks: number;
  /** Local activities recorded (markers): a quiet renewal is one, run in the task its timer wakes. */
  renewals: number;
  history: History;
}

/** One prefix per wanted length that the history reaches: the first workflow task completed at or past it. */
export function cutHistory(history: History, wanted: number[]): HistoryCut[] {
  const events = history.events ?? [];
  const completedAt = events.flatMap((e, i) => (e.eventType === COMPLETED ? [i + 1] : []));
  const cuts = new Set(wanted.map((n) => completedAt.find((end) => end >= n)).filter((end): end is number => end !== undefined));
  return [...cuts].sort((a, b) => a - b).map((end) => {
    const prefix = events.slice(0, end);
    const count = (type: number) => prefix.filter((e) => e.eventType === type).length;
    return { events: end, tasks: count(COMPLETED), renewals: count(MARKER), history: { events: prefix } };
  });
}
