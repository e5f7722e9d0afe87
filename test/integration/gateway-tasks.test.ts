// Tasks the service owns (the Tasks extension, SEP-2663) in front of an MCP server without task
// support: the conformance suite's ten tasks-* scenarios, run by the suite itself at 2026-07-28
// through a connector's MCP path, pass as they do against a server that runs tasks itself
// (tasks-conformance.test.ts) — each task a Temporal workflow of its own. The fixture server
// (plain mode) records every call it gets: none carries the caller's credentials. Who may see a
// task, and what history holds of it: gateway-tasks-boundaries.test.ts.
import test from 'ava';
import { TASKS_SCENARIOS as SCENARIOS, tasksSuite } from '../conformance/tasks-suite';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { startTasksMcpServer, type TasksMcpServer } from '../fixtures/tasks-mcp-server';
import { TASK_SECONDS, mcpRpc } from '../helpers/tasks-rpc';

const TOKEN = 'plain-upstream-token';

let stack: TestStack;
let plain: TasksMcpServer;
let mcpUrl: string;

test.before(async () => {
  // The operator's marks say what the server cannot: these tools run only as tasks, greet never.
  // The window is under the one second the fixture's jobs take, and its tools that ask for input
  // work longer than it first, so that they become tasks before they ask (test_tool_with_task asks at once).
  // This file's own slow_compute calls take TASK_SECONDS, far past it.
  stack = await startTestStack({
    CONNECTOR__TASK_TOOLS: 'failing_job=required,test_tool_with_task=required,greet=forbidden',
    CONNECTOR__TASK_SYNC_WINDOW_MS: '600',
  });
  plain = await startTasksMcpServer({ tasks: false, workBeforeAskingMs: 1500 });
  const created = await stack.api('POST', '/api/v1/connectors', { url: plain.url, match_preset: false });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  const connected = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: TOKEN });
  if (connected.status !== 200) throw new Error(`connect: ${connected.status} ${connected.text}`);
  mcpUrl = created.body.mcp_url;
});

test.after.always(async () => {
  await stack?.stop();
  await plain?.close();
});

test.serial('a server without task support: the ten tasks-* scenarios pass through the connector\'s MCP path, the service running the tasks', async (t) => {
  t.timeout(6 * 60_000);
  const before = plain.calls.length;
  const result = await tasksSuite(mcpUrl);
  for (const [name, failed] of result.scenarios) if (failed.length) t.log(`  ${name} fails ${[...new Set(failed)].join(', ')}`);
  t.log(`gateway-owned: ${result.passed.size}/${SCENARIOS.length} passed`);
  t.deepEqual([...result.passed].sort(), [...SCENARIOS].sort());
  const reached = plain.calls.slice(before);
  t.true(reached.length > 0 && reached.every((call) => call.authorization === `Bearer ${TOKEN}`), "every call the server got carried the connector's token");
});

test.serial('a task\'s result comes back whole; a made-up id is unknown, and a client without the extension is refused', async (t) => {
  const created = (await mcpRpc(mcpUrl, 'tools/call', { name: 'slow_compute', arguments: { seconds: TASK_SECONDS, label: 'mine' } }, 'slow_compute')).body;
  t.is(created.result?.resultType, 'task');
  const taskId = String(created.result?.taskId);
  let task: Record<string, any> | undefined;
  for (let i = 0; i < 100 && task?.status !== 'completed'; i++) {
    task = (await mcpRpc(mcpUrl, 'tasks/get', { taskId }, taskId)).body.result;
    if (task?.status !== 'completed') await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.is(task?.status, 'completed');
  t.deepEqual(task?.result?.content, [{ type: 'text', text: `computed mine after ${TASK_SECONDS}s` }]);
  const unknown = (await mcpRpc(mcpUrl, 'tasks/get', { taskId: '00000000-0000-4000-8000-000000000000' }, '00000000-0000-4000-8000-000000000000')).body;
  t.is(unknown.error?.code, -32602);
  const undeclared = (await mcpRpc(mcpUrl, 'tasks/get', { taskId }, taskId, { declared: false })).body;
  t.is(undeclared.error?.code, -32021, 'without the extension declared, a task is not served');
});

test.serial('a client that asks for a shorter TTL (the first version\'s task.ttl) gets it, and the outcome goes when it ends; a longer one is held to the limit', async (t) => {
  const short = (await mcpRpc(mcpUrl, 'tools/call', { name: 'slow_compute', arguments: { seconds: TASK_SECONDS, label: 'brief' }, task: { ttl: 2000 } }, 'slow_compute')).body;
  t.is(short.result?.resultType, 'task');
  t.is(short.result?.ttlMs, 2000);
  const taskId = String(short.result?.taskId);
  const done = await eventually(async () => {
    const task = (await mcpRpc(mcpUrl, 'tasks/get', { taskId }, taskId)).body.result;
    return task?.status === 'completed' ? task : undefined;
  }, 30_000, 'the task to complete');
  t.deepEqual(done.result?.content, [{ type: 'text', text: `computed brief after ${TASK_SECONDS}s` }]);
  const gone = await eventually(async () => {
    const answer = (await mcpRpc(mcpUrl, 'tasks/get', { taskId }, taskId)).body;
    return answer.error ? answer : undefined;
  }, 30_000, 'the outcome to go with its TTL');
  t.is(gone.error?.code, -32602);

  const long = (await mcpRpc(mcpUrl, 'tools/call', { name: 'slow_compute', arguments: { seconds: TASK_SECONDS }, task: { ttl: 10 * 24 * 3600_000 } }, 'slow_compute')).body;
  t.is(long.result?.ttlMs, 3600_000, "held to the operator's limit (CONNECTOR__TASK_TTL_SECONDS)");
});
