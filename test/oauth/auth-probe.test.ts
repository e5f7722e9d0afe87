// The unauthenticated initialize probe against real MCP SDK servers: a server that needs no
// authorization is accepted (and its session ended), a protected one yields its challenge, and
// errors are classified by status.
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

const fetcher = testHttp();
const methods: string[] = [];
let openServer: http.Server;
let openUrl: string;
let as: OidcServer;
let protectedServer: ProtectedMcpServer;

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
});

test.after.always(async () => {
  openServer.closeAllConnections();
  await new Promise((resolve) => openServer.close(resolve));
  await protectedServer?.close();
  await as?.close();
  await fetcher.close();
});

test('a server without authorization is accepted, and the probe ends the session it opened', async (t) => {
  t.deepEqual(await probeForChallenge({ serverUrl: `${openUrl}/mcp` }, fetcher), { kind: 'accepted' });
  t.deepEqual(methods, ['POST', 'DELETE']);
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

test('a 404 is a non-retryable error and a 500 a retryable one', async (t) => {
  const missing = await t.throwsAsync(probeForChallenge({ serverUrl: `${openUrl}/nothing` }, fetcher), { instanceOf: UpstreamResponseError });
  t.false(missing.retryable);
  const broken = await t.throwsAsync(probeForChallenge({ serverUrl: `${openUrl}/broken` }, fetcher), { instanceOf: UpstreamUnavailableError });
  t.true(broken.retryable);
  t.regex(broken.message, /HTTP 500/);
});
