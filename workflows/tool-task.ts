// A tools/call the service runs as a task of its own (the Tasks extension, SEP-2663) for a server
// that has no task support: one workflow per task, started by whichever proxy replica took the
// call. The call runs in an activity with the connector's current token; a server that asks for
// input (a multi round-trip request, SEP-2322) parks the task in input_required until the
// client's tasks/update answers every key; the outcome is kept for the task's TTL, then the task
// is gone. A worker that dies mid-call is noticed by the missing heartbeats: the call is made
// again only when the tool said it is idempotent; otherwise the task fails, saying the outcome is
// unknown — never a silent second call.
import {
  ActivityFailure, CancellationScope, TimeoutFailure, condition, isCancellation, log, proxyActivities, setHandler,
} from '@temporalio/workflow';
import type { createToolTaskActivities } from '../activities/tool-task-activities';
import type { Ciphertext } from '../contract/ciphertext';
import { TERMINAL_STATUSES, type TaskStatus } from '../contract/tool-tasks';
import { APPROVAL_INPUT_KEY, isApprover } from '../contract/approval-policy';
import type { RoundOutcome } from '../contract/tool-tasks';
import type { NumberedChange, TaskChange } from '../contract/task-record';
import { MAX_AUDIT_BACKLOG, MAX_TASK_HISTORY } from '../contract/task-limits';
import {
  answerUpdate, cancelTaskUpdate, decideApprovalUpdate, firstRoundUpdate, releaseSignal, toolTaskQuery,
  type ApprovalView, type ToolTaskInput, type ToolTaskView,
} from './tool-task-messages';

type Activities = ReturnType<typeof createToolTaskActivities>;

// A long call is bounded by its heartbeats, not its length: a live worker beats every second.
const CALL_OPTIONS = { startToCloseTimeout: '30 days', heartbeatTimeout: '5s' } as const;
const once = proxyActivities<Activities>({ ...CALL_OPTIONS, retry: { maximumAttempts: 1 } });
const again = proxyActivities<Activities>({ ...CALL_OPTIONS, retry: { maximumAttempts: 5, initialInterval: '1s' } });
const sealer = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { initialInterval: '200ms', maximumInterval: '5s' } });

