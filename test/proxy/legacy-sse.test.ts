// A connector whose server speaks the HTTP+SSE transport of 2024-11-05 (the SDK v1's own
// SSEServerTransport, behind a bearer token) is served at the proxy's MCP path as Streamable HTTP:
// SDK v1 and v2 clients list and call its tools, with progress, and a client that leaves mid-call
// has the call cancelled; the connector's token goes on the SSE stream's GET and on every POST to
// the endpoint, the caller's credentials never; two proxy replicas behind a balancer without
// affinity serve one client session; a caller's upstream sessions are bounded, closed when idle or
// when the connector leaves the server; an endpoint announced on another origin is refused unsent,
// a server that names none is answered 504; a refused token is refreshed once and the stream
// opened again.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import type { Route, RouteSource } from '../../proxy/route';
import { startLegacySseMcpServer, type LegacySseMcpServer } from '../fixtures/legacy-sse-mcp-server';
import { startBalancer } from '../helpers/round-robin-balancer';
import { portOf } from '../helpers/stack-process';
import { connectClient, startProxy } from './proxy-harness';

const CALLER = { authorization: 'Bearer caller-key-must-not-leave', cookie: 'session=caller' };
const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text;

function staticRoutes(server: LegacySseMcpServer, token: string): RouteSource {
  const route: Route = { kind: 'connected', target: server.url, token, sealedToken: `sealed-${token}`, transport: 'sse' };
  return { get: async () => route };
}

async function setup(t: { teardown(fn: () => Promise<void>): void }, token = 'conn-token') {
  const upstream = await startLegacySseMcpServer({ token });
  const proxy = await startProxy(staticRoutes(upstream, token));
  t.teardown(async () => {
    await proxy.close();
    await upstream.close();
  });
  return { upstream, proxy };
}

