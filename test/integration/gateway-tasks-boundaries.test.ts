// The boundaries of a task the service owns: a task is its caller's (another caller of the same
// connector, an admin included, is told it does not exist; another owner does not see the
// connector at all); its arguments and result never reach Temporal history in plaintext; and a
// cancelled task's call is cancelled at the MCP server too (notifications/cancelled); the metrics
// count tasks by status and say how long the oldest has waited for its client.
import test from 'ava';
import { sha256Hex } from '../../callers/api-keys';
import { historyPayloads } from '../helpers/history-values';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { startTasksMcpServer, type TasksMcpServer } from '../fixtures/tasks-mcp-server';
import { toolTaskWorkflowId } from '../../workflows/tool-task-messages';
import { TASK_SECONDS, mcpRpc } from '../helpers/tasks-rpc';

const KEYS = { alice: 'alice-tasks-key-0a1b2c3d', bob: 'bob-tasks-key-9f8e7d6c', ops: 'ops-tasks-key-7c6b5a4d' };
const MARKER = 'label-only-alice-may-read-5d1c';

let stack: TestStack;
let plain: TasksMcpServer;
let connectorId: string;

test.before(async () => {
  stack = await startTestStack({
    CONNECTOR__API_KEYS: JSON.stringify([
      { subject: 'alice', sha256: sha256Hex(KEYS.alice) },
      { subject: 'bob', sha256: sha256Hex(KEYS.bob) },
      { subject: 'ops', sha256: sha256Hex(KEYS.ops), admin: true },
    ]),
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
  });
  // confirm_delete works a second before it asks: longer than the sync window, so it asks as a task.
  plain = await startTasksMcpServer({ tasks: false, workBeforeAskingMs: 1000 });
  const auth = { authorization: `Bearer ${KEYS.alice}` };
  const created = await stack.api('POST', '/api/v1/connectors', { url: plain.url, match_preset: false }, auth);
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  connectorId = created.body.id;
  const connected = await stack.api('POST', `/api/v1/connectors/${connectorId}/connect`, { access_token: 'boundaries-token' }, auth);
  if (connected.status !== 200) throw new Error(`connect: ${connected.status} ${connected.text}`);
});

test.after.always(async () => {
  await stack?.stop();
  await plain?.close();
});

const rpc = (key: string, method: string, params: Record<string, unknown>, name: string) =>
  mcpRpc(`http://127.0.0.1:${stack.port}/api/v1/connectors/${connectorId}/mcp`, method, params, name, { headers: { authorization: `Bearer ${key}` } });

const get = (key: string, taskId: string) => rpc(key, 'tasks/get', { taskId }, taskId);

test.serial("a task is its caller's: the admin is told it does not exist, another owner does not see the connector", async (t) => {
  const created = await rpc(KEYS.alice, 'tools/call', { name: 'slow_compute', arguments: { seconds: TASK_SECONDS, label: MARKER } }, 'slow_compute');
  const taskId = String(created.body.result?.taskId);
  t.is(created.body.result?.resultType, 'task');
  const done = await eventually(async () => {
    const task = (await get(KEYS.alice, taskId)).body.result;
    return task?.status === 'completed' ? task : undefined;
  }, 30_000, 'the task to complete');
  t.deepEqual(done.result?.content, [{ type: 'text', text: `computed ${MARKER} after ${TASK_SECONDS}s` }]);

  const admin = await get(KEYS.ops, taskId);
  t.is(admin.body.error?.code, -32602, "the admin's request is answered as for an unknown task");
  t.is(admin.body.result, undefined);
  for (const method of ['tasks/cancel', 'tasks/update']) {
    const other = await rpc(KEYS.ops, method, { taskId, inputResponses: {} }, taskId);
    t.is(other.body.error?.code, -32602, `${method} of another caller's task`);
  }
  const bob = await get(KEYS.bob, taskId);
  t.is(bob.status, 404, "another owner's request finds no connector");
  t.is((await get(KEYS.alice, taskId)).body.result?.status, 'completed', 'the task is untouched');

  // The owner lists the connector's tasks (who, which tool, where they stand), never their contents.
  const listed = await eventually(async () => {
    const page = await stack.api('GET', `/api/v1/connectors/${connectorId}/tasks`, undefined, { authorization: `Bearer ${KEYS.alice}` });
    return page.body.items?.find((task: { task_id: string; status: string }) => task.task_id === taskId && task.status === 'completed') ? page : undefined;
  }, 30_000, 'the task to be listed as completed');
  const item = listed.body.items.find((task: { task_id: string }) => task.task_id === taskId);
  t.like(item, { tool: 'slow_compute', caller: 'key:alice', unknown_outcome: false });
  t.deepEqual(item.history.map((change: { status: string }) => change.status), ['working', 'completed'], 'its statuses in order');
  t.false(listed.text.includes(MARKER), 'no argument or result in the listing');
  t.is((await stack.api('GET', `/api/v1/connectors/${connectorId}/tasks`, undefined, { authorization: `Bearer ${KEYS.bob}` })).status, 404);
});

