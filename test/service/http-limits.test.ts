// The service's HTTP server against slow and numerous clients, on loopback: a client that sends
// its headers slowly is cut off after the headers timeout, a connection beyond the cap is closed
// at once, and an SSE stream through the proxy is never cut by the request timeout (which covers
// receiving a request, not answering it).
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { createLogger } from '../../platform/logger';
import type { ServerLimits } from '../../platform/server-limits';
import { createMcpProxy } from '../../proxy/mcp-proxy';
import { staticRoutes } from '../../proxy/static-routes';
import { closeServer, createHttpServer, listen } from '../../service/http-server';

const log = createLogger('test-http-limits', process.env.LOG_LEVEL ?? 'silent');
const LONG: ServerLimits = { headersTimeoutMs: 60_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 60_000, maxConnections: 10_000 };

async function startService(limits: Partial<ServerLimits>, upstreamUrl = 'http://127.0.0.1:9/mcp') {
  const proxy = createMcpProxy({
    routes: staticRoutes({ sse: { kind: 'connected', target: upstreamUrl } }), policy: { blockPrivateNetworks: false }, logger: log,
  });
  const server = createHttpServer({
    proxy, origin: { baseUrl: 'http://127.0.0.1', allowedOrigins: [], authEnabled: false }, limits: { ...LONG, ...limits },
  });
  const port = await listen(server, 0, '127.0.0.1');
  return {
    port,
    async close() {
      await closeServer(server);
      proxy.close();
    },
  };
}

interface RawConnection {
  socket: net.Socket;
  /** Everything the server sent, once it closed the connection. */
  closed: Promise<string>;
  received(): string;
}

async function rawConnection(port: number): Promise<RawConnection> {
  const socket = net.connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(text)));
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return { socket, closed, received: () => text };
}

/** Starts the request line and then sends one short header line after another, never finishing. */
function slowloris(connection: RawConnection): void {
  connection.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  const timer = setInterval(() => connection.socket.write('X-Slow: 1\r\n'), 50);
  void connection.closed.then(() => clearInterval(timer));
}

test('a client sending its headers slowly is answered 408 and disconnected after the headers timeout', async (t) => {
  t.timeout(20_000, 'the server did not cut the slow client');
  const service = await startService({ headersTimeoutMs: 300, requestTimeoutMs: 300 });
  t.teardown(() => service.close());
  const slow = await rawConnection(service.port);
  slowloris(slow);
  const answer = await slow.closed;
  t.regex(answer, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  t.regex(answer, /"status":408/);
});

test('a connection beyond the cap is closed at once; once one ends, a new one is served', async (t) => {
  t.timeout(20_000);
  const service = await startService({ maxConnections: 2 });
  t.teardown(() => service.close());
  const held = [await rawConnection(service.port), await rawConnection(service.port)];
  // A full answer on each: both are accepted and held open (keep-alive).
  for (const connection of held) {
    connection.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await until(() => connection.received().includes('this process serves only the MCP path'));
  }
  const beyond = await rawConnection(service.port);
  beyond.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  t.is(await beyond.closed, '', 'closed without an answer');

  held[0]!.socket.destroy();
  await until(async () => (await get(service.port, '/healthz').catch(() => 0)) === 404);
  t.pass();
  held[1]!.socket.destroy();
});

test('an SSE stream through the proxy outlives the request timeout that cuts a slow client', async (t) => {
  t.timeout(30_000);
  const upstream = await startSseUpstream();
  t.teardown(() => upstream.close());
  // Headers and request timeouts alike: a connection past one is past the other.
  const service = await startService({ headersTimeoutMs: 400, requestTimeoutMs: 400 }, upstream.url);
  t.teardown(() => service.close());

  const stream = await openSse(`http://127.0.0.1:${service.port}/api/v1/connectors/sse/mcp`);
  t.is(stream.response.headers['content-type'], 'text/event-stream');
  t.is(await stream.next(), 'data: one');
  // Opened after the stream: once the server has cut this one for its timeout, the stream's
  // connection is older than the timeout too, and would have been cut in the same sweep.
  const slow = await rawConnection(service.port);
  slowloris(slow);
  t.regex(await slow.closed, /^HTTP\/1\.1 408/);

  upstream.send('two');
  t.is(await stream.next(), 'data: two', 'the stream still delivers');
  stream.response.destroy();
});

async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 25));
}

function get(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
  });
}

/** An SSE upstream: each GET gets `data: one` at once, then whatever `send` is given. */
async function startSseUpstream() {
  const streams = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write('data: one\n\n');
    streams.add(res);
    res.on('close', () => streams.delete(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    send: (data: string) => streams.forEach((res) => res.write(`data: ${data}\n\n`)),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A GET stream; `next` resolves with each SSE event's text as it arrives. */
async function openSse(url: string) {
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    http.get(url, { headers: { accept: 'text/event-stream' }, agent: false }, resolve).on('error', reject);
  });
  const events: string[] = [];
  const waiting: Array<(event: string) => void> = [];
  let buffered = '';
  response.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let end: number;
    while ((end = buffered.indexOf('\n\n')) !== -1) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const waiter = waiting.shift();
      if (waiter) waiter(event);
      else events.push(event);
    }
  });
  response.on('error', () => undefined);
  return {
    response,
    next: () => new Promise<string>((resolve, reject) => {
      const event = events.shift();
      if (event !== undefined) return resolve(event);
      waiting.push(resolve);
      response.once('close', () => reject(new Error('the stream was closed')));
    }),
  };
}
