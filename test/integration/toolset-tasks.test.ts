// The Tasks extension through a toolset's MCP path: a declaring client's call of a member's tool
// becomes a task — relayed to a member whose server runs tasks (its own task, with the member's
// token), owned by the service for a member without task support (a task workflow on the member's
// connector) — and tasks/get, tasks/update and tasks/cancel reach the member the id names. The id
// is the caller's: another caller the toolset grants the same tools, and the same id on another
// toolset, are told the task does not exist. A task the service owns has its changes in the
// per-call audit of both the toolset and the member.
import test, { type ExecutionContext } from 'ava';
import { sha256Hex } from '../../callers/api-keys';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { startTasksMcpServer, type TasksMcpServer } from '../fixtures/tasks-mcp-server';
import { mcpRpc } from '../helpers/tasks-rpc';

const KEYS = { alice: 'alice-toolset-tasks-1f2e3d', carol: 'carol-toolset-tasks-4c5b6a' };
const TOKENS = { native: 'native-member-token', plain: 'plain-member-token' };

let stack: TestStack;
let native: TasksMcpServer;
let plain: TasksMcpServer;
let toolset: { id: string; mcp_url: string };
let other: { id: string; mcp_url: string };
let members: Array<{ connector_id: string; prefix: string }>;

const as = (key: string) => ({ authorization: `Bearer ${key}` });

async function connector(url: string, token: string): Promise<string> {
  const created = await stack.api('POST', '/api/v1/connectors', { url, match_preset: false }, as(KEYS.alice));
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  const connected = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: token }, as(KEYS.alice));
  if (connected.status !== 200) throw new Error(`connect: ${connected.status} ${connected.text}`);
  return created.body.id;
}

async function createToolset(name: string, members: Array<{ connector_id: string; prefix: string }>): Promise<{ id: string; mcp_url: string }> {
  const res = await stack.api('POST', '/api/v1/toolsets', { name, members, access: [{ callers: ['key:carol'], allow: ['*'] }] }, as(KEYS.alice));
  if (res.status !== 201) throw new Error(`toolset: ${res.status} ${res.text}`);
  return res.body;
}

test.before(async () => {
  stack = await startTestStack({
    CONNECTOR__API_KEYS: JSON.stringify([{ subject: 'alice', sha256: sha256Hex(KEYS.alice) }, { subject: 'carol', sha256: sha256Hex(KEYS.carol) }]),
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
  });
  native = await startTasksMcpServer({ tasks: true });
  plain = await startTasksMcpServer({ tasks: false, workBeforeAskingMs: 1000 });
  members = [{ connector_id: await connector(native.url, TOKENS.native), prefix: 'nat' }, { connector_id: await connector(plain.url, TOKENS.plain), prefix: 'pln' }];
  toolset = await createToolset('tasks', members);
  other = await createToolset('tasks-too', members);
});

test.after.always(async () => {
  await stack?.stop();
  await native?.close();
  await plain?.close();
});

/** One 2026-07-28 request to a toolset, the extension declared unless told otherwise. */
const rpc = (url: string, key: string, method: string, params: Record<string, unknown>, name?: string, declared = true) =>
  mcpRpc(url, method, params, name, { headers: as(key), declared, toolset: true });

const getTask = (key: string, taskId: string, url = toolset.mcp_url) => rpc(url, key, 'tasks/get', { taskId }, taskId);

async function completed(taskId: string): Promise<Record<string, any>> {
  return eventually(async () => {
    const task = (await getTask(KEYS.alice, taskId)).body.result;
    return task?.status === 'completed' || task?.status === 'failed' ? task : undefined;
  }, 60_000, `task ${taskId} to end`);
}

test.serial("the toolset's discover answer offers the extension", async (t) => {
  const discovered = await rpc(toolset.mcp_url, KEYS.alice, 'server/discover', {});
  t.deepEqual(discovered.body.result?.capabilities?.extensions, { 'io.modelcontextprotocol/tasks': {} });
});

for (const [kind, prefix] of [['a member whose server runs tasks', 'nat'], ['a member without task support (the service owns the task)', 'pln']] as const) {
  test.serial(`${kind}: the call becomes a task named by the toolset, polled to its result through the toolset`, async (t) => {
    const server = prefix === 'nat' ? native : plain;
    const before = server.callsOf('slow_compute').length;
    const label = `through-${prefix}`;
    const created = await rpc(toolset.mcp_url, KEYS.alice, 'tools/call', { name: `${prefix}__slow_compute`, arguments: { seconds: 2, label } }, `${prefix}__slow_compute`);
    t.is(created.body.result?.resultType, 'task', JSON.stringify(created.body));
    const taskId = String(created.body.result?.taskId);
    t.true(taskId.startsWith(`${prefix}__`), 'the id names the member');
    const done = await completed(taskId);
    t.is(done.status, 'completed');
    t.is(done.taskId, taskId, 'tasks/get answers with the id the caller knows');
    t.deepEqual(done.result?.content, [{ type: 'text', text: `computed ${label} after 2s` }]);
    const seen = server.callsOf('slow_compute').slice(before);
    t.is(seen.length, 1, 'the member saw the call once');
    t.is(seen[0]!.authorization, `Bearer ${prefix === 'nat' ? TOKENS.native : TOKENS.plain}`, "with the member's token, never the caller's key");
    if (prefix === 'pln') await listedOnBoth(t, label);
  });
}