export async function toolTaskWorkflow(input: ToolTaskInput): Promise<void> {
  const createdAt = new Date().toISOString();
  const view: ToolTaskView = {
    taskId: input.taskId, connectorId: input.connectorId, caller: input.caller, tool: input.tool,
    status: 'working', createdAt, lastUpdatedAt: createdAt, ttlMs: input.ttlMs, pollIntervalMs: input.pollIntervalMs,
    outcome: null, pending: [], rounds: 0, gone: false, unknownOutcome: false, approval: null,
  };
  // Held for approval: the caller sees input_required with the elicitation that leads to the page.
  if (input.approval) {
    Object.assign(view, { status: 'input_required', outcome: input.approval.request, pending: [APPROVAL_INPUT_KEY] });
    view.approval = {
      state: 'pending', approvers: input.approval.approvers, decidedBy: null, decidedAt: null, call: input.call,
      expiresAt: new Date(Date.now() + input.approval.timeoutMs).toISOString(),
    };
  }
  const awaitingApproval = () => view.approval?.state === 'pending' && !terminal();
  let answers: Ciphertext[] = [];
  let released = false;
  let cancelled = false;
  let round: CancellationScope | null = null;
  // Every change is numbered; the listing's copy follows in order, never ahead of history.
  let seq = 1;
  const changes: TaskChange[] = [{ status: view.status, at: createdAt, ...(view.approval ? { approval: 'pending' as const } : {}) }];
  // The listing keeps a bounded history; the audit gets every change, kept here until written.
  const backlog: NumberedChange[] = [{ n: 1, change: changes[0]! }];
  const kept: AuditCopy = { changes, backlog, writing: 0 };
  /** `note`: who made the change, and the approval state it records where it was a decision. */
  const set = (status: TaskStatus, outcome: Ciphertext | null, pending: string[] = [], note: Pick<TaskChange, 'approval'> & { by?: string | null } = {}) => {
    Object.assign(view, { status, outcome, pending, lastUpdatedAt: new Date().toISOString() });
    const { by, approval } = note;
    const change: TaskChange = { status, at: view.lastUpdatedAt, ...(by ? { by } : {}), ...(approval ? { approval } : {}) };
    changes.push(change);
    if (changes.length > MAX_TASK_HISTORY) changes.splice(1, 1);
    seq += 1;
    backlog.push({ n: seq, change });
    if (backlog.length > (input.auditBacklog ?? MAX_AUDIT_BACKLOG)) dropOldest();
  };
  // A change a write under way already carries is not lost; one that is leaves its mark on the next row.
  const dropOldest = () => {
    const lost = backlog.shift()!;
    if (lost.n <= kept.writing) return;
    const skipped = 1 + (lost.skipped ?? 0);
    backlog[0] = { ...backlog[0]!, skipped };
    log.warn('a task change was never written to the audit: the store refused every write for too long', { taskId: input.taskId, change: lost.n, skipped });
  };
  const terminal = () => TERMINAL_STATUSES.has(view.status);

  setHandler(toolTaskQuery, () => view);
  // The caller gets the task only when the first round outlasts the window (else a plain answer).
  let exposed = false;
  setHandler(firstRoundUpdate, async (withinMs) => {
    await condition(() => view.rounds > 0 || terminal() || awaitingApproval(), withinMs);
    exposed ||= view.rounds === 0 && !terminal();
    return view;
  });
  setHandler(answerUpdate, ({ sealed, keys }) => {
    // Answered already, or over; or the approval's elicitation (a client's accept only says its user saw the page).
    if (view.status !== 'input_required' || awaitingApproval()) return;
    const known = keys.filter((key) => view.pending.includes(key));
    if (known.length === 0) return;
    answers = [...answers, sealed];
    view.pending = view.pending.filter((key) => !known.includes(key));
    view.lastUpdatedAt = new Date().toISOString();
  });
  setHandler(cancelTaskUpdate, () => {
    if (terminal()) return;
    cancelled = true;
    set('cancelled', null, [], { by: view.caller });
    round?.cancel();
  });
  setHandler(decideApprovalUpdate, ({ subject, approve }) => {
    const approval = view.approval!;
    Object.assign(approval, { state: approve ? 'approved' : 'denied', decidedBy: subject, decidedAt: new Date().toISOString() });
    return approval;
  }, {
    // Refused before history: only a pending approval, only by a caller its rule names.
    validator: ({ subject, roles }) => {
      if (!awaitingApproval()) throw new Error(`this call is not waiting for approval (${view.approval ? (terminal() ? view.status : view.approval.state) : 'none asked'})`);
      if (!isApprover(view.approval!.approvers, { subject, roles })) throw new Error('not named as an approver of this call');
    },
  });
  setHandler(releaseSignal, () => {
    released = true;
  });

  let ending = false;
  const listed = recordChanges(input, view, kept, () => seq, () => ending, () => exposed);

  if (view.approval) await awaitDecision(view.approval, input.approval!.timeoutMs);

  const stub = input.idempotent ? again : once;
  let requestState: Ciphertext | null = null;
  while (!terminal() && !released) {
    const outcome = await runRound(() => stub.callToolRound({ connectorId: input.connectorId, taskId: input.taskId, call: input.call, answers, requestState }));
    if (cancelled) break;
    view.rounds += 1;
    if ('failure' in outcome) {
      view.unknownOutcome = outcome.unknown;
      set('failed', await sealer.sealTaskError({ connectorId: input.connectorId, taskId: input.taskId, message: outcome.failure }));
      break;
    }
    if (outcome.kind === 'input_required') {
      set('input_required', outcome.sealed, outcome.keys);
      answers = [];
      requestState = outcome.sealed;
      // An answer that never comes ends the task with its TTL, as an outcome never fetched does.
      if (!(await condition(() => view.pending.length === 0 || cancelled || released, input.ttlMs))) released = true;
      if (view.status === 'input_required' && !released) set('working', null);
      continue;
    }
    set(outcome.kind === 'complete' ? 'completed' : 'failed', outcome.sealed);
  }
  // Kept for its TTL (or until released: the caller had its answer without a task).
  await condition(() => released, input.ttlMs);
  view.gone = true;
  ending = true;
  await listed;
  if (exposed) await sealer.forgetTask({ connectorId: input.connectorId, taskId: input.taskId });

  /** Waits (durably: days if need be) for an approver; a call denied or left undecided fails, never runs. */
  async function awaitDecision(approval: ApprovalView, timeoutMs: number): Promise<void> {
    const decided = await condition(() => approval.state !== 'pending' || cancelled, timeoutMs);
    if (cancelled) return;
    if (!decided) approval.state = 'expired';
    const note = { by: approval.decidedBy, approval: approval.state };
    if (approval.state === 'approved') return set('working', null, [], note);
    const message = approval.state === 'denied'
      ? `the call was denied by ${approval.decidedBy}`
      : 'the approval expired: no approver decided in time, so the call was not made';
    set('failed', await sealer.sealTaskError({ connectorId: input.connectorId, taskId: input.taskId, message }), [], note);
  }

  async function runRound(call: () => Promise<RoundOutcome>): Promise<RoundOutcome | { failure: string; unknown: boolean }> {
    round = new CancellationScope();
    try {
      return await round.run(call);
    } catch (err) {
      if (cancelled || isCancellation(err)) return { failure: 'cancelled', unknown: false };
      return describeFailure(err, input.idempotent);
    } finally {
      round = null;
    }
  }
}

