// The per-call audit of a task the service owns gets a row for every change of its status, even
// when the store refuses the writes for longer than the task's listing keeps history (its first
// change and the latest 31): the workflow keeps every unwritten change until one write takes them.
// The real workflow on a real Temporal dev server; the activities are the harness's stubs, the
// rows made from what recordTask is handed by the real row builder, kept once per key as the store does.
import test from 'ava';
import { ApplicationFailure } from '@temporalio/common';
import { taskAuditRows, type TaskAuditRow } from '../../activities/task-audit-rows';
import type { NumberedChange, TaskSummary } from '../../contract/task-record';
import { MAX_TASK_HISTORY } from '../../contract/task-limits';
import {
  answerUpdate, firstRoundUpdate, releaseSignal, toolTaskQuery, toolTaskWorkflowId, TOOL_TASK_WORKFLOW, type ToolTaskInput,
} from '../../workflows/tool-task-messages';
import { startHarness, until, type Harness } from './support/workflow-harness';

let harness: Harness;
test.before(async () => {
  harness = await startHarness();
});
test.after.always(async () => {
  await harness?.stop();
});

const ROUNDS_ASKING = 20; // each: input_required, then working once answered: 40 changes

/** Runs a task through `asking` rounds that ask for input while recordTask fails; then lets the store back. */
async function driveWhileStoreDown(taskId: string, asking: number, auditBacklog?: number) {
  const connectorId = 'c0ffee00-0000-4000-8000-000000000001';
  let rounds = 0;
  let storeDown = true;
  const written = new Map<string, TaskAuditRow>();
  // The first round outlasts the window in which the caller would have had a plain answer.
  let exposed!: () => void;
  const outlasted = new Promise<void>((resolve) => { exposed = resolve; });
  harness.stubs.behaviour = {
    callToolRound: async () => (await outlasted, ++rounds <= asking
      ? { kind: 'input_required', sealed: `asked-${rounds}` as never, keys: ['k'] }
      : { kind: 'complete', sealed: 'done' as never }),
    sealTaskError: async () => 'error' as never,
    forgetTask: async () => undefined,
    recordTask: async (input: { connectorId: string; seq: number; task: TaskSummary; audited?: number; backlog?: NumberedChange[] }) => {
      if (storeDown) throw ApplicationFailure.create({ message: 'the store is down', nonRetryable: false });
      for (const row of taskAuditRows(input.connectorId, input.seq, input.task, input.audited ?? 0, input.backlog)) if (!written.has(row.key)) written.set(row.key, row);
    },
  };
  const input: ToolTaskInput = {
    taskId, connectorId, caller: 'key:alice', tool: 'slow_compute', call: 'sealed-call' as never,
    idempotent: false, ttlMs: 60_000, pollIntervalMs: 1_000, ...(auditBacklog ? { auditBacklog } : {}),
  };
  const handle = await harness.client.workflow.start(TOOL_TASK_WORKFLOW, {
    workflowId: toolTaskWorkflowId(connectorId, taskId), taskQueue: harness.taskQueue, args: [input],
  });
  const first = await handle.executeUpdate(firstRoundUpdate, { args: [50] });
  exposed();
  for (let answered = 0; answered < asking; answered++) {
    await until(async () => {
      const view = await handle.query(toolTaskQuery);
      return view.status === 'input_required' && view.rounds === answered + 1 ? view : undefined;
    }, `round ${answered + 1} to ask for input`);
    await handle.executeUpdate(answerUpdate, { args: [{ sealed: `answer-${answered}` as never, keys: ['k'] }] });
  }
  await until(async () => ((await handle.query(toolTaskQuery)).status === 'completed' ? true : undefined), 'the task to complete');
  const attemptsWhileDown = harness.stubs.called('recordTask').length;
  storeDown = false;
  await handle.signal(releaseSignal);
  await handle.result();
  const changes = 1 + 2 * asking + 1; // created working, each round asked and answered, completed
  const rows = [...written.values()].sort((a, b) => a.entry.task!.change - b.entry.task!.change);
  return { first, changes, attemptsWhileDown, rows };
}

test.serial('every change reaches the audit once, though the store was down for more changes than the listing keeps', async (t) => {
  const taskId = 'task-audit-backlog';
  const { first, changes, attemptsWhileDown, rows } = await driveWhileStoreDown(taskId, ROUNDS_ASKING);
  t.is(first.status, 'working', 'the caller holds a task: it is listed and audited');
  t.true(changes > MAX_TASK_HISTORY, 'more changes than the listing keeps');
  t.true(attemptsWhileDown > 0, 'the audit was tried while the store was down');
  t.deepEqual(rows.map((r) => r.entry.task!.change), Array.from({ length: changes }, (_, i) => i + 1), 'every change, once');
  const expected = ['working', ...Array.from({ length: ROUNDS_ASKING }, () => ['input_required', 'working']).flat(), 'completed'];
  t.deepEqual(rows.map((r) => r.entry.task!.status), expected);
  t.deepEqual(rows.map((r) => r.key), rows.map((r) => `task:${taskId}:${r.entry.task!.change}`));
  t.false(rows.some((r) => r.entry.task!.skipped !== undefined), 'nothing skipped');
});

test.serial('past the backlog\'s bound the changes dropped are not lost silently: the next row says how many', async (t) => {
  const bound = 40; // MAX_AUDIT_BACKLOG's role, smaller: the same code, in a test of seconds
  const asking = bound / 2 + 10; // some 20 changes more than the workflow keeps unwritten
  const { changes, rows } = await driveWhileStoreDown('task-audit-overflow', asking, bound);
  t.true(changes > bound + 1);
  const marked = rows.filter((r) => r.entry.task!.skipped !== undefined);
  t.is(marked.length, 1, 'one row says it');
  const { change, skipped } = marked[0]!.entry.task!;
  // The write under way when the store went down still carries the changes it was given; after them, a gap the row accounts for.
  const before = rows.filter((r) => r.entry.task!.change < change).map((r) => r.entry.task!.change);
  t.deepEqual(before, Array.from({ length: before.length }, (_, i) => i + 1), 'the changes the first write carried');
  t.is(change - skipped! - 1, before.length, 'the row counts exactly the changes between');
  t.deepEqual(rows.filter((r) => r.entry.task!.change >= change).map((r) => r.entry.task!.change), Array.from({ length: changes - change + 1 }, (_, i) => change + i), 'then every change to the end');
  t.is(rows.length + skipped!, changes, 'every change written or counted');
});
