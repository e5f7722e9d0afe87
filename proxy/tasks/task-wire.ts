// A task the service owns, as a client reads it (SEP-2663): the CreateTaskResult a tools/call
// answers with and the DetailedTask of tasks/get, built from the workflow's view with the
// sealed parts opened. Nothing of the service's own bookkeeping (caller, rounds) goes out.
import type { ToolTaskView } from '../../workflows/tool-task-messages';

type Opened = (sealed: string) => Record<string, unknown>;

const envelope = (view: ToolTaskView) => ({
  taskId: view.taskId, status: view.status, createdAt: view.createdAt, lastUpdatedAt: view.lastUpdatedAt,
  ttlMs: view.ttlMs, pollIntervalMs: view.pollIntervalMs,
});

export function createTaskResult(view: ToolTaskView): Record<string, unknown> {
  return { resultType: 'task', ...envelope(view) };
}

export function detailedTask(view: ToolTaskView, open: Opened): Record<string, unknown> {
  const base = { resultType: 'complete', ...envelope(view) };
  if (!view.outcome) return base;
  if (view.status === 'completed') return { ...base, result: open(view.outcome) };
  if (view.status === 'failed') return { ...base, error: open(view.outcome) };
  if (view.status === 'input_required') return { ...base, inputRequests: pendingRequests(view, open) };
  return base;
}

/** The requests still unanswered: an answered key is gone from the next tasks/get. */
function pendingRequests(view: ToolTaskView, open: Opened): Record<string, unknown> {
  const asked = (open(view.outcome!).inputRequests ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(asked).filter(([key]) => view.pending.includes(key)));
}

/**
 * The first round's outcome, given to the caller of tools/call without a task: the tool's result,
 * the server's input request (a multi round-trip request, its requestState passed through), or
 * the server's error.
 */
export function directAnswer(view: ToolTaskView, open: Opened): { result: Record<string, unknown> } | { error: Record<string, unknown> } {
  const outcome = open(view.outcome!);
  if (view.status === 'failed') return { error: outcome };
  if (view.status === 'input_required') return { result: { ...outcome, resultType: 'input_required' } };
  return { result: { ...outcome, resultType: 'complete' } };
}
