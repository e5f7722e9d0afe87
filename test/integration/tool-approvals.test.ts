// Human approval as policy (CONNECTOR__APPROVAL_TOOLS): a call of a held tool becomes a task in
// input_required whose input request is a URL-mode elicitation to the approval page, and the MCP
// server sees nothing of it until an approver named by the rule approves. Denied or left
// undecided, it fails and is never made. Only approvers see and decide it (the connector's owner,
// not named, is refused with 403; another owner is told nothing exists); who decided is kept in
// the workflow's history and in the connector's task list. A client without the Tasks extension
// is answered -32042 with the page, and the call runs once approved. A 2025 batch that calls a
// held tool is refused whole. Through a toolset the operator's rules hold a member's tools too.
import test from 'ava';
import proto from '@temporalio/proto';
import { sha256Hex } from '../../callers/api-keys';
import { historyPayloads } from '../helpers/history-values';
import { connectedConnector, eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { startTasksMcpServer, type TasksMcpServer } from '../fixtures/tasks-mcp-server';
import { toolTaskWorkflowId } from '../../workflows/tool-task-messages';
import { mcpRpc } from '../helpers/tasks-rpc';

const KEYS = { alice: 'alice-approvals-key-1a2b3c4d', ann: 'ann-approvals-key-5e6f7a8b', bob: 'bob-approvals-key-9c0d1e2f' };

let stack: TestStack;
let upstream: TasksMcpServer;
let native: TasksMcpServer;
let connectorId: string;

test.before(async () => {
  stack = await startTestStack({
    CONNECTOR__API_KEYS: JSON.stringify([
      { subject: 'alice', sha256: sha256Hex(KEYS.alice) },
      { subject: 'ann', sha256: sha256Hex(KEYS.ann) },
      { subject: 'bob', sha256: sha256Hex(KEYS.bob) },
    ]),
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
    CONNECTOR__APPROVAL_TOOLS: JSON.stringify([
      { tools: 'slow_*', approvers: ['key:ann'] },
      // Expires quickly: the expiry test waits for it, nothing else races it.
      { tools: 'greet', approvers: ['key:ann'], timeout_seconds: 2 },
    ]),
  });
  upstream = await startTasksMcpServer({ tasks: false });
  native = await startTasksMcpServer({ tasks: true });
  connectorId = await connectorOf(upstream);
});

const connectorOf = (server: TasksMcpServer) => connectedConnector(stack.api, server.url, KEYS.alice, 'approvals-token');

test.after.always(async () => {
  await stack?.stop();
  await upstream?.close();
  await native?.close();
});

const mcpUrl = (id = connectorId) => `http://127.0.0.1:${stack.port}/api/v1/connectors/${id}/mcp`;
const rpc = (key: string, method: string, params: Record<string, unknown>, name: string, declared = true, id = connectorId) =>
  mcpRpc(mcpUrl(id), method, params, name, { headers: { authorization: `Bearer ${key}` }, declared });
const getTask = async (taskId: string, id = connectorId): Promise<Record<string, any>> => (await rpc(KEYS.alice, 'tasks/get', { taskId }, taskId, true, id)).body.result ?? {};
const approvalPath = (taskId: string, id = connectorId) => `/api/v1/connectors/${id}/tasks/${taskId}/approval`;
const asKey = (key: string) => ({ authorization: `Bearer ${key}` });
const seen = (label: string) => upstream.calls.filter((c) => c.args.label === label);

/** The task's workflow history as a timeline (ms after it started), for the report. */
async function logTimeline(t: { log: (...values: unknown[]) => void }, taskId: string): Promise<void> {
  const { events } = await stack.temporal.workflow.getHandle(toolTaskWorkflowId(connectorId, taskId)).fetchHistory();
  const start = Number(events?.[0]?.eventTime?.seconds ?? 0) * 1000 + Math.floor((events?.[0]?.eventTime?.nanos ?? 0) / 1e6);
  const at = (e: (typeof events & {})[number]) => Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6) - start;
  const named = (events ?? []).map((e) => {
    const update = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name;
    const activity = e.activityTaskScheduledEventAttributes?.activityType?.name;
    return { at: at(e), what: `${String(proto.temporal.api.enums.v1.EventType[e.eventType ?? 0]).replace('EVENT_TYPE_', '')}${update ? ` ${update}` : ''}${activity ? ` ${activity}` : ''}` };
  }).filter((e) => !/WORKFLOW_TASK/.test(e.what));
  t.log(named.map((e) => `+${e.at} ms ${e.what}`).join('\n'));
}

