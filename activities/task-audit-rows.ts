// The per-call audit's rows of a task the service owns: one per change of its status, made from
// the task as its listing copies it (contract/task-record.ts), so they carry what the listing
// does — who started it, the tool, who made each change — and never its arguments, answers or
// outcome. Each row has a key of its own (the task and the change's number), under which the
// store writes it once however often it is asked.
import { auditedName, TASK_ROW_METHOD, type CallEntry } from '../contract/call-record';
import type { NumberedChange, TaskChange, TaskSummary } from '../contract/task-record';

export interface TaskAuditRow {
  key: string;
  entry: CallEntry;
}

/**
 * The rows of the changes numbered after `after`, up to `seq` (the change the task stands at):
 * those of `backlog`, every change not yet written, where the workflow passes it; else (an
 * activity scheduled before backlogs) those the listing's bounded history still holds.
 */
export function taskAuditRows(connectorId: string, seq: number, task: TaskSummary, after: number, backlog?: readonly NumberedChange[]): TaskAuditRow[] {
  return (backlog ?? numberedHistory(seq, task.history ?? []))
    .filter(({ n }) => n > after && n <= seq)
    .map((numbered) => ({ key: `task:${task.task_id}:${numbered.n}`, entry: rowOf(connectorId, task, numbered, numbered.n === seq) }));
}

/** The history keeps the first change and the latest after it: entry j (j ≥ 1) of L is change seq − (L − 1 − j), entry 0 is change 1. */
function numberedHistory(seq: number, history: readonly TaskChange[]): NumberedChange[] {
  return history.map((change, j) => ({ change, n: j === 0 ? 1 : seq - (history.length - 1 - j) }));
}

function rowOf(connectorId: string, task: TaskSummary, { change, n, skipped }: NumberedChange, latest: boolean): CallEntry {
  return {
    at: new Date(change.at), connectorId, caller: task.caller, sessionId: null,
    httpMethod: TASK_ROW_METHOD, rpcMethod: 'tools/call', rpcName: auditedName('tools/call', task.tool), body: 'none',
    status: null, rpcErrorCode: null, durationMs: 0, requestBytes: 0, responseBytes: 0,
    ...(task.toolset_id ? { toolsetId: task.toolset_id, memberId: connectorId } : {}),
    task: {
      task_id: task.task_id, status: change.status, change: n, by: change.by ?? null,
      ...(change.approval ? { approval: change.approval } : {}),
      ...(latest && change.status === 'failed' && task.unknown_outcome ? { unknown_outcome: true } : {}),
      ...(skipped ? { skipped } : {}),
    },
  };
}
