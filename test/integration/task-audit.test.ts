// Tasks the service owns in the per-call audit (GET /api/v1/connectors/{id}/calls): each change of
// a task's status is a row of its own, written by the task's workflow, linked to the task (its id,
// the change's number), naming the tool, the caller who started it and who made the change (the
// approver, the caller who cancelled) — never the call's arguments, its answers or its result.
// Only the connector's owner reads them: another owner is told the connector does not exist.
// The call that made a task names it (task_id), whether the service runs it or the server does
// (relayed), and the tasks/* calls name it too.
import test from 'ava';
import { sha256Hex } from '../../callers/api-keys';
import { CallSchema } from '../../contract/call-record';
import { connectedConnector, eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { startTasksMcpServer, type TasksMcpServer } from '../fixtures/tasks-mcp-server';
import { mcpRpc } from '../helpers/tasks-rpc';

const KEYS = { alice: 'alice-task-audit-key-1a2b3c4d', ann: 'ann-task-audit-key-5e6f7a8b', bob: 'bob-task-audit-key-9c0d1e2f' };
const asKey = (key: string) => ({ authorization: `Bearer ${key}` });

let stack: TestStack;
/** The plain server's connector: the service runs its tasks. */
let connectorId: string;
let upstream: TasksMcpServer;
let native: TasksMcpServer;

test.before(async () => {
  stack = await startTestStack({
    CONNECTOR__API_KEYS: JSON.stringify(Object.entries(KEYS).map(([subject, key]) => ({ subject, sha256: sha256Hex(key) }))),
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
    CONNECTOR__APPROVAL_TOOLS: JSON.stringify([{ tools: 'charge_card', approvers: ['key:ann'] }]),
  });
  // confirm_delete works longer than the sync window before it asks: it becomes a task first.
  upstream = await startTasksMcpServer({ tasks: false, workBeforeAskingMs: 1500 });
  native = await startTasksMcpServer({ tasks: true });
  connectorId = await connectorOf(upstream);
});

const connectorOf = (server: TasksMcpServer) => connectedConnector(stack.api, server.url, KEYS.alice, 'task-audit-token');

test.after.always(async () => {
  await stack?.stop();
  await Promise.all([upstream, native].map((server) => server?.close()));
});

const mcpUrl = (id = connectorId) => `http://127.0.0.1:${stack.port}/api/v1/connectors/${id}/mcp`;
const rpc = (key: string, method: string, params: Record<string, unknown>, name: string, id = connectorId) => mcpRpc(mcpUrl(id), method, params, name, { headers: asKey(key) });
const getTask = async (taskId: string): Promise<Record<string, any>> => (await rpc(KEYS.alice, 'tasks/get', { taskId }, taskId)).body.result ?? {};
const callsPath = () => `/api/v1/connectors/${connectorId}/calls?limit=100`;

async function startTask(tool: string, args: Record<string, unknown>): Promise<string> {
  const created = await rpc(KEYS.alice, 'tools/call', { name: tool, arguments: args }, tool);
  if (created.body.result?.resultType !== 'task') throw new Error(`not a task: ${JSON.stringify(created.body)}`);
  return String(created.body.result.taskId);
}

async function statusOf(taskId: string, wanted: string): Promise<Record<string, any>> {
  return eventually(async () => {
    const task = await getTask(taskId);
    return task.status === wanted ? task : undefined;
  }, 30_000, `the task to be ${wanted}`);
}

type Row = Record<string, any>;

/** The task's audit rows, oldest first, once the last is `last`; each checked against the schema. */
async function auditRowsOf(t: { true: (v: boolean, m?: string) => void }, taskId: string, last: string): Promise<Row[]> {
  const rows = await eventually(async () => {
    const page = await stack.api('GET', callsPath(), undefined, asKey(KEYS.alice));
    const mine = (page.body.items as Row[] | undefined)?.filter((c) => c.task?.task_id === taskId).reverse();
    return mine?.at(-1)?.task.status === last ? mine : undefined;
  }, 30_000, `the audit to show the task ${last}`);
  for (const row of rows) t.true(CallSchema.strict().safeParse(row).success, `a row of the schema, nothing more: ${JSON.stringify(row)}`);
  return rows;
}

const summary = (rows: Row[]) => rows.map(({ task }) => [task.change, task.status, task.by, task.approval ?? null]);

test.serial('a task that asks for input and completes: a row for each status, in order, with no arguments, answers or result', async (t) => {
  const taskId = await startTask('confirm_delete', { filename: 'ledger-4711.csv' });
  await statusOf(taskId, 'input_required');
  await rpc(KEYS.alice, 'tasks/update', { taskId, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } }, taskId);
  const done = await statusOf(taskId, 'completed');
  t.deepEqual(done.result?.content, [{ type: 'text', text: 'deleted ledger-4711.csv' }]);

  const rows = await auditRowsOf(t, taskId, 'completed');
  t.deepEqual(summary(rows), [[1, 'working', null, null], [2, 'input_required', null, null], [3, 'working', null, null], [4, 'completed', null, null]]);
  for (const row of rows) t.like(row, { caller: 'key:alice', http_method: 'TASK', rpc_method: 'tools/call', rpc_name: 'confirm_delete', status: null });
  t.false(JSON.stringify(rows).includes('ledger-4711'), 'neither the arguments nor the result are kept');
  // The call that started it is the proxy's row, as any call is, naming the task; the tasks/* calls name it too.
  const calls = await eventually(async () => {
    const items = (await stack.api('GET', callsPath(), undefined, asKey(KEYS.alice))).body.items as Row[] | undefined;
    return items?.some((c) => c.task_id === taskId) && items.some((c) => c.rpc_method === 'tasks/update') ? items : undefined;
  }, 30_000, 'the call that started it to be audited');
  t.like(calls.find((c) => c.task_id === taskId), { http_method: 'POST', rpc_method: 'tools/call', rpc_name: 'confirm_delete', status: 200 });
  t.like(calls.find((c) => c.rpc_method === 'tasks/update'), { rpc_name: taskId });
});