/** What the listing and the audit are copied from: the bounded history, every unwritten change, and how far the write under way goes. */
interface AuditCopy {
  changes: readonly TaskChange[];
  backlog: NumberedChange[];
  writing: number;
}

/**
 * Copies the task, as its owner lists it, after each change, in order, until it ends; the same
 * activity adds each change since the last copy to the per-call audit. Both follow the workflow's
 * state, never lead it: a caller's tasks/get already answers a change before it is written.
 */
async function recordChanges(input: ToolTaskInput, view: ToolTaskView, kept: AuditCopy, seq: () => number, ending: () => boolean, exposed: () => boolean): Promise<void> {
  // A call answered without a task is never listed: nothing is written for it.
  await condition(() => exposed() || ending());
  if (!exposed()) return;
  let recorded = 0;
  for (;;) {
    await condition(() => seq() > recorded || ending());
    if (seq() === recorded) return;
    const at = seq();
    kept.writing = at;
    await sealer.recordTask({
      connectorId: input.connectorId, seq: at, audited: recorded, backlog: kept.backlog.filter(({ n }) => n <= at),
      task: {
        task_id: view.taskId, tool: view.tool, caller: view.caller, status: view.status,
        created_at: view.createdAt, updated_at: view.lastUpdatedAt, unknown_outcome: view.unknownOutcome,
        toolset_id: input.toolsetId ?? null, history: [...kept.changes],
        ...(view.approval ? { approval: { state: view.approval.state, decided_by: view.approval.decidedBy, decided_at: view.approval.decidedAt } } : {}),
      },
    });
    recorded = at;
    while (kept.backlog[0] && kept.backlog[0].n <= at) kept.backlog.shift();
  }
}

/** Why a round failed, in words for the caller; a worker lost mid-call leaves the outcome unknown. */
function describeFailure(err: unknown, idempotent: boolean): { failure: string; unknown: boolean } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof TimeoutFailure) {
    return idempotent
      ? { failure: 'the call was lost with its worker on every attempt', unknown: false }
      : { failure: 'the outcome of this call is unknown: the worker making it stopped before the server answered, and the tool does not declare itself idempotent, so it was not called again', unknown: true };
  }
  return { failure: cause instanceof Error ? cause.message : String(cause), unknown: false };
}
