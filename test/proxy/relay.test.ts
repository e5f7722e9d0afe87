// The proxy between a real MCP SDK client and a real SDK server: credentials, headers, sessions,
// streaming, the GET stream, resumption and session termination.
import http from 'node:http';
import anyTest, { type TestFn } from 'ava';
import { CallToolResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { staticRoutes } from '../../proxy/static-routes';
import { startRecordingMcpServer, type RecordingMcpServer } from '../fixtures/recording-mcp-server';
import { connectClient, startProxy, type ProxyHarness } from './proxy-harness';

const TOKEN = 'connector-token';
const test = anyTest as TestFn<{ upstream: RecordingMcpServer; proxy: ProxyHarness; unauthorized: string[]; invalidated: string[] }>;

test.before(async (t) => {
  const upstream = await startRecordingMcpServer({
    requireToken: TOKEN,
    responseHeaders: { 'set-cookie': 'upstream-session=1', 'x-upstream-internal': 'yes' },
  });
  const unauthorized: string[] = [];
  const invalidated: string[] = [];
  const table = staticRoutes({
    conn: { kind: 'connected', target: upstream.url, token: TOKEN },
    tenant: { kind: 'connected', target: `${upstream.url}?tenant=acme`, token: TOKEN },
    stale: { kind: 'connected', target: upstream.url, token: 'revoked-token' },
  });
  const routes = { get: table.get, invalidate: (id: string) => void invalidated.push(id) };
  const proxy = await startProxy(routes, { onUpstreamUnauthorized: (id) => void unauthorized.push(id) });
  t.context = { upstream, proxy, unauthorized, invalidated };
});

test.after.always(async (t) => {
  await t.context.proxy?.close();
  await t.context.upstream?.close();
});

const sessionRequests = (upstream: RecordingMcpServer, sessionId: string | undefined) =>
  upstream.requests.filter((r) => r.headers['mcp-session-id'] === sessionId);

test("the connector's token replaces the caller's credentials and only MCP headers cross", async (t) => {
  const { upstream, proxy } = t.context;
  const responses: Response[] = [];
  const { client, transport } = await connectClient(proxy.mcpUrl('conn'), {
    requestInit: {
      headers: {
        Authorization: 'Bearer caller-secret',
        Cookie: 'caller-session=1',
        'Proxy-Authorization': 'Basic Y2FsbGVyOnNlY3JldA==',
        'X-Forwarded-For': '203.0.113.9',
        'X-Forwarded-Host': 'attacker.test',
        Forwarded: 'for=203.0.113.9',
        'X-Custom': 'not-for-upstream',
      },
    },
    fetch: async (url, init) => {
      // The 2026-07-28 headers, on the call they describe (the proxy refuses them on any other).
      if (typeof init?.body === 'string' && init.body.includes('"tools/call"')) {
        const headers = new Headers(init.headers);
        headers.set('Mcp-Method', 'tools/call');
        headers.set('Mcp-Name', 'echo');
        headers.set('Mcp-Param-Text', 'hello');
        init = { ...init, headers };
      }
      const response = await fetch(url, init);
      responses.push(response);
      return response;
    },
  });
  const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  t.deepEqual(result.content, [{ type: 'text', text: 'hello' }]);

  const call = sessionRequests(upstream, transport.sessionId).find((r) => r.toolName === 'echo');
  t.truthy(call);
  const h = call!.headers;
  t.is(h.authorization, `Bearer ${TOKEN}`);
  for (const name of ['cookie', 'proxy-authorization', 'x-forwarded-for', 'x-forwarded-host', 'forwarded', 'x-custom']) {
    t.is(h[name], undefined, `${name} must not reach the upstream`);
  }
  t.is(h['mcp-method'], 'tools/call');
  t.is(h['mcp-name'], 'echo');
  t.is(h['mcp-param-text'], 'hello');
  t.is(h['mcp-protocol-version'], transport.protocolVersion);
  t.is(h.host, new URL(upstream.url).host);

  const initialize = responses[0]!;
  t.is(initialize.headers.get('mcp-session-id'), transport.sessionId!);
  t.is(initialize.headers.get('x-accel-buffering'), 'no');
  t.is(initialize.headers.get('cache-control'), 'no-cache, no-transform'); // the SDK server's
  t.deepEqual(initialize.headers.getSetCookie(), []);
  t.is(initialize.headers.get('x-upstream-internal'), null);
  await client.close();
});

test('hop-by-hop headers and those named by Connection are not forwarded; a chunked body still arrives', async (t) => {
  const { upstream, proxy } = t.context;
  const body = JSON.stringify({
    jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  const { status } = await rawPost(proxy.mcpUrl('conn'), body, {
    connection: 'keep-alive, x-hop-secret',
    'x-hop-secret': 'per-connection',
    'keep-alive': 'timeout=5',
    te: 'trailers',
    'proxy-connection': 'keep-alive',
  });
  t.is(status, 200);
  const init = upstream.requests.find((r) => r.rpcMethod === 'initialize' && r.headers['transfer-encoding'] === 'chunked');
  t.truthy(init, 'the body, sent in chunks, was relayed and parsed upstream');
  for (const r of upstream.requests) {
    for (const name of ['x-hop-secret', 'keep-alive', 'te', 'proxy-connection']) t.is(r.headers[name], undefined);
  }
});

test('progress notifications are relayed one by one, each before the server emits the next', async (t) => {
  const { proxy } = t.context;
  const { client } = await connectClient(proxy.mcpUrl('conn'));
  const received: number[] = [];
  const acks: Promise<unknown>[] = [];
  const result = await client.callTool({ name: 'stream_progress', arguments: { count: 5, delayMs: 0, waitForAck: true } }, undefined, {
    onprogress: ({ progress }) => {
      received.push(progress);
      // The server sends progress k+1 only after this acknowledgement of k has reached it.
      acks.push(client.callTool({ name: 'ack', arguments: { progress } }));
    },
  });
  const report = JSON.parse((result.content as { text: string }[])[0]!.text) as { acknowledged: number[] };
  t.deepEqual(received, [1, 2, 3, 4, 5]);
  t.deepEqual(report.acknowledged, [1, 2, 3, 4, 5]);
  await Promise.all(acks);
  await client.close();
});

test('the session id makes the round trip and DELETE ends the session upstream', async (t) => {
  const { upstream, proxy } = t.context;
  const { client, transport } = await connectClient(proxy.mcpUrl('conn'));
  const sessionId = transport.sessionId;
  t.truthy(sessionId);
  t.true(upstream.sessionIds().includes(sessionId!));
  await client.callTool({ name: 'echo', arguments: { text: 'in session' } });
  t.true(sessionRequests(upstream, sessionId).some((r) => r.toolName === 'echo'));

  await transport.terminateSession();
  const deletion = upstream.requests.find((r) => r.method === 'DELETE' && r.headers['mcp-session-id'] === sessionId);
  t.truthy(deletion);
  t.is(await deletion!.responded, 200);
  t.false(upstream.sessionIds().includes(sessionId!));
  await client.close();
});

test("the client's GET stream carries the server's own notifications", async (t) => {
  const { upstream, proxy } = t.context;
  const { client, transport } = await connectClient(proxy.mcpUrl('conn'));
  const stream = await upstream.waitForRequest((r) => r.method === 'GET' && r.headers['mcp-session-id'] === transport.sessionId);
  t.is(await stream.responded, 200);
  t.is(stream.headers.accept, 'text/event-stream');
  t.is(stream.headers.authorization, `Bearer ${TOKEN}`);

  const notified = new Promise<string>((resolve) => {
    client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => resolve(n.method));
  });
  await client.callTool({ name: 'announce', arguments: {} });
  t.is(await notified, 'notifications/tools/list_changed');
  await client.close();
});

test('Last-Event-ID is relayed and the server replays the stream', async (t) => {
  const { upstream, proxy } = t.context;
  const { client, transport } = await connectClient(proxy.mcpUrl('conn'));
  const request = { method: 'tools/call' as const, params: { name: 'stream_progress', arguments: { count: 3, delayMs: 0 } } };
  const eventIds: string[] = [];
  const first = await client.request(request, CallToolResultSchema, {
    onprogress: () => undefined,
    onresumptiontoken: (id) => void eventIds.push(id),
  });
  t.true(eventIds.length >= 4, 'priming or progress events and the result carry ids');

  client.onerror = () => undefined; // replayed progress belongs to the first call's token
  const replayed = await client.request(request, CallToolResultSchema, { resumptionToken: eventIds[0] });
  t.deepEqual(replayed, first);
  const resume = upstream.requests.find((r) => r.method === 'GET' && r.headers['last-event-id'] === eventIds[0]);
  t.truthy(resume);
  t.is(resume!.headers['mcp-session-id'], transport.sessionId);
  await client.close();
});

test("the caller's query is appended to the target's, which it cannot override", async (t) => {
  const { upstream, proxy } = t.context;
  const { client, transport } = await connectClient(proxy.mcpUrl('tenant', '?tenant=other&trace=1'));
  const init = sessionRequests(upstream, transport.sessionId)[0];
  t.truthy(init);
  t.is(init!.url, '/mcp?tenant=acme&trace=1');
  await client.close();
});

test("an upstream 401 never reaches the client with the upstream's WWW-Authenticate, and the route is refreshed", async (t) => {
  const { proxy, unauthorized, invalidated } = t.context;
  const response = await fetch(proxy.mcpUrl('stale'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  t.is(response.status, 502, 'a static route table has no registry to report to');
  t.is(response.headers.get('www-authenticate'), null);
  t.true(unauthorized.includes('stale'));
  t.true(invalidated.includes('stale'));
});

function rawPost(url: string, body: string, headers: Record<string, string>): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
    // Two writes and no Content-Length: Node sends the body chunked.
    req.write(body.slice(0, 10));
    req.end(body.slice(10));
  });
}
