// The gateway's HTTP surface with real stdio servers: initialize and tools through it, health,
// session lifecycle (DELETE, idle timeout, unknown ids), the GET stream.
import test from 'ava';
import { ProcessSource } from '../../gateway/process-source';
import { startGateway } from '../../gateway/start-gateway';
import { connect, eventually, INITIALIZE, post } from './support/clients';
import { readSseMessages } from './support/sse';
import { everythingSource, memorySource, quietLogger } from './support/stdio-servers';

test('serves server-memory: initialize, its identity and its tools through the gateway', async (t) => {
  const gateway = await startGateway({ source: memorySource(), port: 0, logger: quietLogger });
  t.teardown(() => gateway.close());
  await gateway.ready;
  const health = await fetch(new URL('/healthz', gateway.url));
  t.is(health.status, 200);
  t.like(await health.json(), { status: 'ok', state: 'ready' });

  const { client } = await connect(gateway.url, 'memory-client');
  t.is(client.getServerVersion()?.name, 'memory-server');
  const { tools } = await client.listTools();
  t.true(tools.some((tool) => tool.name === 'create_entities'));
  await client.callTool({
    name: 'create_entities',
    arguments: { entities: [{ name: 'gateway', entityType: 'program', observations: ['serves stdio as HTTP'] }] },
  });
  const graph = await client.callTool({ name: 'read_graph', arguments: {} });
  t.regex(JSON.stringify(graph.content), /serves stdio as HTTP/);
  await client.close();
});

test('answers each initialize itself, negotiating the version and passing on instructions', async (t) => {
  const gateway = await startGateway({ source: everythingSource(), port: 0, logger: quietLogger });
  t.teardown(() => gateway.close());
  const response = await post(gateway.url, INITIALIZE);
  t.is(response.status, 200);
  t.truthy(response.headers.get('mcp-session-id'));
  const [answer] = await readSseMessages(response, 1);
  t.like(answer, { id: 1, result: { protocolVersion: '2025-06-18', serverInfo: { name: 'mcp-servers/everything' } } });
  t.regex(String((answer as { result: { instructions?: string } }).result.instructions), /Everything Server/);
  t.true('tools' in (answer as { result: { capabilities: object } }).result.capabilities);
});

test('is also served at / and refuses what is not a session', async (t) => {
  const gateway = await startGateway({ source: everythingSource(), port: 0, logger: quietLogger });
  t.teardown(() => gateway.close());
  const root = new URL('/', gateway.url).href;
  const { client } = await connect(root, 'root-client');
  t.true((await client.listTools()).tools.length > 0);

  const unknown = await post(gateway.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, 'no-such-session');
  t.is(unknown.status, 404);
  t.like(await unknown.json(), { error: { code: -32001 } });
  const sessionless = await post(gateway.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
  t.is(sessionless.status, 400);
  t.is((await fetch(new URL('/elsewhere', gateway.url))).status, 404);
  await client.close();
});

test('DELETE ends a session: later requests with its id get 404', async (t) => {
  const gateway = await startGateway({ source: everythingSource(), port: 0, logger: quietLogger });
  t.teardown(() => gateway.close());
  const { client, transport, sessionId } = await connect(gateway.url, 'deleting-client');
  await client.ping();
  await transport.terminateSession();
  t.false(gateway.sessions().some((s) => s.id === sessionId));
  const after = await post(gateway.url, { jsonrpc: '2.0', id: 7, method: 'tools/list' }, sessionId);
  t.is(after.status, 404);
  await client.close();
});

test('a session with nothing open and nothing pending ends after the idle timeout', async (t) => {
  const gateway = await startGateway({ source: everythingSource(), port: 0, idleTimeoutMs: 300, logger: quietLogger });
  t.teardown(() => gateway.close());
  // Raw requests: the SDK client would keep a GET stream open, which counts as activity.
  const init = await post(gateway.url, INITIALIZE);
  const sessionId = init.headers.get('mcp-session-id') ?? '';
  t.like((await readSseMessages(init, 1))[0], { id: 1, result: { serverInfo: { name: 'mcp-servers/everything' } } });
  await eventually(() => !gateway.sessions().some((s) => s.id === sessionId) || undefined, 'the idle session to end');
  const after = await post(gateway.url, { jsonrpc: '2.0', id: 3, method: 'ping' }, sessionId);
  t.is(after.status, 404);
});

test('a GET stream delivers server-initiated messages to its session', async (t) => {
  const gateway = await startGateway({ source: everythingSource(), port: 0, logger: quietLogger });
  t.teardown(() => gateway.close());
  const init = await post(gateway.url, INITIALIZE);
  const sessionId = init.headers.get('mcp-session-id') ?? '';
  await readSseMessages(init, 1);
  const stream = await fetch(gateway.url, {
    headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
  });
  t.is(stream.status, 200);
  t.is(stream.headers.get('content-type'), 'text/event-stream');
  await eventually(() => gateway.sessions().find((s) => s.id === sessionId)?.listening, 'the GET stream');

  // Another session makes the server register a resource: every session hears list_changed.
  const { client } = await connect(gateway.url, 'resource-maker');
  await client.callTool({ name: 'gzip-file-as-resource', arguments: { name: 'get.txt.gz', data: 'data:text/plain,hello' } });
  // The reference server may also announce other list changes around it (seen on Node 24: a
  // tools/list_changed, once seen five times in a row), so the stream is read until the one this
  // call causes; the bound only keeps a server that never sends it from being read forever.
  const isResourcesChanged = (m: unknown) => (m as { method?: string }).method === 'notifications/resources/list_changed';
  const received = await readSseMessages(stream, 100, isResourcesChanged);
  t.true(received.some(isResourcesChanged), JSON.stringify(received));
  await client.close();
});

test('health is 503 while the stdio server has not answered initialize', async (t) => {
  // A stand-in for a server that hangs at start-up: a process that never reads or writes.
  const silent = new ProcessSource({ command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] });
  const gateway = await startGateway({ source: silent, port: 0, logger: quietLogger });
  t.teardown(() => gateway.close());
  const health = await fetch(new URL('/healthz', gateway.url));
  t.is(health.status, 503);
  t.like(await health.json(), { status: 'unavailable', state: 'starting' });
});
