// Approval rules an owner sets (issue 40, item 5): a connector's approval_rules, given at creation
// or by PATCH, hold its tools for the approvers they name, after the operator's rules (which match
// first, so an owner cannot loosen them); a toolset's approval_rules hold its prefixed tools, the
// call becoming a task the service owns on the member's connector. Only approvers decide: the
// owner, not named, is refused (403); another owner is told nothing exists. One owner's rules
// hold nothing on another's connector, and malformed rules are refused with problem details.
import test from 'ava';
import { sha256Hex } from '../../callers/api-keys';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { startTasksMcpServer, type TasksMcpServer } from '../fixtures/tasks-mcp-server';
import { mcpRpc } from '../helpers/tasks-rpc';

const KEYS = { alice: 'alice-owner-rules-key-1a2b3c4d', ann: 'ann-owner-rules-key-5e6f7a8b', bob: 'bob-owner-rules-key-9c0d1e2f', carl: 'carl-owner-rules-key-3a4b5c6d' };
const CARL_HOLDS = [{ tools: 'slow_*', approvers: ['key:carl'] }, { tools: 'greet', approvers: ['key:carl'] }];

let stack: TestStack;
let upstream: TasksMcpServer;
let native: TasksMcpServer;

test.before(async () => {
  stack = await startTestStack({
    CONNECTOR__API_KEYS: JSON.stringify(Object.keys(KEYS).map((subject) => ({ subject, sha256: sha256Hex(KEYS[subject as keyof typeof KEYS]) }))),
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
    CONNECTOR__APPROVAL_TOOLS: JSON.stringify([{ tools: 'greet', approvers: ['key:ann'] }]),
  });
  upstream = await startTasksMcpServer({ tasks: false });
  native = await startTasksMcpServer({ tasks: true });
});

test.after.always(async () => {
  await stack?.stop();
  await upstream?.close();
  await native?.close();
});

const asKey = (key: string) => ({ authorization: `Bearer ${key}` });
const mcpUrl = (id: string) => `http://127.0.0.1:${stack.port}/api/v1/connectors/${id}/mcp`;
const approvalPath = (id: string, taskId: string) => `/api/v1/connectors/${id}/tasks/${taskId}/approval`;
const seen = (label: string) => upstream.calls.filter((c) => c.args.label === label).length;
const call = (id: string, key: string, tool: string, args: Record<string, unknown>, declared = true) =>
  mcpRpc(mcpUrl(id), 'tools/call', { name: tool, arguments: args }, tool, { headers: asKey(key), declared });

async function connectorOf(key: string, approvalRules?: unknown, server = upstream): Promise<Record<string, any>> {
  const body = { url: server.url, match_preset: false, ...(approvalRules ? { approval_rules: approvalRules } : {}) };
  const created = await stack.api('POST', '/api/v1/connectors', body, asKey(key));
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  const connected = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: 'owner-rules-token' }, asKey(key));
  if (connected.status !== 200) throw new Error(`connect: ${connected.status} ${connected.text}`);
  return connected.body;
}

async function settled(id: string, key: string, taskId: string): Promise<Record<string, any>> {
  return eventually(async () => {
    const task = (await mcpRpc(mcpUrl(id), 'tasks/get', { taskId }, taskId, { headers: asKey(key) })).body.result;
    return ['completed', 'failed', 'cancelled'].includes(task?.status) ? task : undefined;
  }, 30_000, 'the task to end');
}

test.serial("a connector's own rule holds its tool; only the approver it names decides, and the task completes", async (t) => {
  const connector = await connectorOf(KEYS.alice, CARL_HOLDS);
  t.deepEqual(connector.approval_rules, CARL_HOLDS, 'the record shows its rules');
  const created = await call(connector.id, KEYS.alice, 'slow_compute', { seconds: 0, label: 'owner-rule' });
  t.like(created.body.result, { resultType: 'task', status: 'input_required' }, JSON.stringify(created.body));
  const taskId = String(created.body.result?.taskId);
  const path = approvalPath(connector.id, taskId);
  t.is((await stack.api('GET', path, undefined, asKey(KEYS.alice))).status, 403, 'the owner, not named, may not see it');
  t.is((await stack.api('POST', path, { decision: 'approve' }, asKey(KEYS.alice))).status, 403, 'nor approve it');
  t.is((await stack.api('GET', path, undefined, asKey(KEYS.bob))).status, 404, 'another owner is told nothing exists');
  t.is((await stack.api('POST', path, { decision: 'approve' }, asKey(KEYS.bob))).status, 404);
  t.is((await stack.api('POST', path, { decision: 'approve' }, asKey(KEYS.ann))).status, 404, "the operator's approver is not named by this rule");
  t.is(seen('owner-rule'), 0, 'the server saw nothing before the approval');
  const shown = await stack.api('GET', path, undefined, asKey(KEYS.carl));
  t.like(shown.body, { tool: 'slow_compute', requested_by: 'key:alice', state: 'pending', approvers: ['key:carl'] });
  const approved = await stack.api('POST', path, { decision: 'approve' }, asKey(KEYS.carl));
  t.like(approved.body, { state: 'approved', decided_by: 'key:carl' });
  const done = await settled(connector.id, KEYS.alice, taskId);
  t.is(done.status, 'completed');
  t.deepEqual(done.result?.content, [{ type: 'text', text: 'computed owner-rule after 0s' }]);
  t.is(seen('owner-rule'), 1);
});