async function heldCall(tool: string, args: Record<string, unknown>): Promise<string> {
  const created = await rpc(KEYS.alice, 'tools/call', { name: tool, arguments: args }, tool);
  if (created.body.result?.resultType !== 'task') throw new Error(`not a task: ${JSON.stringify(created.body)}`);
  return String(created.body.result.taskId);
}

async function settled(taskId: string, id = connectorId) {
  return eventually(async () => {
    const task = await getTask(taskId, id);
    return ['completed', 'failed', 'cancelled'].includes(task?.status) ? task : undefined;
  }, 30_000, 'the task to end');
}

test.serial('approved by a named approver, the call is made then, once, and the task completes', async (t) => {
  const taskId = await heldCall('slow_compute', { seconds: 1, label: 'approve-me' });
  const waiting = await getTask(taskId);
  t.is(waiting.status, 'input_required');
  const request = waiting.inputRequests?.approval;
  t.is(request?.method, 'elicitation/create');
  t.like(request?.params, { mode: 'url', url: `${stack.baseUrl}/#/connectors/${connectorId}/tasks/${taskId}/approval` });

  // The client's accept of the elicitation only says its user saw the page: nothing moves.
  await rpc(KEYS.alice, 'tasks/update', { taskId, inputResponses: { approval: { action: 'accept' } } }, taskId);
  t.is((await getTask(taskId)).status, 'input_required');

  const shown = await stack.api('GET', approvalPath(taskId), undefined, asKey(KEYS.ann));
  t.is(shown.status, 200);
  t.like(shown.body, { tool: 'slow_compute', arguments: { seconds: 1, label: 'approve-me' }, requested_by: 'key:alice', state: 'pending', decided_by: null });
  t.is((await stack.api('GET', approvalPath(taskId), undefined, asKey(KEYS.alice))).status, 403, 'the owner, not named, may not see it');
  t.is((await stack.api('POST', approvalPath(taskId), { decision: 'approve' }, asKey(KEYS.alice))).status, 403, 'nor approve it');
  t.is((await stack.api('GET', approvalPath(taskId), undefined, asKey(KEYS.bob))).status, 404, 'another owner is told nothing exists');
  t.is((await stack.api('POST', approvalPath(taskId), { decision: 'approve' }, asKey(KEYS.bob))).status, 404);
  t.is(seen('approve-me').length, 0, 'the server saw nothing before the approval');

  const approved = await stack.api('POST', approvalPath(taskId), { decision: 'approve' }, asKey(KEYS.ann));
  t.is(approved.status, 200);
  t.like(approved.body, { state: 'approved', decided_by: 'key:ann' });
  t.is((await stack.api('POST', approvalPath(taskId), { decision: 'deny' }, asKey(KEYS.ann))).status, 409, 'decided once');

  const done = await settled(taskId);
  t.is(done.status, 'completed');
  t.deepEqual(done.result?.content, [{ type: 'text', text: 'computed approve-me after 1s' }]);
  t.is(seen('approve-me').length, 1);

  // Audited: the decision and its approver are in the workflow's history and the task list.
  const history = JSON.stringify(await historyPayloads(stack.temporal, toolTaskWorkflowId(connectorId, taskId)));
  await logTimeline(t, taskId);
  t.true(history.includes('"subject":"key:ann"') && history.includes('"approve":true'));
  const listed = await eventually(async () => {
    const page = await stack.api('GET', `/api/v1/connectors/${connectorId}/tasks`, undefined, asKey(KEYS.alice));
    return page.body.items?.find((task: { task_id: string; status: string }) => task.task_id === taskId && task.status === 'completed');
  }, 30_000, 'the task to be listed as completed');
  t.like(listed, { approval: { state: 'approved', decided_by: 'key:ann' } });
  // Its statuses in order: held, let go by the approver, done.
  t.deepEqual(listed.history.map(({ status, by }: { status: string; by?: string }) => [status, by ?? null]), [['input_required', null], ['working', 'key:ann'], ['completed', null]]);
});