test.serial("a task's arguments and result are sealed in Temporal's history", async (t) => {
  const created = await rpc(KEYS.alice, 'tools/call', { name: 'slow_compute', arguments: { seconds: TASK_SECONDS, label: MARKER } }, 'slow_compute');
  const taskId = String(created.body.result?.taskId);
  await eventually(async () => ((await get(KEYS.alice, taskId)).body.result?.status === 'completed' ? true : undefined), 30_000, 'the task to complete');
  const history = JSON.stringify(await historyPayloads(stack.temporal, toolTaskWorkflowId(connectorId, taskId)));
  t.true(history.length > 0 && history.includes(taskId), 'the history was read');
  t.false(history.includes(MARKER), 'neither the argument nor the result that echoes it is there in plaintext');
  t.false(history.includes('slow_compute after'), 'nor any part of the result');
});

test.serial('a cancelled task is cancelled at the MCP server: it gets notifications/cancelled for the call', async (t) => {
  const created = await rpc(KEYS.alice, 'tools/call', { name: 'slow_compute', arguments: { seconds: 60, label: 'to cancel' } }, 'slow_compute');
  const taskId = String(created.body.result?.taskId);
  await eventually(async () => (plain.calls.some((c) => c.args.label === 'to cancel') ? true : undefined), 30_000, 'the call to reach the server');
  const ack = await rpc(KEYS.alice, 'tasks/cancel', { taskId }, taskId);
  t.deepEqual(ack.body.result, { resultType: 'complete' });
  t.is((await get(KEYS.alice, taskId)).body.result?.status, 'cancelled');
  const notified = await eventually(async () => plain.cancellations.find((c) => c.how === 'notification' && String(c.requestId).startsWith(`task-${taskId}-`)), 30_000, 'notifications/cancelled to reach the server');
  t.truthy(notified);
});

test.serial('the metrics count tasks by status, and how long the oldest has waited for its client', async (t) => {
  const created = await rpc(KEYS.alice, 'tools/call', { name: 'confirm_delete', arguments: { filename: 'a.txt' } }, 'confirm_delete');
  const taskId = String(created.body.result?.taskId);
  await eventually(async () => ((await get(KEYS.alice, taskId)).body.result?.status === 'input_required' ? true : undefined), 30_000, 'the task to ask for input');
  const scrape = async () => (await stack.api('GET', '/metrics', undefined, { authorization: `Bearer ${KEYS.ops}` })).text;
  const value = (text: string, series: string) => Number(text.match(new RegExp(`^${series} (\\S+)$`, 'm'))?.[1] ?? NaN);
  const text = await eventually(async () => {
    const body = await scrape();
    return value(body, 'mcp_tasks\\{status="input_required"\\}') >= 1 ? body : undefined;
  }, 30_000, 'the waiting task to be counted');
  t.true(value(text, 'mcp_tasks\\{status="completed"\\}') >= 1, 'the earlier tests\' completed tasks');
  t.true(value(text, 'mcp_tasks_oldest_input_wait_seconds') > 0);
  await rpc(KEYS.alice, 'tasks/update', { taskId, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } }, taskId);
  const done = await eventually(async () => {
    const task = (await get(KEYS.alice, taskId)).body.result;
    return task?.status === 'completed' ? task : undefined;
  }, 30_000, 'the answered task to complete');
  t.deepEqual(done.result?.content, [{ type: 'text', text: 'deleted a.txt' }]);
});