test.serial("the operator's rules match first: a connector's rule naming the same tool cannot change who approves it", async (t) => {
  const connector = await connectorOf(KEYS.alice, CARL_HOLDS);
  const created = await call(connector.id, KEYS.alice, 'greet', { name: 'operator-first' });
  const taskId = String(created.body.result?.taskId);
  const path = approvalPath(connector.id, taskId);
  t.is((await stack.api('POST', path, { decision: 'approve' }, asKey(KEYS.carl))).status, 404, "the connector's approver is not this call's");
  t.like((await stack.api('POST', path, { decision: 'approve' }, asKey(KEYS.ann))).body, { state: 'approved', decided_by: 'key:ann' });
  const done = await settled(connector.id, KEYS.alice, taskId);
  t.deepEqual(done.result?.content, [{ type: 'text', text: 'Hello, operator-first!' }]);
});

test.serial("one owner's rules hold nothing on another owner's connector of the same server", async (t) => {
  await connectorOf(KEYS.alice, CARL_HOLDS);
  const bobs = await connectorOf(KEYS.bob);
  t.deepEqual(bobs.approval_rules, []);
  const answer = await call(bobs.id, KEYS.bob, 'slow_compute', { seconds: 0, label: 'bobs-call' }, false);
  t.deepEqual(answer.body.result?.content, [{ type: 'text', text: 'computed bobs-call after 0s' }], JSON.stringify(answer.body));
  t.is(seen('bobs-call'), 1);
});

test.serial('PATCH replaces the rules at once (null removes them); only the owner may, and malformed rules are refused with 422', async (t) => {
  const connector = await connectorOf(KEYS.alice);
  const path = `/api/v1/connectors/${connector.id}`;
  t.is((await stack.api('PATCH', path, { approval_rules: CARL_HOLDS }, asKey(KEYS.bob))).status, 404, "another owner's connector is not there");
  const patched = await stack.api('PATCH', path, { approval_rules: CARL_HOLDS }, asKey(KEYS.alice));
  t.is(patched.status, 200, patched.text);
  t.deepEqual(patched.body.approval_rules, CARL_HOLDS);
  t.deepEqual((await stack.api('GET', path, undefined, asKey(KEYS.alice))).body.approval_rules, CARL_HOLDS, 'projected');
  const events = await stack.api('GET', `${path}/events`, undefined, asKey(KEYS.alice));
  t.like(events.body.items.at(-1), { actor: 'key:alice', reason: 'approval rules set (2)' });
  const held = await call(connector.id, KEYS.alice, 'slow_compute', { seconds: 0, label: 'after-patch' }, false);
  t.is(held.body.error?.code, -32042, 'held from the next call on');
  t.is(seen('after-patch'), 0);

  t.deepEqual((await stack.api('PATCH', path, { approval_rules: null }, asKey(KEYS.alice))).body.approval_rules, []);
  const free = await call(connector.id, KEYS.alice, 'slow_compute', { seconds: 0, label: 'rules-removed' }, false);
  t.deepEqual(free.body.result?.content, [{ type: 'text', text: 'computed rules-removed after 0s' }], JSON.stringify(free.body));

  const bad = [
    [{ tools: 'x', approvers: ['carl'] }],
    [{ tools: 'x', approvers: [] }],
    [{ approvers: ['key:carl'] }],
    [{ tools: 'x', approvers: ['key:carl'], timeout_seconds: 0 }],
    [{ tools: 'x', approvers: ['key:carl'], extra: true }],
    Array.from({ length: 65 }, () => ({ tools: 'x', approvers: ['key:carl'] })),
  ];
  for (const rules of bad) {
    const refused = await stack.api('PATCH', path, { approval_rules: rules }, asKey(KEYS.alice));
    t.is(refused.status, 422, JSON.stringify(rules).slice(0, 80));
    t.is(refused.headers.get('content-type'), 'application/problem+json');
    t.true(Array.isArray(refused.body.errors) && refused.body.errors.length > 0, refused.text);
  }
  t.is((await stack.api('POST', '/api/v1/connectors', { url: upstream.url, match_preset: false, approval_rules: bad[0] }, asKey(KEYS.alice))).status, 422);
  t.is((await stack.api('POST', '/api/v1/toolsets', { name: 'bad', members: [], approval_rules: bad[1] }, asKey(KEYS.alice))).status, 422);
});