test.serial('denied, the task fails saying who denied it, and the server never sees the call', async (t) => {
  const taskId = await heldCall('slow_compute', { seconds: 0, label: 'deny-me' });
  const denied = await stack.api('POST', approvalPath(taskId), { decision: 'deny' }, asKey(KEYS.ann));
  t.like(denied.body, { state: 'denied', decided_by: 'key:ann' });
  const done = await settled(taskId);
  t.is(done.status, 'failed');
  t.regex(String(done.error?.message), /denied by key:ann/);
  t.is(seen('deny-me').length, 0);
});

test.serial('left undecided past its time, the task fails as expired and can no longer be approved', async (t) => {
  const taskId = await heldCall('greet', { name: 'nobody-decides' });
  const done = await settled(taskId);
  t.is(done.status, 'failed');
  t.regex(String(done.error?.message), /expired/);
  const late = await stack.api('POST', approvalPath(taskId), { decision: 'approve' }, asKey(KEYS.ann));
  t.is(late.status, 409);
  t.is(upstream.calls.filter((c) => c.tool === 'greet' && c.args.name === 'nobody-decides').length, 0);
});

test.serial('a client without the Tasks extension gets -32042 with the approval page; the call runs once approved', async (t) => {
  const answer = await rpc(KEYS.alice, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0, label: 'undeclared' } }, 'slow_compute', false);
  t.is(answer.body.error?.code, -32042);
  const elicitation = (answer.body.error?.data as { elicitations?: Array<{ mode: string; url: string }> })?.elicitations?.[0];
  t.is(elicitation?.mode, 'url');
  const taskId = /\/tasks\/([0-9a-f-]+)\/approval$/.exec(String(elicitation?.url))?.[1];
  t.truthy(taskId);
  t.true(String(elicitation?.url).startsWith(`${stack.baseUrl}/#/connectors/${connectorId}/tasks/`));
  t.is(seen('undeclared').length, 0);
  t.is((await stack.api('POST', approvalPath(taskId!), { decision: 'approve' }, asKey(KEYS.ann))).status, 200);
  await eventually(async () => (seen('undeclared').length === 1 ? true : undefined), 30_000, 'the approved call to reach the server');
  t.pass();
});

test.serial('a 2025 batch that calls a held tool is refused whole, never relayed', async (t) => {
  const response = await fetch(mcpUrl(), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${KEYS.alice}` },
    body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 0, label: 'batched' } } }]),
  });
  t.is(response.status, 403);
  t.is(seen('batched').length, 0);
});

test.serial('a 2025 request without Mcp-Method headers is read before it is relayed: a held call gets -32042, never the server', async (t) => {
  const response = await fetch(mcpUrl(), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${KEYS.alice}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 0, label: 'headerless' } } }),
  });
  const body = (await response.json()) as { error?: { code: number } };
  t.is(body.error?.code, -32042);
  t.is(seen('headerless').length, 0);
});

test.serial("an operator's rule holds a member's tool through a toolset too: a client without the extension gets -32042, the server nothing", async (t) => {
  const created = await stack.api('POST', '/api/v1/toolsets', { name: 'held', members: [{ connector_id: connectorId, prefix: 'm' }] }, asKey(KEYS.alice));
  t.is(created.status, 201, created.text);
  const url = `http://127.0.0.1:${stack.port}/api/v1/toolsets/${created.body.id}/mcp`;
  const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } };
  const answer = await mcpRpc(url, 'tools/call', { name: 'm__slow_compute', arguments: { seconds: 0, label: 'via-toolset' }, _meta }, 'm__slow_compute', { headers: asKey(KEYS.alice), declared: false });
  t.is(answer.body.error?.code, -32042);
  t.regex(String(answer.body.error?.message), /needs an approval/);
  t.is(seen('via-toolset').length, 0);
});

test.serial('a server that runs tasks itself is held too: the service owns the held task and makes the call once approved', async (t) => {
  const id = await connectorOf(native);
  const created = await rpc(KEYS.alice, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0, label: 'native-held' } }, 'slow_compute', true, id);
  t.like(created.body.result, { resultType: 'task', status: 'input_required' });
  const taskId = String(created.body.result?.taskId);
  t.is(native.calls.filter((c) => c.args.label === 'native-held').length, 0);
  t.is((await stack.api('POST', approvalPath(taskId, id), { decision: 'approve' }, asKey(KEYS.ann))).status, 200);
  const done = await settled(taskId, id);
  t.is(done.status, 'completed');
  t.deepEqual(done.result?.content, [{ type: 'text', text: 'computed native-held after 0s' }]);
  t.is(native.calls.filter((c) => c.args.label === 'native-held').length, 1);
});