/** A task the service owns, started through the toolset: on the toolset's list and its member's, without its contents; carol, a grantee, reads neither. */
async function listedOnBoth(t: ExecutionContext, label: string): Promise<void> {
  const forToolset = await eventually(async () => {
    const page = await stack.api('GET', `/api/v1/toolsets/${toolset.id}/tasks`, undefined, as(KEYS.alice));
    return page.body.items?.find((task: { status: string }) => task.status === 'completed') ? page : undefined;
  }, 30_000, "the task on the toolset's list");
  const listed = forToolset.body.items.find((task: { status: string }) => task.status === 'completed');
  t.like(listed, { tool: 'slow_compute', caller: 'key:alice', toolset_id: toolset.id });
  t.false(forToolset.text.includes(label), 'no argument or result in the listing');
  const forMember = await stack.api('GET', `/api/v1/connectors/${members[1]!.connector_id}/tasks`, undefined, as(KEYS.alice));
  t.like(forMember.body.items.find((task: { task_id: string }) => task.task_id === listed.task_id), { toolset_id: toolset.id });
  t.is((await stack.api('GET', `/api/v1/toolsets/${other.id}/tasks`, undefined, as(KEYS.alice))).body.items.length, 0, 'not on another toolset of the same members');
  t.is((await stack.api('GET', `/api/v1/toolsets/${toolset.id}/tasks`, undefined, as(KEYS.carol))).status, 404, 'a grantee of the MCP path is not its owner');
  // Its changes are rows of both per-call audits, naming the toolset and the member.
  for (const path of [`/api/v1/toolsets/${toolset.id}/calls`, `/api/v1/connectors/${members[1]!.connector_id}/calls`]) {
    const rows = await eventually(async () => {
      const items = (await stack.api('GET', `${path}?limit=100`, undefined, as(KEYS.alice))).body.items as Array<Record<string, any>> | undefined;
      const mine = items?.filter((c) => c.task?.task_id === listed.task_id).reverse();
      return mine?.at(-1)?.task.status === 'completed' ? mine : undefined;
    }, 30_000, `the task's rows at ${path}`);
    t.deepEqual(rows.map((c) => c.task.status), ['working', 'completed'], path);
    t.like(rows[0], { caller: 'key:alice', rpc_name: 'slow_compute', toolset_id: toolset.id, member_id: members[1]!.connector_id });
  }
}

test.serial("a task is its caller's: carol, granted the same tools, another toolset, a forged id and a tampered one find nothing", async (t) => {
  const created = await rpc(toolset.mcp_url, KEYS.alice, 'tools/call', { name: 'nat__slow_compute', arguments: { seconds: 1, label: 'mine' } }, 'nat__slow_compute');
  const taskId = String(created.body.result?.taskId);
  t.is(created.body.result?.resultType, 'task');
  await completed(taskId);
  const carol = await getTask(KEYS.carol, taskId);
  t.is(carol.body.error?.code, -32602, "carol's tasks/get of alice's task");
  t.is(carol.body.result, undefined);
  const cancel = await rpc(toolset.mcp_url, KEYS.carol, 'tasks/cancel', { taskId }, taskId);
  t.is(cancel.body.error?.code, -32602, "carol's tasks/cancel of alice's task");
  t.is((await getTask(KEYS.alice, taskId, other.mcp_url)).body.error?.code, -32602, 'the same id on another toolset of the same members');
  // The member's own id, given as the toolset's: a native task id guessed or learnt elsewhere opens nothing.
  const memberIds = native.callsOf('slow_compute').length;
  t.true(memberIds > 0);
  for (const forged of ['nat__' + 'x'.repeat(40), 'pln__v1.AAAA.BBBB.CCCC', 'unknown__abc', taskId.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))]) {
    t.is((await getTask(KEYS.alice, forged)).body.error?.code, -32602, forged);
  }
  t.is((await getTask(KEYS.alice, taskId)).body.result?.status, 'completed', 'the task is untouched');
});

test.serial('a task that asks for input through the toolset: input_required, answered with tasks/update, then completed (both kinds of member)', async (t) => {
  for (const prefix of ['nat', 'pln']) {
    const created = await rpc(toolset.mcp_url, KEYS.alice, 'tools/call', { name: `${prefix}__confirm_delete`, arguments: { filename: 'a.txt' } }, `${prefix}__confirm_delete`);
    t.is(created.body.result?.resultType, 'task', `${prefix}: ${JSON.stringify(created.body)}`);
    const taskId = String(created.body.result?.taskId);
    const asking = await eventually(async () => {
      const task = (await getTask(KEYS.alice, taskId)).body.result;
      return task?.status === 'input_required' ? task : undefined;
    }, 60_000, `${prefix}: the task to ask`);
    const keys = Object.keys(asking.inputRequests ?? {});
    t.true(keys.length > 0, `${prefix}: the input requests are shown`);
    const answers = Object.fromEntries(keys.map((key) => [key, { action: 'accept', content: { confirm: true } }]));
    const updated = await rpc(toolset.mcp_url, KEYS.alice, 'tasks/update', { taskId, inputResponses: answers }, taskId);
    t.is(updated.body.error, undefined, `${prefix}: ${JSON.stringify(updated.body)}`);
    const done = await completed(taskId);
    t.is(done.status, 'completed', `${prefix}: ${JSON.stringify(done)}`);
  }
});

test.serial('without the extension declared a call is a plain call, and tasks/* is refused with -32021', async (t) => {
  const plainCall = await rpc(toolset.mcp_url, KEYS.alice, 'tools/call', { name: 'pln__slow_compute', arguments: { seconds: 1, label: 'plain' } }, 'pln__slow_compute', false);
  t.is(plainCall.body.result?.resultType, 'complete', JSON.stringify(plainCall.body));
  t.deepEqual(plainCall.body.result?.content, [{ type: 'text', text: 'computed plain after 1s' }]);
  const refused = await rpc(toolset.mcp_url, KEYS.alice, 'tasks/get', { taskId: 'nat__x' }, 'nat__x', false);
  t.is(refused.body.error?.code, -32021);
});
