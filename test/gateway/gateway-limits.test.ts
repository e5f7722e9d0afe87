// Bounded sessions: a cap on open sessions (503 with a JSON-RPC error beyond it), and a session
// that does nothing after its initialize is closed after a short delay instead of the idle timeout.
// And the HTTP server's own limits: a client sending its headers slowly is cut off.
import net from 'node:net';
import test from 'ava';
import { startGateway } from '../../gateway/start-gateway';
import { connect, eventually, INITIALIZE, listening, post } from './support/clients';
import { readSseMessages } from './support/sse';
import { everythingSource, quietLogger } from './support/stdio-servers';

const PROTOCOL = { 'mcp-protocol-version': '2025-06-18' };

/** A raw initialize answered in full; the new session's id. */
async function initialized(url: string): Promise<string> {
  const response = await post(url, INITIALIZE);
  if (response.status !== 200) throw new Error(`initialize answered ${response.status}`);
  await readSseMessages(response, 1);
  return response.headers.get('mcp-session-id') ?? '';
}

function ping(url: string, sessionId: string, id: number): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, ...PROTOCOL },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }),
  });
}

test('an initialize beyond the session cap gets 503 with a JSON-RPC error; a closed session frees its slot', async (t) => {
  const gateway = await startGateway({ source: everythingSource(), port: 0, maxSessions: 2, logger: quietLogger });
  t.teardown(() => gateway.close());
  // Initializes the transport refuses (no Accept for SSE) open nothing and hold no slot.
  for (let i = 0; i < 3; i++) {
    const refusedByTransport = await fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(INITIALIZE) });
    t.is(refusedByTransport.status, 406);
    await refusedByTransport.body?.cancel();
  }
  const first = await initialized(gateway.url);
  await initialized(gateway.url);

  const refused = await post(gateway.url, INITIALIZE);
  t.is(refused.status, 503);
  t.truthy(refused.headers.get('retry-after'));
  t.is(refused.headers.get('mcp-session-id'), null);
  t.like(await refused.json(), { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Too many sessions: this gateway serves at most 2 at once; try again later' } });
  t.is(gateway.sessions().length, 2);

  const ended = await fetch(gateway.url, { method: 'DELETE', headers: { 'mcp-session-id': first, ...PROTOCOL } });
  t.is(ended.status, 200);
  t.truthy(await initialized(gateway.url), 'the slot of the deleted session is free again');
});

test('initializes arriving together never open more sessions than the cap', async (t) => {
  const gateway = await startGateway({ source: everythingSource(), port: 0, maxSessions: 3, logger: quietLogger });
  t.teardown(() => gateway.close());
  await gateway.ready;
  const answers = await Promise.all(Array.from({ length: 8 }, () => post(gateway.url, INITIALIZE)));
  const statuses = answers.map((a) => a.status).sort();
  t.deepEqual(statuses, [200, 200, 200, 503, 503, 503, 503, 503]);
  await Promise.all(answers.map((a) => a.body?.cancel()));
  t.is(gateway.sessions().length, 3);
});

test('a session that sends nothing after initialize is closed after the first-request delay; its next request gets 404', async (t) => {
  const gateway = await startGateway({ source: everythingSource(), port: 0, firstRequestTimeoutMs: 300, logger: quietLogger });
  t.teardown(() => gateway.close());
  const sessionId = await initialized(gateway.url);
  await eventually(() => !gateway.sessions().some((s) => s.id === sessionId) || undefined, 'the unused session to close');
  const after = await ping(gateway.url, sessionId, 2);
  t.is(after.status, 404);
  t.like(await after.json(), { error: { code: -32001, message: 'Session not found' } });
});

test('a request or a GET stream within the first-request delay keeps the session', async (t) => {
  // 10 s: the kept sessions' requests follow their initialize at once, but a busy machine may
  // take seconds over it, and must not turn "kept" into "closed" (the test waits the 10 s once).
  const gateway = await startGateway({ source: everythingSource(), port: 0, firstRequestTimeoutMs: 10_000, logger: quietLogger });
  t.teardown(() => gateway.close());
  // A real client: initialize, notifications/initialized, then its GET stream.
  const { client, sessionId: listener } = await connect(gateway.url, 'listening-client');
  await listening(gateway, listener);
  const pinger = await initialized(gateway.url);
  const pong = await ping(gateway.url, pinger, 2);
  t.is(pong.status, 200);
  await readSseMessages(pong, 1);
  // Opened after the other two: once its delay has run out, theirs has too.
  const unused = await initialized(gateway.url);
  await eventually(() => !gateway.sessions().some((s) => s.id === unused) || undefined, 'the unused session to close', 60_000);

  const ids = gateway.sessions().map((s) => s.id);
  t.true(ids.includes(listener), 'the session with a GET stream stays');
  t.true(ids.includes(pinger), 'the session that sent a request stays');
  const again = await ping(gateway.url, pinger, 3);
  t.is(again.status, 200);
  await again.body?.cancel();
  await client.ping();
  await client.close();
});

test('a client sending its headers slowly is answered 408 and disconnected after the headers timeout', async (t) => {
  t.timeout(20_000, 'the gateway did not cut the slow client');
  const gateway = await startGateway({
    source: everythingSource(), port: 0, server: { headersTimeoutMs: 300, requestTimeoutMs: 300 }, logger: quietLogger,
  });
  t.teardown(() => gateway.close());
  const socket = net.connect(gateway.port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  const timer = setInterval(() => socket.write('X-Slow: 1\r\n'), 50);
  await closed;
  clearInterval(timer);
  t.regex(received, /^HTTP\/1\.1 408 /);
});
