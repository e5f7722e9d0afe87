// Every way the proxy refuses or fails to relay answers with the right status: to a JSON-RPC
// request, a JSON-RPC error with the request's id, its documented code and the RFC 9457 problem in
// its data; to anything else (a GET stream, a body that is not JSON), the problem itself.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import anyTest, { type TestFn } from 'ava';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PROBLEM_CONTENT_TYPE } from '../../contract/problem';
import { RPC_ERROR } from '../../proxy/problem-response';
import { staticRoutes } from '../../proxy/static-routes';
import { mcpErrorOf } from './mcp-answers';
import { connectClient, startProxy, type ProxyHarness } from './proxy-harness';

interface Context {
  proxy: ProxyHarness;
  guarded: ProxyHarness;
  silent: http.Server;
  /** Only the guarded proxy's routes point here, and it must never be contacted. */
  forbidden: { server: http.Server; connections: number };
}
const test = anyTest as TestFn<Context>;

test.before(async (t) => {
  const closedPort = await unusedPort();
  const silent = await listenSilently();
  const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`;
  const forbidden = { server: await listenSilently(), connections: 0 };
  forbidden.server.on('connection', () => forbidden.connections++);
  const forbiddenUrl = `http://127.0.0.1:${(forbidden.server.address() as AddressInfo).port}/mcp`;
  const proxy = await startProxy(staticRoutes({
    pending: { kind: 'not_connected', state: 'auth_required' },
    refused: { kind: 'connected', target: `http://127.0.0.1:${closedPort}/mcp`, token: 't' },
    silent: { kind: 'connected', target: silentUrl },
    broken: { kind: 'connected', target: 'not a url' },
  }), { headersTimeoutMs: 300 });
  const guarded = await startProxy(staticRoutes({
    literal: { kind: 'connected', target: forbiddenUrl },
    named: { kind: 'connected', target: forbiddenUrl.replace('127.0.0.1', 'localhost') },
  }), { policy: { blockPrivateNetworks: true } });
  t.context = { proxy, guarded, silent, forbidden };
});

test.after.always(async (t) => {
  await t.context.proxy?.close();
  await t.context.guarded?.close();
  for (const server of [t.context.silent, t.context.forbidden?.server]) {
    server?.closeAllConnections();
    server?.close();
  }
});

const mcpPost = (url: string, method = 'POST') => fetch(url, {
  method,
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  body: method === 'POST' || method === 'PUT' ? JSON.stringify({ jsonrpc: '2.0', id: 'req-7', method: 'ping' }) : undefined,
});

/** The problem, and the JSON-RPC error it came in (every POST here is a JSON-RPC request with id 'req-7'). */
async function problemOf(response: Response) {
  const { status, contentType, rpc, problem } = await mcpErrorOf(response);
  return { status, contentType, rpc, body: problem };
}

test('an unknown connector is 404, a JSON-RPC error with the request\'s id', async (t) => {
  const { status, contentType, rpc, body } = await problemOf(await mcpPost(t.context.proxy.mcpUrl('nope')));
  t.is(status, 404);
  t.is(contentType, 'application/json');
  t.deepEqual(rpc, { id: 'req-7', code: RPC_ERROR.refused, message: 'No connector has this id.' });
  t.is(body.status, 404);
  t.is(body.title, 'Not Found');
});

test('requests that are not JSON-RPC keep problem details: a body that is not JSON, a DELETE', async (t) => {
  const notJson = await fetch(t.context.proxy.mcpUrl('nope'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'not json' });
  t.is(notJson.status, 404);
  t.is(notJson.headers.get('content-type'), PROBLEM_CONTENT_TYPE);
  const deleted = await fetch(t.context.proxy.mcpUrl('pending'), { method: 'DELETE' });
  t.is(deleted.status, 409);
  t.is(deleted.headers.get('content-type'), PROBLEM_CONTENT_TYPE);
});

test('an MCP client through the proxy sees the 404 as an HTTP error', async (t) => {
  const error = await t.throwsAsync(connectClient(t.context.proxy.mcpUrl('nope')));
  t.true(error instanceof StreamableHTTPError);
  t.is((error as StreamableHTTPError).code, 404);
});

test('a connector that is not connected is 409 and -32010, naming its state', async (t) => {
  const { status, rpc, body } = await problemOf(await mcpPost(t.context.proxy.mcpUrl('pending')));
  t.is(status, 409);
  t.like(rpc, { id: 'req-7', code: -32010 });
  t.is(body.state, 'auth_required');
  t.regex(body.detail ?? '', /auth_required/);
});

test('a refused connection is 502, upstream unreachable', async (t) => {
  const { status, rpc, body } = await problemOf(await mcpPost(t.context.proxy.mcpUrl('refused')));
  t.is(status, 502);
  t.like(rpc, { id: 'req-7', code: RPC_ERROR.upstreamUnreachable });
  t.regex(body.detail ?? '', /refused/);
});

test('an upstream that never answers is 504 after the headers timeout', async (t) => {
  const { status, rpc, body } = await problemOf(await mcpPost(t.context.proxy.mcpUrl('silent')));
  t.is(status, 504);
  t.like(rpc, { id: 'req-7', code: RPC_ERROR.upstreamTimeout });
  t.is(body.title, 'Gateway Timeout');
});

test('a GET stream that never starts is 504 too', async (t) => {
  const response = await fetch(t.context.proxy.mcpUrl('silent'), { headers: { accept: 'text/event-stream' } });
  t.is(response.status, 504);
  t.is(response.headers.get('content-type'), PROBLEM_CONTENT_TYPE);
});

test('an IP literal refused by the address policy is 502, and nothing is sent', async (t) => {
  const { status, rpc, body } = await problemOf(await mcpPost(t.context.guarded.mcpUrl('literal')));
  t.is(status, 502);
  t.like(rpc, { id: 'req-7', code: RPC_ERROR.upstreamUnreachable });
  t.regex(body.detail ?? '', /address policy/);
  t.is(t.context.forbidden.connections, 0);
});

test('a host name resolving to a refused address is 502 (the guarded lookup)', async (t) => {
  const { status, body } = await problemOf(await mcpPost(t.context.guarded.mcpUrl('named')));
  t.is(status, 502);
  t.regex(body.detail ?? '', /address policy/);
  t.is(t.context.forbidden.connections, 0);
});

test('a connector whose target is not a URL is 502', async (t) => {
  const { status } = await problemOf(await mcpPost(t.context.proxy.mcpUrl('broken')));
  t.is(status, 502);
});

test('methods other than POST, GET and DELETE are 405 with Allow', async (t) => {
  for (const method of ['PUT', 'PATCH', 'OPTIONS']) {
    const response = await mcpPost(t.context.proxy.mcpUrl('pending'), method);
    t.is(response.status, 405, method);
    t.is(response.headers.get('allow'), 'GET, POST, DELETE');
    t.is(((await response.json()) as { status: number }).status, 405);
  }
});

test('a route source that fails is 503 with Retry-After', async (t) => {
  const proxy = await startProxy({ get: () => Promise.reject(new Error('registry down')) });
  t.teardown(() => proxy.close());
  const response = await mcpPost(proxy.mcpUrl('any'));
  t.is(response.status, 503);
  t.is(response.headers.get('retry-after'), '1');
  const { rpc, body } = await problemOf(response);
  t.like(rpc, { id: 'req-7', code: RPC_ERROR.unavailable });
  t.is(body.retry_after, 1);
});

async function listenSilently(): Promise<http.Server> {
  const server = http.createServer(() => undefined); // accepts, never answers
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function unusedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
