// The connect probe against real MCP servers of both eras: SDK v2 servers that speak only
// 2026-07-28 (or both eras), SDK v1 servers that speak only 2025-11-25. It negotiates the revision
// (server/discover first, initialize as the fallback), names it, and calls only a 401/403 a
// refused token.
import net from 'node:net';
import test from 'ava';
import { ApplicationFailure } from '@temporalio/activity';
import { probeMcpServer } from '../../activities/mcp-probe';
import { createGuardedFetch } from '../../platform/guarded-fetch';
import { FAILURE } from '../../contract/failures';
import { startModernMcpServer, type ModernMcpServer } from '../fixtures/modern-mcp-server';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';

const fetch = createGuardedFetch({ blockPrivateNetworks: false }, { timeoutMs: 30_000 });
const TIMEOUT = 30_000;
let modernOnly: ModernMcpServer;
let bothEras: ModernMcpServer;
let headerFirst: ModernMcpServer;
let legacyOnly: TokenMcpServer;

test.before(async () => {
  modernOnly = await startModernMcpServer({ token: 'modern-token' });
  bothEras = await startModernMcpServer({ token: 'both-token', legacy: 'stateless' });
  headerFirst = await startModernMcpServer({ token: 'header-token', requireVersionHeader: true });
  legacyOnly = await startTokenMcpServer({ token: 'legacy-token' });
});

test.after.always(async () => {
  await Promise.all([modernOnly?.close(), bothEras?.close(), headerFirst?.close(), legacyOnly?.close()]);
  await fetch.close();
});

test('a server that speaks only 2026-07-28 is connected with server/discover, and the revision is named', async (t) => {
  const before = modernOnly.seen.length;
  const result = await probeMcpServer(modernOnly.url, 'modern-token', TIMEOUT, fetch);
  t.deepEqual(result, { protocolVersion: '2026-07-28', serverName: 'modern-test-server' });
  const sent = modernOnly.seen.slice(before);
  t.deepEqual(sent.map((r) => [r.method, r.mcpMethod, r.protocolVersion]), [['POST', 'server/discover', '2026-07-28']]);
  t.is(sent[0]!.authorization, 'Bearer modern-token');
});

test('a server of both eras is connected at 2026-07-28', async (t) => {
  t.is((await probeMcpServer(bothEras.url, 'both-token', TIMEOUT, fetch)).protocolVersion, '2026-07-28');
});

test('a server that speaks only 2025-11-25 is connected through initialize', async (t) => {
  const result = await probeMcpServer(legacyOnly.url, 'legacy-token', TIMEOUT, fetch);
  t.deepEqual(result, { protocolVersion: '2025-11-25', serverName: 'token-test-server' });
});

test('a server that speaks only 2025-06-18 names its revision in the initialize answer, and is connected at it', async (t) => {
  const older = await startModernMcpServer({ token: 'older-token', legacy: 'stateless', supportedProtocolVersions: ['2025-06-18'] });
  try {
    t.is((await probeMcpServer(older.url, 'older-token', TIMEOUT, fetch)).protocolVersion, '2025-06-18');
  } finally {
    await older.close();
  }
});

test('a server that checks MCP-Protocol-Version before anything else is connected', async (t) => {
  t.is((await probeMcpServer(headerFirst.url, 'header-token', TIMEOUT, fetch)).protocolVersion, '2026-07-28');
});

for (const [era, server, ] of [['2026-07-28', () => modernOnly], ['2025-11-25', () => legacyOnly]] as const) {
  test(`a wrong token is a refused token at ${era}, not an era problem`, async (t) => {
    const err = await t.throwsAsync(probeMcpServer(server().url, 'wrong-token', TIMEOUT, fetch), { instanceOf: ApplicationFailure });
    t.is(err.type, FAILURE.upstreamError);
    t.regex(err.message, /refused the token \(HTTP 401\)/);
  });
}

test('a server that does not answer in time is a timeout', async (t) => {
  const hanging = await startTokenMcpServer({ token: 'x' });
  hanging.setHang(true);
  try {
    const err = await t.throwsAsync(probeMcpServer(hanging.url, 'x', 1_000, fetch), { instanceOf: ApplicationFailure });
    t.is(err.type, FAILURE.upstreamTimeout);
  } finally {
    await hanging.close();
  }
});

test('a probe that times out leaves no connection of its own open at a server that never answers', async (t) => {
  // A tarpit that reads what it is sent (so it sees the client's FIN) and never answers.
  const sockets = new Set<net.Socket>();
  let opened = 0;
  const tarpit = net.createServer((socket) => {
    opened += 1;
    sockets.add(socket);
    socket.resume();
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => tarpit.listen(0, '127.0.0.1', resolve));
  const { port } = tarpit.address() as net.AddressInfo;
  const probeFetch = createGuardedFetch({ blockPrivateNetworks: false }, { timeoutMs: 30_000 });
  try {
    const probes = Array.from({ length: 5 }, () => probeMcpServer(`http://127.0.0.1:${port}/mcp`, 'x', 500, probeFetch));
    for (const probe of probes) t.is((await t.throwsAsync(probe, { instanceOf: ApplicationFailure })).type, FAILURE.upstreamTimeout);
    // undici opens one more connection as an aborted request's goes, and closes it at once.
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.true(opened >= 5, `the tarpit took the probes' connections (${opened})`);
    for (let waited = 0; sockets.size > 0 && waited < 5_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    t.is(sockets.size, 0, 'every connection the probes opened was closed by the client');
  } finally {
    for (const socket of sockets) socket.destroy();
    tarpit.close();
    await probeFetch.close();
  }
});
