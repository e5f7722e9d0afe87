// The unauthenticated handshake probe against real MCP SDK servers of both eras: a server that
// needs no authorization is accepted at its revision (and a session it opened is ended), a
// protected one yields its challenge, whichever revision it speaks, and errors are classified by
// status.
import test from 'ava';
import http from 'node:http';
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { probeForChallenge } from '../../activities/oauth/auth-probe';
import { UpstreamResponseError, UpstreamUnavailableError } from '../../activities/oauth/errors';
import { startOidcServer, type OidcServer } from '../fixtures/oauth/oidc-server';
import { startProtectedMcpServer, type ProtectedMcpServer } from '../fixtures/oauth/protected-mcp-server';
import { testHttp } from './flow';
import { startModernMcpServer, type ModernMcpServer } from '../fixtures/modern-mcp-server';

const fetcher = testHttp();
const methods: string[] = [];
let openServer: http.Server;
let openUrl: string;
let as: OidcServer;
let protectedServer: ProtectedMcpServer;
let modernOpen: ModernMcpServer;
let modernProtected: ModernMcpServer;
let headerFirst: ModernMcpServer;
const CHALLENGE = 'Bearer resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp", scope="mcp:read"';

test.before(async () => {
  // A stateful, unprotected MCP server: the probe opens a session and must end it.
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), enableJsonResponse: true });
  const mcp = new McpServer({ name: 'open-test-server', version: '1.0.0' });
  await mcp.connect(transport);
  openServer = http.createServer((req, res) => {
    if (req.url === '/mcp') methods.push(req.method ?? '');
    if (req.url === '/broken') return void res.writeHead(500).end();
    if (req.url !== '/mcp') return void res.writeHead(404).end();
    void transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => openServer.listen(0, '127.0.0.1', resolve));
  openUrl = `http://127.0.0.1:${(openServer.address() as AddressInfo).port}`;
  as = await startOidcServer();
  protectedServer = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri, challengeScope: 'mcp:read mcp:admin' });
  modernOpen = await startModernMcpServer({ token: null });
  modernProtected = await startModernMcpServer({ token: 'only-this', challenge: CHALLENGE });
  headerFirst = await startModernMcpServer({ token: 'only-this', challenge: CHALLENGE, requireVersionHeader: true });
});

test.after.always(async () => {
  openServer.closeAllConnections();
  await new Promise((resolve) => openServer.close(resolve));
  await protectedServer?.close();
  await Promise.all([modernOpen?.close(), modernProtected?.close(), headerFirst?.close()]);
  await as?.close();
  await fetcher.close();
});

test('a 2025 server without authorization is accepted, and the probe ends the session it opened', async (t) => {
  t.deepEqual(await probeForChallenge({ serverUrl: `${openUrl}/mcp` }, fetcher), { kind: 'accepted', protocolVersion: '2025-11-25' });
  // server/discover (refused: no session), initialize, notifications/initialized, and the DELETE.
  t.deepEqual(methods, ['POST', 'POST', 'POST', 'DELETE']);
});

test('a 2026-07-28 server without authorization is accepted at that revision', async (t) => {
  t.deepEqual(await probeForChallenge({ serverUrl: modernOpen.url }, fetcher), { kind: 'accepted', protocolVersion: '2026-07-28' });
});

test('a server that speaks only 2026-07-28 answers 401 with its challenge', async (t) => {
  const result = await probeForChallenge({ serverUrl: modernProtected.url }, fetcher);
  t.is(result.kind, 'unauthorized');
  t.is(result.kind === 'unauthorized' ? result.challenge?.scope : null, 'mcp:read');
});

test('a server that answers 400 to a request without MCP-Protocol-Version still yields its challenge', async (t) => {
  const result = await probeForChallenge({ serverUrl: headerFirst.url }, fetcher);
  t.is(result.kind, 'unauthorized');
  t.is(result.kind === 'unauthorized' ? result.challenge?.resourceMetadata : null, 'http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp');
  t.like(headerFirst.seen[0], { method: 'POST', mcpMethod: 'server/discover', protocolVersion: '2026-07-28' });
});

test('a protected server answers 401 with its challenge', async (t) => {
  const result = await probeForChallenge({ serverUrl: protectedServer.url }, fetcher);
  t.deepEqual(result, {
    kind: 'unauthorized',
    challenge: { resourceMetadata: protectedServer.resourceMetadataUrl, scope: 'mcp:read mcp:admin', error: null, errorDescription: null },
  });
});

test('a refused token is reported with the invalid_token challenge', async (t) => {
  const result = await probeForChallenge({ serverUrl: protectedServer.url, accessToken: 'not-a-jwt' }, fetcher);
  t.is(result.kind, 'unauthorized');
  t.is(result.kind === 'unauthorized' ? result.challenge?.error : null, 'invalid_token');
});

test('a server that answers 400 to both handshakes but publishes RFC 9728 metadata is taken as protected', async (t) => {
  const odd = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri, badRequestWithoutToken: true });
  try {
    t.deepEqual(await probeForChallenge({ serverUrl: odd.url }, fetcher), { kind: 'unauthorized', challenge: null });
  } finally {
    await odd.close();
  }
});

test('a 404 is a non-retryable error and a 500 a retryable one', async (t) => {
  const missing = await t.throwsAsync(probeForChallenge({ serverUrl: `${openUrl}/nothing` }, fetcher), { instanceOf: UpstreamResponseError });
  t.false(missing.retryable);
  const broken = await t.throwsAsync(probeForChallenge({ serverUrl: `${openUrl}/broken` }, fetcher), { instanceOf: UpstreamUnavailableError });
  t.true(broken.retryable);
  t.regex(broken.message, /HTTP 500/);
});
