// A client that goes away must not leave its upstream request open: http-proxy alone would not
// notice (Node no longer fires 'aborted' once a request body has been read), and an abandoned
// SSE stream would hold an upstream connection and a server stream for as long as it lasts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import anyTest, { type TestFn } from 'ava';
import { staticRoutes } from '../../proxy/static-routes';
import { startRecordingMcpServer, type RecordingMcpServer } from '../fixtures/recording-mcp-server';
import { connectClient, startProxy, type ProxyHarness } from './proxy-harness';

const test = anyTest as TestFn<{ upstream: RecordingMcpServer; silent: SilentServer; proxy: ProxyHarness }>;

test.before(async (t) => {
  const upstream = await startRecordingMcpServer();
  const silent = await startSilentServer();
  const proxy = await startProxy(staticRoutes({
    conn: { kind: 'connected', target: upstream.url, token: 't' },
    silent: { kind: 'connected', target: silent.url },
  }));
  t.context = { upstream, silent, proxy };
});

test.after.always(async (t) => {
  await t.context.proxy?.close();
  await t.context.upstream?.close();
  await t.context.silent?.close();
});

// Each wait below ends only when the upstream sees the close; t.timeout bounds a failure.
test('dropping a client mid-way through a POST answered with SSE closes the upstream request', async (t) => {
  t.timeout(30_000);
  const { upstream, proxy } = t.context;
  const { client, transport } = await connectClient(proxy.mcpUrl('conn'));
  const call = JSON.stringify({
    jsonrpc: '2.0', id: 99, method: 'tools/call',
    params: { name: 'stream_progress', arguments: { count: 10_000, delayMs: 50 }, _meta: { progressToken: 'p' } },
  });
  const req = http.request(proxy.mcpUrl('conn'), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': transport.sessionId!,
      'mcp-protocol-version': transport.protocolVersion!,
    },
  });
  const firstProgress = new Promise<string>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('notifications/progress')) resolve(res.headers['content-type'] ?? '');
      });
    });
    req.on('error', reject);
  });
  req.end(call);
  t.is(await firstProgress, 'text/event-stream');

  const upstreamCall = await upstream.waitForRequest((r) => r.toolName === 'stream_progress' && r.headers['mcp-session-id'] === transport.sessionId);
  req.destroy();
  t.deepEqual(await upstreamCall.closed, { finished: false });
  await client.close();
});

test('closing a client closes its GET stream upstream', async (t) => {
  t.timeout(30_000);
  const { upstream, proxy } = t.context;
  const { client, transport } = await connectClient(proxy.mcpUrl('conn'));
  const stream = await upstream.waitForRequest((r) => r.method === 'GET' && r.headers['mcp-session-id'] === transport.sessionId);
  t.is(await stream.responded, 200);
  await client.close(); // aborts the GET stream's fetch; no DELETE is sent
  t.deepEqual(await stream.closed, { finished: false });
});

test('a client leaving before the upstream answered closes the upstream request', async (t) => {
  t.timeout(30_000);
  const { silent, proxy } = t.context;
  const req = http.request(proxy.mcpUrl('silent'), { method: 'GET', headers: { accept: 'text/event-stream' } });
  req.on('error', () => undefined);
  const arriving = silent.nextRequest();
  req.end();
  const arrived = await arriving;
  req.destroy();
  t.deepEqual(await arrived.closed, { answered: false });
});

interface SilentServer {
  url: string;
  nextRequest(): Promise<{ closed: Promise<{ answered: boolean }> }>;
  close(): Promise<void>;
}

/** Accepts requests and never answers them. */
async function startSilentServer(): Promise<SilentServer> {
  const pending: ((r: { closed: Promise<{ answered: boolean }> }) => void)[] = [];
  const server = http.createServer((req, res) => {
    const closed = new Promise<{ answered: boolean }>((resolve) => req.socket.once('close', () => resolve({ answered: res.headersSent })));
    pending.shift()?.({ closed });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    nextRequest: () => new Promise((resolve) => pending.push(resolve)),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
