// A replica told to stop (SIGTERM) drains: new connections are refused at once, the requests in
// flight are answered (one arriving on a kept-alive connection meanwhile too, with Connection:
// close), an MCP GET stream is cut after its short grace, and what outlives the longer grace is cut.
import http from 'node:http';
import test from 'ava';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpProxy } from '../../proxy/mcp-proxy';
import { createHttpServer, listen } from '../../service/http-server';
import { drainServer } from '../../service/server-drain';

const LIMITS = { headersTimeoutMs: 60_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 60_000, maxConnections: 100 };
const ID = '6f1c2a8e-2b0d-4c55-9a53-0d6c1a2b3c4d';

/** A proxy stand-in: GET opens a stream that never ends; POST answers after `?ms=`. */
const proxy = {
  handle(req: IncomingMessage, res: ServerResponse) {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n');
      return;
    }
    const ms = Number(new URL(req.url!, 'http://x').searchParams.get('ms') ?? 0);
    setTimeout(() => res.end('done'), ms);
  },
} as unknown as McpProxy;

function request(port: number, agent: http.Agent, method: string, query = ''): Promise<{ status: number; connection?: string; body: string; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, agent, method, path: `/api/v1/connectors/${ID}/mcp${query}` }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body, ended: true }));
      res.on('error', () => resolve({ status: res.statusCode!, body, ended: false }));
      res.on('close', () => resolve({ status: res.statusCode!, body, ended: res.complete }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function serving() {
  const server = createHttpServer({ proxy, origin: { baseUrl: 'http://127.0.0.1', allowedOrigins: [], authEnabled: false }, limits: LIMITS });
  return { server, port: await listen(server, 0, '127.0.0.1') };
}

test('draining: refused at once for new connections, in-flight requests answered, GET streams cut after their grace', async (t) => {
  const { server, port } = await serving();
  const kept = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const fresh = new http.Agent({ keepAlive: false });
  t.teardown(() => { kept.destroy(); fresh.destroy(); });
  t.is((await request(port, kept, 'POST')).status, 200); // the kept-alive connection is open
  const slow = request(port, fresh, 'POST', '?ms=1500');
  const stream = request(port, fresh, 'GET');
  await new Promise((resolve) => setTimeout(resolve, 200));
  const started = performance.now();
  const drained = drainServer(server, { graceMs: 10_000, streamGraceMs: 500 });
  await t.throwsAsync(request(port, fresh, 'POST'), { code: 'ECONNREFUSED' }, 'no new connection');
  const slowAnswer = await slow;
  t.like(slowAnswer, { status: 200, body: 'done', ended: true }, 'the request in flight was answered');
  const streamAnswer = await stream;
  t.false(streamAnswer.ended, 'the stream was cut, not ended');
  await drained;
  t.true(performance.now() - started < 9_000, 'the drain ended once everything was answered, not at the grace\'s end');
});

test('a request on a kept-alive connection during the drain is answered with Connection: close; past the grace the rest is cut', async (t) => {
  const { server, port } = await serving();
  const kept = new http.Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => kept.destroy());
  t.is((await request(port, kept, 'POST')).status, 200);
  // The connection is idle now, so a drain would close it: start one request on it first.
  const inFlight = request(port, kept, 'POST', '?ms=400');
  await new Promise((resolve) => setTimeout(resolve, 100));
  const drained = drainServer(server, { graceMs: 1_000, streamGraceMs: 100 });
  t.like(await inFlight, { status: 200, connection: 'close' });
  const stuck = request(port, new http.Agent(), 'POST', '?ms=60000').catch((err: Error) => err);
  await drained;
  const cut = await stuck;
  t.true(cut instanceof Error || !cut.ended, 'a request past the grace was cut');
});
