// The connect probe against a legacy HTTP+SSE server (the SDK v1's SSEServerTransport): it opens
// the stream with the token, initializes through the endpoint the server names, and closes the
// stream; a refused token is a refusal, and an endpoint on another origin is never posted to.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { ApplicationFailure } from '@temporalio/activity';
import { probeMcpServer } from '../../activities/mcp-probe';
import { probeForChallenge } from '../../activities/oauth/auth-probe';
import { createGuardedFetch } from '../../platform/guarded-fetch';
import { createLogger } from '../../platform/logger';
import { startLegacySseMcpServer, type LegacySseMcpServer } from '../fixtures/legacy-sse-mcp-server';

const fetch = createGuardedFetch({ blockPrivateNetworks: false }, { timeoutMs: 30_000 });
const TIMEOUT = 30_000;
let server: LegacySseMcpServer;

test.before(async () => {
  server = await startLegacySseMcpServer({ token: 'sse-token' });
});

test.after.always(async () => {
  await server?.close();
  await fetch.close();
});

test.serial('an SSE server is probed over its stream and endpoint, with the token on both, and left with no session open', async (t) => {
  const before = server.seen.length;
  const result = await probeMcpServer(server.url, 'sse-token', TIMEOUT, fetch, undefined, 'sse');
  t.deepEqual(result, { serverName: 'legacy-sse-test-server', protocolVersion: '2025-11-25' });
  const sent = server.seen.slice(before);
  t.deepEqual(sent.map((s) => `${s.method} ${s.path}`), ['GET /sse', 'POST /messages', 'POST /messages']);
  t.true(sent.every((s) => s.authorization === 'Bearer sse-token'));
  for (let i = 0; server.sessions() > 0 && i < 100; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  t.is(server.sessions(), 0);
});

test.serial('a refused token on the stream is a refusal, and the unauthenticated probe finds the challenge', async (t) => {
  const err = await t.throwsAsync(probeMcpServer(server.url, 'wrong', TIMEOUT, fetch, undefined, 'sse'), { instanceOf: ApplicationFailure });
  t.regex(err!.message, /refused the token \(HTTP 401\)/);
  const probe = await probeForChallenge({ serverUrl: server.url, timeoutMs: TIMEOUT, transport: 'sse' }, { fetch, logger: createLogger('probe-test', 'silent') });
  t.is(probe.kind, 'unauthorized');
});

test.serial('an endpoint on another origin fails the probe, and nothing is posted there', async (t) => {
  let elsewhere = 0;
  const other = http.createServer((_req, res) => {
    elsewhere += 1;
    res.writeHead(202).end();
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.setHostileEndpoint(null);
    other.close();
  });
  server.setHostileEndpoint(`http://127.0.0.1:${(other.address() as AddressInfo).port}/messages`);
  await t.throwsAsync(probeMcpServer(server.url, 'sse-token', TIMEOUT, fetch, undefined, 'sse'), { instanceOf: ApplicationFailure });
  t.is(elsewhere, 0);
});