test.serial("a toolset's rule holds its prefixed tool: the call becomes a task on the member's connector, approved, then its result", async (t) => {
  const member = await connectorOf(KEYS.alice);
  const rules = [{ tools: 'm__slow_compute', approvers: ['key:carl'] }];
  const toolset = await stack.api('POST', '/api/v1/toolsets', { name: 'held', members: [{ connector_id: member.id, prefix: 'm' }], approval_rules: rules }, asKey(KEYS.alice));
  t.is(toolset.status, 201, toolset.text);
  t.deepEqual(toolset.body.approval_rules, rules);
  const url = String(toolset.body.mcp_url);
  const rpc = (method: string, params: Record<string, unknown>, name: string, declared = true) =>
    mcpRpc(url, method, params, name, { headers: asKey(KEYS.alice), declared, toolset: true });

  const undeclared = await rpc('tools/call', { name: 'm__slow_compute', arguments: { seconds: 0, label: 'toolset-undeclared' } }, 'm__slow_compute', false);
  t.is(undeclared.body.error?.code, -32042, JSON.stringify(undeclared.body));
  t.is(seen('toolset-undeclared'), 0);

  const created = await rpc('tools/call', { name: 'm__slow_compute', arguments: { seconds: 0, label: 'via-toolset' } }, 'm__slow_compute');
  t.like(created.body.result, { resultType: 'task', status: 'input_required' }, JSON.stringify(created.body));
  const taskId = String(created.body.result?.taskId);
  t.true(taskId.startsWith('m__'), 'the id is the toolset\'s');
  const waiting = (await rpc('tasks/get', { taskId }, taskId)).body.result;
  t.is(waiting?.status, 'input_required');
  const page = String(waiting?.inputRequests?.approval?.params?.url);
  const memberTaskId = /\/connectors\/[0-9a-f-]+\/tasks\/([0-9a-f-]+)\/approval$/.exec(page)?.[1];
  t.true(page.startsWith(`${stack.baseUrl}/#/connectors/${member.id}/tasks/`), page);
  t.is((await stack.api('POST', approvalPath(member.id, memberTaskId!), { decision: 'approve' }, asKey(KEYS.alice))).status, 403, 'the owner is not named');
  t.is(seen('via-toolset'), 0);
  t.like((await stack.api('POST', approvalPath(member.id, memberTaskId!), { decision: 'approve' }, asKey(KEYS.carl))).body, { state: 'approved', decided_by: 'key:carl' });
  const done = await eventually(async () => {
    const task = (await rpc('tasks/get', { taskId }, taskId)).body.result;
    return task?.status === 'completed' || task?.status === 'failed' ? task : undefined;
  }, 30_000, 'the toolset task to end');
  t.is(done.status, 'completed');
  t.deepEqual(done.result?.content, [{ type: 'text', text: 'computed via-toolset after 0s' }]);
  t.is(seen('via-toolset'), 1);

  // Unnamed by the toolset's rules, the same tool on the member's own path is not held.
  const direct = await call(member.id, KEYS.alice, 'slow_compute', { seconds: 0, label: 'member-direct' }, false);
  t.deepEqual(direct.body.result?.content, [{ type: 'text', text: 'computed member-direct after 0s' }]);
});

test.serial("through a toolset, the member connector's own rule holds its tool, for a server that runs tasks itself too: tasks/get is the service's", async (t) => {
  const member = await connectorOf(KEYS.alice, CARL_HOLDS, native);
  const toolset = await stack.api('POST', '/api/v1/toolsets', { name: 'native-held', members: [{ connector_id: member.id, prefix: 'n' }] }, asKey(KEYS.alice));
  t.is(toolset.status, 201, toolset.text);
  const rpc = (method: string, params: Record<string, unknown>, name: string) =>
    mcpRpc(String(toolset.body.mcp_url), method, params, name, { headers: asKey(KEYS.alice), toolset: true });
  const created = await rpc('tools/call', { name: 'n__slow_compute', arguments: { seconds: 0, label: 'native-member' } }, 'n__slow_compute');
  t.like(created.body.result, { resultType: 'task', status: 'input_required' }, JSON.stringify(created.body));
  const taskId = String(created.body.result?.taskId);
  const page = String((await rpc('tasks/get', { taskId }, taskId)).body.result?.inputRequests?.approval?.params?.url);
  const memberTaskId = /\/tasks\/([0-9a-f-]+)\/approval$/.exec(page)?.[1];
  t.is(native.calls.filter((c) => c.args.label === 'native-member').length, 0);
  t.is((await stack.api('POST', approvalPath(member.id, memberTaskId!), { decision: 'approve' }, asKey(KEYS.carl))).status, 200);
  const done = await eventually(async () => {
    const task = (await rpc('tasks/get', { taskId }, taskId)).body.result;
    return task?.status === 'completed' || task?.status === 'failed' ? task : undefined;
  }, 30_000, 'the toolset task to end');
  t.deepEqual(done.result?.content, [{ type: 'text', text: 'computed native-member after 0s' }]);
  t.is(native.calls.filter((c) => c.args.label === 'native-member').length, 1);
});
