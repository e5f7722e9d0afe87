// The rows the per-call audit gets for a task the service owns, made from what the workflow hands
// recordTask: every change of its backlog, however far beyond the listing's bounded history, and
// a row that says how many changes before it were never written where the backlog overflowed.
import test from 'ava';
import { taskAuditRows } from '../../activities/task-audit-rows';
import { TaskChangeRowSchema } from '../../contract/call-record';
import type { NumberedChange, TaskSummary } from '../../contract/task-record';
import { MAX_TASK_HISTORY } from '../../contract/task-limits';

const CONNECTOR = '44444444-4444-4444-8444-444444444444';
const at = (s: number) => new Date(Date.parse('2026-11-20T11:00:00Z') + s * 1000).toISOString();
const statusOf = (n: number) => (n === 1 ? 'working' : n % 2 === 0 ? 'input_required' : 'working');

/** The listing as the workflow copies it after `seq` changes: the first, then the latest. */
function listed(seq: number): TaskSummary {
  const all = Array.from({ length: seq }, (_, i) => ({ status: statusOf(i + 1), at: at(i + 1) }) as const);
  return {
    task_id: 'task-9', tool: 'slow_compute', caller: 'key:alice', status: statusOf(seq), created_at: at(1), updated_at: at(seq),
    toolset_id: null, unknown_outcome: false, history: [all[0]!, ...all.slice(1).slice(-(MAX_TASK_HISTORY - 1))],
  };
}
const backlogOf = (from: number, to: number): NumberedChange[] =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ n: from + i, change: { status: statusOf(from + i), at: at(from + i) } }));

test('a backlog beyond the listing\'s history: a row for every unwritten change, in order, keyed by its number', (t) => {
  const seq = 3 * MAX_TASK_HISTORY;
  const rows = taskAuditRows(CONNECTOR, seq, listed(seq), 1, backlogOf(2, seq));
  t.is(rows.length, seq - 1);
  t.deepEqual(rows.map((r) => r.key), Array.from({ length: seq - 1 }, (_, i) => `task:task-9:${i + 2}`));
  t.deepEqual(rows.map((r) => r.entry.task!.status), rows.map((r) => statusOf(r.entry.task!.change)));
  t.deepEqual(rows.map((r) => r.entry.at.toISOString()), rows.map((r) => at(r.entry.task!.change)), 'each at the time of its change');
  t.false(rows.some((r) => r.entry.task!.skipped !== undefined), 'nothing skipped');
  // Without the backlog (an activity scheduled by older code) only the history's changes are left.
  t.is(taskAuditRows(CONNECTOR, seq, listed(seq), 1).length, MAX_TASK_HISTORY - 1);
});

test('an overflowed backlog: the first change kept says how many before it have no row', (t) => {
  const seq = 50;
  const backlog = backlogOf(21, seq);
  backlog[0] = { ...backlog[0]!, skipped: 19 }; // changes 2..20 dropped while the store was down
  const rows = taskAuditRows(CONNECTOR, seq, listed(seq), 1, backlog);
  t.deepEqual(rows.map((r) => r.entry.task!.change), Array.from({ length: 30 }, (_, i) => i + 21));
  t.like(rows[0]!.entry.task, { change: 21, skipped: 19 });
  t.is(rows.filter((r) => r.entry.task!.skipped !== undefined).length, 1, 'one row says it');
  for (const { entry } of rows) t.true(TaskChangeRowSchema.strict().safeParse(entry.task).success, JSON.stringify(entry.task));
});
