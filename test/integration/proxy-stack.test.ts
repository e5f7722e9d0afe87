// The MCP proxy inside the real embedded stack: routes come from the connector workflows, tokens
// from their sealed state. Real SDK clients talk through it to a recording SDK server and to
// server-everything in streamableHttp mode.
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startRecordingMcpServer, type RecordingMcpServer } from '../fixtures/recording-mcp-server';
import { startEverythingServer, type EverythingServer } from '../fixtures/everything-server';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { mcpErrorOf } from '../proxy/mcp-answers';
import { RPC_ERROR } from '../../proxy/problem-response';

const TOKEN = 'proxy-stack-token-c0ffee';
let stack: TestStack;
let recording: RecordingMcpServer;
let everything: EverythingServer;

test.before(async () => {
  recording = await startRecordingMcpServer({ requireToken: TOKEN });
  everything = await startEverythingServer();
  stack = await startTestStack();
});

test.after.always(async () => {
  await stack?.stop();
  await recording?.close();
  await everything?.stop();
});

async function connected(url: string, token: string) {
  const { body: c } = await stack.api('POST', '/api/v1/connectors', { url });
  const res = await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: token });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return c as { id: string; mcp_url: string };
}

test('Bearer injected, caller credentials dropped, session id round trip, progress streamed, DELETE relayed', async (t) => {
  const c = await connected(recording.url, TOKEN);
  const transport = new StreamableHTTPClientTransport(new URL(c.mcp_url), {
    requestInit: { headers: { Authorization: 'Bearer caller-own-token', Cookie: 'session=caller' } },
  });
  const client = new Client({ name: 'proxy-stack', version: '1.0.0' });
  await client.connect(transport);
  const sessionId = transport.sessionId;
  t.truthy(sessionId);
  t.true(recording.sessionIds().includes(sessionId!), 'the upstream session id reached the client');

  const received: number[] = [];
  const acks: Promise<unknown>[] = [];
  const result = await client.callTool({ name: 'stream_progress', arguments: { count: 4, delayMs: 0, waitForAck: true } }, undefined, {
    onprogress: ({ progress }) => {
      received.push(progress);
      acks.push(client.callTool({ name: 'ack', arguments: { progress } }));
    },
  });
  await Promise.all(acks);
  t.deepEqual(received, [1, 2, 3, 4]);
  t.deepEqual(JSON.parse((result.content as { text: string }[])[0]!.text).acknowledged, [1, 2, 3, 4], 'each event arrived before the next was sent');

  for (const request of recording.requests.filter((r) => r.headers['mcp-session-id'] === sessionId)) {
    t.is(request.headers.authorization, `Bearer ${TOKEN}`);
    t.is(request.headers.cookie, undefined);
  }
  await transport.terminateSession();
  const deleted = await recording.waitForRequest((r) => r.method === 'DELETE' && r.headers['mcp-session-id'] === sessionId);
  t.is(await deleted.responded, 200);
  await client.close();
});

test('server-everything through the stack: tools and progress', async (t) => {
  const c = await connected(everything.url, 'unused-token');
  const client = new Client({ name: 'proxy-stack', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(c.mcp_url)));
  const tools = (await client.listTools()).tools.map((tool) => tool.name);
  t.true(tools.includes('echo'));
  const progress: number[] = [];
  const longTool = tools.find((name) => /long/i.test(name))!;
  await client.callTool({ name: longTool, arguments: { duration: 1, steps: 3 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
  t.true(progress.length >= 2);
  await client.close();
});

test('404 for an unknown connector, 409 when not connected, and after a disconnect or delete answers, the old route is gone at once', async (t) => {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
  const unknown = await fetch(`${stack.baseUrl}/api/v1/connectors/00000000-0000-4000-8000-000000000000/mcp`, { method: 'POST', headers, body });
  t.is(unknown.status, 404);
  t.like((await mcpErrorOf(unknown)).rpc, { id: 1, code: RPC_ERROR.refused }, 'a JSON-RPC error with the request\'s id');

  const { body: fresh } = await stack.api('POST', '/api/v1/connectors', { url: recording.url });
  const notConnected = await fetch(fresh.mcp_url, { method: 'POST', headers, body });
  t.is(notConnected.status, 409);
  const notConnectedError = await mcpErrorOf(notConnected);
  t.like(notConnectedError.rpc, { id: 1, code: RPC_ERROR.notConnected }, 'not mistaken for a legacy SSE server: a JSON-RPC error');
  t.regex(notConnectedError.problem.detail ?? '', /created/);

  // The proxy has the route cached (a request just went through); the API in the same process
  // tells it of the change before it answers, so the very next request is refused.
  const c = await connected(recording.url, TOKEN);
  const client = new Client({ name: 'proxy-stack', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(c.mcp_url)));
  await client.close();
  t.is((await stack.api('POST', `/api/v1/connectors/${c.id}/disconnect`)).status, 200);
  const afterDisconnect = await fetch(c.mcp_url, { method: 'POST', headers, body });
  t.is(afterDisconnect.status, 409);
  t.is((await mcpErrorOf(afterDisconnect)).problem.connector_state, 'disconnected');

  const d = await connected(recording.url, TOKEN);
  const other = new Client({ name: 'proxy-stack', version: '1.0.0' });
  await other.connect(new StreamableHTTPClientTransport(new URL(d.mcp_url))); // relayed: the route is cached
  await other.close();
  t.is((await stack.api('DELETE', `/api/v1/connectors/${d.id}`)).status, 202);
  t.is((await fetch(d.mcp_url, { method: 'POST', headers, body })).status, 404);
});