test.serial('held for approval, approved by a named approver: the rows say held, approved by whom, completed', async (t) => {
  const taskId = await startTask('charge_card', { seconds: 1 });
  t.is((await stack.api('POST', `/api/v1/connectors/${connectorId}/tasks/${taskId}/approval`, { decision: 'approve' }, asKey(KEYS.ann))).status, 200);
  await statusOf(taskId, 'completed');
  const rows = await auditRowsOf(t, taskId, 'completed');
  t.deepEqual(summary(rows), [[1, 'input_required', null, 'pending'], [2, 'working', 'key:ann', 'approved'], [3, 'completed', null, null]]);
  for (const row of rows) t.like(row, { caller: 'key:alice', rpc_name: 'charge_card' });
});

test.serial('denied: the row of the failure names the approver who denied it, and counts as an error', async (t) => {
  const taskId = await startTask('charge_card', { seconds: 1 });
  t.is((await stack.api('POST', `/api/v1/connectors/${connectorId}/tasks/${taskId}/approval`, { decision: 'deny' }, asKey(KEYS.ann))).status, 200);
  await statusOf(taskId, 'failed');
  const rows = await auditRowsOf(t, taskId, 'failed');
  t.deepEqual(summary(rows), [[1, 'input_required', null, 'pending'], [2, 'failed', 'key:ann', 'denied']]);
  const errors = await stack.api('GET', `${callsPath()}&error=true`, undefined, asKey(KEYS.alice));
  t.true((errors.body.items as Row[]).some((c) => c.task?.task_id === taskId && c.task.status === 'failed'));
});

test.serial('cancelled by its caller: the last row says cancelled, by whom; another owner cannot read the audit', async (t) => {
  const taskId = await startTask('slow_compute', { seconds: 60, label: 'cancel-me' });
  await rpc(KEYS.alice, 'tasks/cancel', { taskId }, taskId);
  await statusOf(taskId, 'cancelled');
  const rows = await auditRowsOf(t, taskId, 'cancelled');
  t.deepEqual(summary(rows), [[1, 'working', null, null], [2, 'cancelled', 'key:alice', null]]);
  t.false(JSON.stringify(rows).includes('cancel-me'));

  const foreign = await stack.api('GET', callsPath(), undefined, asKey(KEYS.bob));
  t.is(foreign.status, 404, 'another owner is told the connector does not exist');
  t.false(foreign.text.includes(taskId));
});

test.serial('a task the server runs itself (relayed): the call that made it names the task, and so do the tasks/* calls', async (t) => {
  const id = await connectorOf(native);
  const created = await rpc(KEYS.alice, 'tools/call', { name: 'slow_compute', arguments: { seconds: 1, label: 'relayed' } }, 'slow_compute', id);
  t.is(created.body.result?.resultType, 'task');
  const taskId = String(created.body.result?.taskId);
  await rpc(KEYS.alice, 'tasks/get', { taskId }, taskId, id);
  const rows = await eventually(async () => {
    const page = await stack.api('GET', `/api/v1/connectors/${id}/calls?limit=50`, undefined, asKey(KEYS.alice));
    const items = page.body.items as Row[] | undefined;
    const both = items?.some((c) => c.rpc_method === 'tasks/get') && items.some((c) => c.rpc_method === 'tools/call' && !c.task);
    return both ? items : undefined;
  }, 30_000, 'the calls to be audited');
  // The row of the task's status seen in that answer says tools/call too, at the same instant: the call's own row has no `task`.
  t.like(rows.find((c) => c.rpc_method === 'tools/call' && !c.task), { rpc_name: 'slow_compute', task_id: taskId, status: 200 });
  t.like(rows.find((c) => c.rpc_method === 'tasks/get'), { rpc_name: taskId });
  t.false(rows.some((c) => c.task && !c.task.observed), 'the server\'s own task has no rows of the service\'s changes');

  // Polled until it completes (on either replica's word): each status it was seen in is one row, marked observed.
  await eventually(async () => {
    const answer = await rpc(KEYS.alice, 'tasks/get', { taskId }, taskId, id);
    return answer.body.result?.status === 'completed' ? true : undefined;
  }, 30_000, 'the server\'s task to complete');
  const seen = await eventually(async () => {
    const page = await stack.api('GET', `/api/v1/connectors/${id}/calls?limit=100`, undefined, asKey(KEYS.alice));
    const mine = (page.body.items as Row[]).filter((c) => c.task?.task_id === taskId).reverse();
    return mine.at(-1)?.task.status === 'completed' ? mine : undefined;
  }, 30_000, 'the audit to show the server\'s task completed');
  // The call that made it and the first tasks/get both showed it working, and so did any poll before it completed: one row.
  t.deepEqual(seen.map((c) => [c.task.status, c.task.observed, c.task.change, c.http_method]), [['working', true, 1, 'TASK'], ['completed', true, 2, 'TASK']]);
  t.is(seen[0]!.rpc_name, 'slow_compute', 'the row from the call that made it names the tool');
  for (const row of seen) t.true(CallSchema.strict().safeParse(row).success, JSON.stringify(row));
  const foreign = await stack.api('GET', `/api/v1/connectors/${id}/calls?limit=100`, undefined, asKey(KEYS.bob));
  t.is(foreign.status, 404, 'another owner sees none of it');
});