test('an SDK v1 client lists and calls the tools of an SSE server through the proxy, with the connector\'s token only', async (t) => {
  const { upstream, proxy } = await setup(t);
  const { client } = await connectClient(proxy.mcpUrl('conn'), { requestInit: { headers: CALLER } });
  t.is(client.getServerVersion()?.name, 'legacy-sse-test-server');
  t.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ['echo', 'count', 'wait', 'roots']);
  t.is(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hello' } })), 'sse: hello');
  const progress: number[] = [];
  const counted = await client.callTool({ name: 'count', arguments: { to: 3 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
  t.is(textOf(counted), 'counted to 3');
  t.deepEqual(progress, [1, 2, 3], 'progress reached the call that asked for it');
  await client.close();
  t.true(upstream.seen.some((s) => s.method === 'GET' && s.path === '/sse'), 'the stream was opened');
  t.true(upstream.seen.filter((s) => s.method === 'POST' && s.path === '/messages').length >= 4, 'messages went to the endpoint the server named');
  for (const seen of upstream.seen) t.is(seen.authorization, 'Bearer conn-token', `${seen.method} ${seen.path} carried the connector's token`);
});

for (const mode of ['legacy', 'auto'] as const) {
  test(`an SDK v2 client (version negotiation ${mode}) lists and calls the tools of an SSE server through the proxy`, async (t) => {
    const { upstream, proxy } = await setup(t);
    const client = new ClientV2({ name: 'sse-v2', version: '1' }, { versionNegotiation: { mode } });
    await client.connect(new TransportV2(new URL(proxy.mcpUrl('conn')), { requestInit: { headers: CALLER } }));
    t.is(client.getNegotiatedProtocolVersion(), '2025-11-25', 'a 2024-11-05 server is spoken to in the 2025 era');
    t.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ['echo', 'count', 'wait', 'roots']);
    t.is(textOf(await client.callTool({ name: 'echo', arguments: { text: 'v2' } })), 'sse: v2');
    await client.close();
    t.false(upstream.seen.some((s) => s.authorization?.includes('caller-key')), 'the caller\'s key never crossed');
  });
}

test('a client that leaves mid-call has the call cancelled on the server', async (t) => {
  const { upstream, proxy } = await setup(t);
  const { client } = await connectClient(proxy.mcpUrl('conn'));
  const call = client.callTool({ name: 'wait', arguments: {} });
  await until(() => upstream.waits.started === 1);
  await client.close(); // the request is cut, as by a client that goes away: no cancellation of its own
  await t.throwsAsync(call);
  await until(() => upstream.waits.cancelled === 1);
  t.is(upstream.waits.cancelled, 1, 'notifications/cancelled reached the server');
});

test('two proxy replicas behind a balancer without affinity serve one session, each with an upstream session of its own', async (t) => {
  const upstream = await startLegacySseMcpServer({ token: 'conn-token' });
  const replicas = [await startProxy(staticRoutes(upstream, 'conn-token')), await startProxy(staticRoutes(upstream, 'conn-token'))];
  const ports = replicas.map(portOf);
  const front = await startBalancer({ api: [], proxy: ports });
  t.teardown(async () => {
    await front.close();
    for (const replica of replicas) await replica.close();
    await upstream.close();
  });
  const { client } = await connectClient(`${front.url}/api/v1/connectors/conn/mcp`);
  for (const text of ['one', 'two', 'three']) t.is(textOf(await client.callTool({ name: 'echo', arguments: { text } })), `sse: ${text}`);
  const served = ports.map((port) => front.served.get(port) ?? 0);
  t.true(served.every((n) => n > 1), `each replica served requests (${served})`);
  t.is(upstream.seen.filter((s) => s.method === 'GET').length, 2, 'one upstream stream per replica');
  await client.close();
});

test('an endpoint announced on another origin is refused: nothing is sent there', async (t) => {
  const { upstream, proxy } = await setup(t);
  const elsewhere = await recorder();
  t.teardown(() => elsewhere.close());
  for (const endpoint of [`${elsewhere.url}/messages`, `//127.0.0.1:${new URL(elsewhere.url).port}/messages`, 'http://[::1']) {
    upstream.setHostileEndpoint(endpoint);
    const answer = await fetch(proxy.mcpUrl('conn'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
    });
    t.is(answer.status, 502, endpoint);
    t.regex((await answer.json() as { error: { message: string } }).error.message, /another origin/);
  }
  t.is(elsewhere.requests(), 0);
});

test('a server that names no endpoint is answered 504 once the wait is over', async (t) => {
  const upstream = await startLegacySseMcpServer({ token: 'conn-token' });
  const proxy = await startProxy(staticRoutes(upstream, 'conn-token'), { headersTimeoutMs: 300 });
  t.teardown(async () => {
    await proxy.close();
    await upstream.close();
  });
  upstream.setHostileEndpoint('');
  const answer = await fetch(proxy.mcpUrl('conn'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
  });
  t.is(answer.status, 504);
  t.regex((await answer.json() as { error: { message: string } }).error.message, /did not name its message endpoint/);
});

test('a refused token is refreshed once and the stream opened again with the new one', async (t) => {
  const upstream = await startLegacySseMcpServer({ token: 'new-token' });
  const refreshed: string[] = [];
  const route = (token: string): Route => ({ kind: 'connected', target: upstream.url, token, sealedToken: `sealed-${token}`, transport: 'sse' });
  let current = route('old-token');
  const proxy = await startProxy({
    get: async () => current,
    refresh: async (_id, sealed) => {
      refreshed.push(sealed);
      current = route('new-token');
      return current;
    },
  });
  t.teardown(async () => {
    await proxy.close();
    await upstream.close();
  });
  const { client } = await connectClient(proxy.mcpUrl('conn'));
  t.is(textOf(await client.callTool({ name: 'echo', arguments: { text: 'again' } })), 'sse: again');
  await client.close();
  t.deepEqual(refreshed, ['sealed-old-token']);
  t.deepEqual(upstream.seen.slice(0, 2).map((s) => s.authorization), ['Bearer old-token', 'Bearer new-token']);
});

test('DELETE ends the upstream session; an unknown session id is 404', async (t) => {
  const { upstream, proxy } = await setup(t);
  const { client, transport } = await connectClient(proxy.mcpUrl('conn'));
  t.is(upstream.sessions(), 1);
  await transport.terminateSession();
  await client.close();
  await until(() => upstream.sessions() === 0);
  t.is(upstream.sessions(), 0);
  const unknown = await fetch(proxy.mcpUrl('conn'), { headers: { accept: 'text/event-stream', 'mcp-session-id': 'not-ours' } });
  t.is(unknown.status, 404);
});

test('a caller\'s upstream sessions on a connector are bounded: a new one closes the oldest', async (t) => {
  const upstream = await startLegacySseMcpServer({ token: 'conn-token' });
  const proxy = await startProxy(staticRoutes(upstream, 'conn-token'), { legacySse: { maxPerCaller: 2 } });
  t.teardown(async () => {
    await proxy.close();
    await upstream.close();
  });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push(await initialize(proxy.mcpUrl('conn'), `c${i}`));
  t.is(new Set(ids).size, 3);
  await until(() => upstream.sessions() === 2);
  t.is(upstream.sessions(), 2, 'the third session closed the caller\'s first');
});

test('an upstream session unused for the idle time is closed', async (t) => {
  const upstream = await startLegacySseMcpServer({ token: 'conn-token' });
  const proxy = await startProxy(staticRoutes(upstream, 'conn-token'), { legacySse: { idleMs: 300 } });
  t.teardown(async () => {
    await proxy.close();
    await upstream.close();
  });
  await initialize(proxy.mcpUrl('conn'), 'idle');
  await until(() => upstream.sessions() === 0);
  t.is(upstream.sessions(), 0);
});

test('a transition closes the upstream sessions only when the connector left the server', async (t) => {
  const upstream = await startLegacySseMcpServer({ token: 'conn-token' });
  let route: Route = { kind: 'connected', target: upstream.url, token: 'conn-token', sealedToken: 'sealed-1', transport: 'sse' };
  let asked = 0;
  const proxy = await startProxy({ get: async () => (asked++, route) });
  t.teardown(async () => {
    await proxy.close();
    await upstream.close();
  });
  const sessionId = await initialize(proxy.mcpUrl('conn'), 'kept');
  const streams = () => upstream.seen.filter((s) => s.method === 'GET').length;
  route = { ...route, sealedToken: 'sealed-2' }; // a token renewed: the same server
  const before = asked;
  proxy.invalidate('conn');
  await until(() => asked > before);
  await new Promise((resolve) => setImmediate(resolve)); // the answer is acted on
  t.is(asked, before + 1, 'the proxy asked for the route after the transition');
  const listed = await fetch(proxy.mcpUrl('conn'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'mcp-session-id': sessionId },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  t.is(listed.status, 200);
  t.is(streams(), 1, 'the session was kept: no stream opened again');
  route = { kind: 'not_connected', state: 'disconnected' };
  proxy.invalidate('conn');
  await until(() => upstream.sessions() === 0);
  t.is(upstream.sessions(), 0, 'closed once the connector is disconnected');
});

async function initialize(url: string, name: string): Promise<string> {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name, version: '1' } } }),
  });
  if (answer.status !== 200) throw new Error(`initialize: ${answer.status} ${await answer.text()}`);
  return answer.headers.get('mcp-session-id')!;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; !check() && i < 1500; i++) await new Promise((resolve) => setTimeout(resolve, 20));
}

async function recorder() {
  let count = 0;
  const server = http.createServer((_req, res) => {
    count += 1;
    res.writeHead(202).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => count,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
