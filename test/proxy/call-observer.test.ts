// What the proxy records of each call, read from a sink beside the real proxy and the reference
// server: the method and the name are the body's (headers that disagree are refused, see
// rpc-headers.test.ts); a batch and a body that is not JSON are recorded as such and relayed as
// usual; a caller's session header is kept.
import test from 'ava';
import { auditedName, type CallEntry } from '../../contract/call-record';
import { staticRoutes } from '../../proxy/static-routes';
import { startEverythingServer } from '../fixtures/everything-server';
import { eventually } from '../helpers/test-stack';
import { startProxy } from './proxy-harness';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

test('the body names the method and name; batches and junk are recorded as such', async (t) => {
  const everything = await startEverythingServer();
  const recorded: CallEntry[] = [];
  const proxy = await startProxy(staticRoutes({ everything: { kind: 'connected', target: everything.url } }), { audit: { record: (e) => void recorded.push(e) } });
  t.teardown(async () => {
    await proxy.close();
    await everything.stop();
  });
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(proxy.mcpUrl('everything'), { method: 'POST', headers: { ...HEADERS, ...headers }, body }).then(async (res) => ({ status: res.status, text: await res.text() }));

  const initialized = await post(JSON.stringify(INIT), { 'mcp-method': 'initialize' });
  // The answer's text says who refused it (seen once: a 404 under a full npm test on Node 24).
  t.is(initialized.status, 200, initialized.text.slice(0, 300));
  const batch = await post(JSON.stringify([INIT]), { 'mcp-session-id': 'session-from-caller' });
  const junk = await post('this is not JSON');
  t.true(junk.status >= 400, 'the server refuses it, the proxy relays that');
  await eventually(async () => (recorded.length === 3 ? true : undefined), 5_000, 'three calls recorded');

  const [named, batched, unreadable] = recorded;
  t.is(named!.rpcMethod, 'initialize');
  t.is(named!.rpcName, null, 'initialize names nothing');
  t.truthy(named!.sessionId, 'the session the answer gave');
  t.is(batched!.body, 'batch');
  t.is(batched!.rpcMethod, null);
  t.is(batched!.sessionId, 'session-from-caller');
  t.is(batched!.status, batch.status);
  t.is(unreadable!.body, 'unreadable');
  t.is(unreadable!.status, junk.status);
  t.is(unreadable!.requestBytes, 'this is not JSON'.length);
  t.true(recorded.every((e) => e.connectorId === 'everything' && e.caller === null && e.httpMethod === 'POST'));
});

test('a resource URI is recorded without its user info, query or fragment, from the body or the Mcp-Name header', async (t) => {
  const everything = await startEverythingServer();
  const recorded: CallEntry[] = [];
  const proxy = await startProxy(staticRoutes({ everything: { kind: 'connected', target: everything.url } }), { audit: { record: (e) => void recorded.push(e) } });
  t.teardown(async () => {
    await proxy.close();
    await everything.stop();
  });
  const read = (uri: string, headers: Record<string, string> = {}) => fetch(proxy.mcpUrl('everything'), {
    method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri } }),
  }).then((res) => res.text());
  await read('demo://resource/static/document/1?token=body-secret-1#part-2');
  const signed = 'https://u:header-pass-3@files.example/report.pdf?sig=header-secret-4';
  await read(signed, { 'mcp-method': 'resources/read', 'mcp-name': signed });
  await eventually(async () => (recorded.length === 2 ? true : undefined), 5_000, 'two calls recorded');
  t.deepEqual(recorded.map((e) => [e.rpcMethod, e.rpcName]), [
    ['resources/read', 'demo://resource/static/document/1'],
    ['resources/read', 'https://files.example/report.pdf'],
  ]);
  t.false(JSON.stringify(recorded).match(/secret|pass|part-2/) !== null);
});

test('auditedName trims URIs only: tool and prompt names are kept as they are', (t) => {
  t.is(auditedName('resources/subscribe', 'file:///srv/a.csv?x=1'), 'file:///srv/a.csv');
  t.is(auditedName('tools/call', 'echo'), 'echo');
  t.is(auditedName('prompts/get', 'summary'), 'summary');
  t.is(auditedName(null, 'db://orders?customer=42'), 'db://orders', 'a name with a scheme, whatever the method');
  t.is(auditedName('resources/read', null), null);
});
