// Mcp-Method and Mcp-Name (MCP 2026-07-28) against the body, through the proxy with callers on and
// a raw upstream that counts what reaches it: headers that agree are relayed unchanged (Mcp-Param-*
// too), headers that disagree answer 400 and nothing goes upstream, and the audit records what the
// body says either way, never what a header claims.
import test, { type ExecutionContext } from 'ava';
import type { CallEntry } from '../../contract/call-record';
import { decodeHeaderValue } from '../../proxy/rpc-headers';
import { eventually } from '../helpers/test-stack';
import { mcpErrorIn, type McpError } from './mcp-answers';
import { OWNER_A, labelOf, startTenantProxy, type TenantProxy } from './tenant-proxy';

interface Setup {
  s: TenantProxy;
  recorded: CallEntry[];
  post(label: string, body: string, headers?: Record<string, string>): Promise<{ status: number; error: McpError | null }>;
  arrived(label: string): number;
}

async function setup(t: ExecutionContext, limit?: number): Promise<Setup> {
  const recorded: CallEntry[] = [];
  const s = await startTenantProxy({ audit: { record: (e) => void recorded.push(e) }, checkedBodyLimitBytes: limit });
  t.teardown(() => s.close());
  return {
    s,
    recorded,
    async post(label, body, headers = {}) {
      const res = await fetch(`http://${s.host}/api/v1/connectors/${OWNER_A.connectorId}/mcp?case=${label}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${OWNER_A.apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body,
      });
      const text = await res.text();
      return { status: res.status, error: res.status === 200 ? null : mcpErrorIn(res.status, res.headers.get('content-type'), text) };
    },
    arrived: (label) => s.upstream.requests.filter((r) => labelOf(r.target) === label).length,
  };
}

const call = (name: string, extra = '') => `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":${JSON.stringify(name)}${extra},"arguments":{}}}`;

test('agreeing headers are relayed unchanged, Mcp-Param-* included; the audit records the body', async (t) => {
  const { s, recorded, post, arrived } = await setup(t);
  const answer = await post('agree', call('list_invoices'), { 'mcp-method': 'tools/call', 'mcp-name': 'list_invoices', 'mcp-param-region': 'eu' });
  t.is(answer.status, 200);
  t.is(arrived('agree'), 1);
  const upstream = s.upstream.requests[0]!;
  t.is(s.upstream.header(upstream, 'mcp-method'), 'tools/call');
  t.is(s.upstream.header(upstream, 'mcp-name'), 'list_invoices');
  t.is(s.upstream.header(upstream, 'mcp-param-region'), 'eu');
  t.is(upstream.body.toString(), call('list_invoices'));
  t.is(s.upstream.header(upstream, 'content-length'), String(call('list_invoices').length), 'read whole, so its length is declared');
  await eventually(async () => (recorded.length === 1 ? true : undefined), 10_000, 'the call recorded');
  t.like(recorded[0], { rpcMethod: 'tools/call', rpcName: 'list_invoices', status: 200, requestBytes: call('list_invoices').length });
});

test('a header that disagrees with the body answers 400 and nothing goes upstream; the audit keeps the body’s name', async (t) => {
  const { recorded, post, arrived } = await setup(t);
  const cases: [string, string, Record<string, string>][] = [
    ['other-name', call('delete_everything'), { 'mcp-method': 'tools/call', 'mcp-name': 'list_invoices' }],
    ['name-only', call('delete_everything'), { 'mcp-name': 'list_invoices' }],
    ['other-method', call('delete_everything'), { 'mcp-method': 'tools/list' }],
    ['name-on-unnamed-method', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { 'mcp-method': 'tools/list', 'mcp-name': 'x' }],
    ['uri-vs-name', '{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"name":"a","uri":"file:///b"}}', { 'mcp-method': 'resources/read', 'mcp-name': 'a' }],
    // JSON keeps the last of repeated keys, as the upstream will: a prefix reader would say "list_invoices".
    ['repeated-key', call('list_invoices', ',"name":"delete_everything"'), { 'mcp-method': 'tools/call', 'mcp-name': 'list_invoices' }],
    ['batch', `[${call('list_invoices')}]`, { 'mcp-method': 'tools/call', 'mcp-name': 'list_invoices' }],
    ['not-json', 'tools/call list_invoices', { 'mcp-method': 'tools/call' }],
    ['bad-base64', call('list_invoices'), { 'mcp-method': 'tools/call', 'mcp-name': '=?base64?not base64?=' }],
    ['two-methods', call('list_invoices'), { 'mcp-method': 'tools/call, tools/call' }],
  ];
  for (const [label, body, headers] of cases) {
    const answer = await post(label, body, headers);
    t.is(answer.status, 400, label);
    t.is(answer.error?.problem.type, 'https://connector-registry.dev/problems/header-mismatch', label);
    // A JSON-RPC request gets -32020 with its id; a body that is not JSON gets the problem alone.
    if (label === 'not-json') t.is(answer.error?.rpc, null, label);
    else t.like(answer.error?.rpc, { code: -32020, id: label === 'batch' ? null : JSON.parse(body).id }, label);
    t.is(arrived(label), 0, `${label}: nothing upstream`);
  }
  await eventually(async () => (recorded.length === cases.length ? true : undefined), 10_000, 'every call recorded');
  t.like(recorded[0], { rpcMethod: 'tools/call', rpcName: 'delete_everything', status: 400 });
  t.like(recorded[5], { rpcMethod: 'tools/call', rpcName: 'delete_everything', status: 400 }, 'the last of repeated keys');
  t.like(recorded[6], { body: 'batch', rpcMethod: null });
});

test('tasks/get, tasks/update and tasks/cancel: Mcp-Name carries the task id; a method the service does not know is relayed', async (t) => {
  const { post, arrived } = await setup(t);
  const task = (method: string, taskId: string) => JSON.stringify({ jsonrpc: '2.0', id: 9, method, params: { taskId } });
  for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
    t.is((await post(`${method}-agree`, task(method, 'task-786512e2'), { 'mcp-method': method, 'mcp-name': 'task-786512e2' })).status, 200, method);
    t.is(arrived(`${method}-agree`), 1, method);
    const other = await post(`${method}-other`, task(method, 'task-786512e2'), { 'mcp-method': method, 'mcp-name': 'task-someone-else' });
    t.like(other.error?.rpc, { id: 9, code: -32020 }, method);
    t.is(arrived(`${method}-other`), 0, method);
  }
  const unknown = JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'com.example/reindex', params: { collection: 'docs' } });
  t.is((await post('unknown-method', unknown, { 'mcp-method': 'com.example/reindex', 'mcp-name': 'docs' })).status, 200);
  t.is(arrived('unknown-method'), 1, 'relayed: what it names is for the server that knows the method');
  const lying = await post('unknown-method-other', unknown, { 'mcp-method': 'com.example/other' });
  t.is(lying.status, 400, 'Mcp-Method is still compared');
});

test('a name that is not plain ASCII is compared once decoded from its base64 form', async (t) => {
  const { recorded, post, arrived } = await setup(t);
  const name = 'résumé ✓';
  const encoded = `=?base64?${Buffer.from(name).toString('base64')}?=`;
  t.is((await post('encoded', call(name), { 'mcp-method': 'tools/call', 'mcp-name': encoded })).status, 200);
  t.is(arrived('encoded'), 1);
  t.is((await post('encoded-other', call('resume'), { 'mcp-method': 'tools/call', 'mcp-name': encoded })).status, 400);
  t.is(arrived('encoded-other'), 0);
  await eventually(async () => (recorded.length === 2 ? true : undefined), 10_000, 'both recorded');
  t.is(recorded[0]!.rpcName, name);
});

test('without the headers (the 2025 era) requests stream as before; batches too; the audit reads the body', async (t) => {
  const { recorded, post, arrived } = await setup(t);
  t.is((await post('plain', call('list_invoices'))).status, 200);
  t.is((await post('plain-batch', `[${call('list_invoices')}]`)).status, 200);
  t.is(arrived('plain') + arrived('plain-batch'), 2);
  await eventually(async () => (recorded.length === 2 ? true : undefined), 10_000, 'both recorded');
  t.like(recorded[0], { rpcMethod: 'tools/call', rpcName: 'list_invoices' });
  t.like(recorded[1], { body: 'batch' });
});

test('a body over the limit of bodies read whole answers 413, nothing upstream', async (t) => {
  const { post, arrived } = await setup(t, 1024);
  const big = call('x', `,"pad":"${'p'.repeat(2048)}"`);
  t.is((await post('big', big, { 'mcp-method': 'tools/call' })).status, 413);
  t.is(arrived('big'), 0);
  t.is((await post('big-2025', big)).status, 200, 'without the headers it streams, unbounded by that limit');
});

test('header values: plain as sent, =?base64?…?= decoded, anything malformed refused', (t) => {
  t.is(decodeHeaderValue('tools_call'), 'tools_call');
  t.is(decodeHeaderValue(`=?base64?${Buffer.from('é').toString('base64')}?=`), 'é');
  t.is(decodeHeaderValue('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='), '=?base64?literal?=');
  t.is(decodeHeaderValue('=?base64?***?='), null);
  t.is(decodeHeaderValue('=?base64?YQ?='), null, 'unpadded: not the canonical form');
  t.is(decodeHeaderValue(`=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`), null, 'not UTF-8');
});
