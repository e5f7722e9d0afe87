// Refresh and revocation against a real oidc-provider: rotation is kept, a grant revoked at the
// server is a permanent invalid_grant, RFC 7009 revocation ends the grant, and failures of the
// server itself (5xx, no answer, closed port) are classified as retryable.
import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startOidcServer, type OidcServer } from '../fixtures/oauth/oidc-server';
import { startProtectedMcpServer, type ProtectedMcpServer } from '../fixtures/oauth/protected-mcp-server';
import { refreshTokens } from '../../activities/oauth/refresh';
import { revokeTokens } from '../../activities/oauth/revoke';
import { probeForChallenge } from '../../activities/oauth/auth-probe';
import { InvalidGrantError, UpstreamTimeoutError, UpstreamUnavailableError } from '../../activities/oauth/errors';
import { createGuardedFetch } from '../../platform/guarded-fetch';
import { authorize, recordingHttp, testHttp, type AuthorizedFlow } from './flow';
import type { OAuthHttp } from '../../activities/oauth/http';
import { FAILURE } from '../../contract/failures';

const fetcher = testHttp();
let as: OidcServer;
let mcp: ProtectedMcpServer;

test.before(async () => {
  as = await startOidcServer({ accessTokenTtl: 5 });
  mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri });
});

test.after.always(async () => {
  await mcp?.close();
  await as?.close();
  await fetcher.close();
});

function refresh(flow: AuthorizedFlow, refreshToken = flow.tokens.refreshToken!, http: OAuthHttp = fetcher) {
  return refreshTokens({
    authorizationServer: flow.discovery.authorizationServer.metadata,
    client: flow.client.identity,
    refreshToken,
    resource: flow.discovery.resource,
  }, http);
}

test('a refresh rotates the refresh token and yields a token the MCP server accepts', async (t) => {
  const flow = await authorize(mcp.url, fetcher);
  const now = Date.now();
  const refreshed = await refreshTokens({
    authorizationServer: flow.discovery.authorizationServer.metadata, client: flow.client.identity,
    refreshToken: flow.tokens.refreshToken!, resource: flow.discovery.resource, now,
  }, fetcher);
  t.truthy(refreshed.refreshToken);
  t.not(refreshed.refreshToken, flow.tokens.refreshToken, 'the rotated refresh token is kept');
  t.not(refreshed.accessToken, flow.tokens.accessToken);
  t.is(refreshed.expiresAt, new Date(now + 5_000).toISOString());
  t.deepEqual(await probeForChallenge({ serverUrl: mcp.url, accessToken: refreshed.accessToken }, fetcher), { kind: 'accepted', protocolVersion: '2025-11-25' });
  const wire = recordingHttp(fetcher);
  const again = await refresh(flow, refreshed.refreshToken!, wire);
  t.not(again.refreshToken, refreshed.refreshToken);
  const sent = new URLSearchParams(wire.requests.find((r) => r.method === 'POST')!.body!);
  t.is(sent.get('grant_type'), 'refresh_token');
  t.is(sent.get('resource'), mcp.url, 'RFC 8707: the refresh names the resource too');
});

test('a server that does not rotate leaves the refresh token in place', async (t) => {
  const steady = await startOidcServer({ rotateRefreshTokens: false });
  const server = await startProtectedMcpServer({ issuer: steady.issuer, jwksUri: steady.jwksUri });
  try {
    const flow = await authorize(server.url, fetcher);
    const refreshed = await refresh(flow);
    t.is(refreshed.refreshToken, flow.tokens.refreshToken);
  } finally {
    await server.close();
    await steady.close();
  }
});

test('the fixture\'s first token may live longer than the refreshed ones (bench:scale holds the first refreshes)', async (t) => {
  const held = await startOidcServer({ accessTokenTtl: 5, firstAccessTokenTtl: () => 3_600 });
  const server = await startProtectedMcpServer({ issuer: held.issuer, jwksUri: held.jwksUri });
  try {
    const before = Date.now();
    const flow = await authorize(server.url, fetcher);
    const firstLife = Date.parse(flow.tokens.expiresAt!) - before;
    t.true(firstLife > 3_500_000 && firstLife <= 3_600_000 + (Date.now() - before), `the first token lives about an hour (${firstLife} ms)`);
    const now = Date.now();
    const refreshed = await refreshTokens({
      authorizationServer: flow.discovery.authorizationServer.metadata, client: flow.client.identity,
      refreshToken: flow.tokens.refreshToken!, resource: flow.discovery.resource, now,
    }, fetcher);
    t.is(refreshed.expiresAt, new Date(now + 5_000).toISOString(), 'a refreshed one lives accessTokenTtl');
  } finally {
    await server.close();
    await held.close();
  }
});

test('a grant revoked at the server makes the refresh a permanent invalid_grant', async (t) => {
  const flow = await authorize(mcp.url, fetcher);
  await as.revokeGrantOf(flow.tokens.refreshToken!);
  const error = await t.throwsAsync(refresh(flow), { instanceOf: InvalidGrantError });
  t.false(error.retryable);
  t.is(error.code, 'invalid_grant');
  t.is(error.oauthError, 'invalid_grant');
  t.false(error.message.includes(flow.tokens.refreshToken!), 'the token is not in the message');
});

test('revocation (RFC 7009) revokes the refresh token, ends the grant, and reports a JWT access token as not revocable', async (t) => {
  const flow = await authorize(mcp.url, fetcher);
  const result = await revokeTokens({
    authorizationServer: flow.discovery.authorizationServer.metadata, client: flow.client.identity,
    accessToken: flow.tokens.accessToken, refreshToken: flow.tokens.refreshToken,
  }, fetcher);
  // oidc-provider cannot revoke self-contained JWT access tokens (unsupported_token_type)
  t.deepEqual(result, { supported: true, revoked: ['refresh_token'], notRevocable: ['access_token'] });
  await t.throwsAsync(refresh(flow), { instanceOf: InvalidGrantError });
  const again = await revokeTokens({
    authorizationServer: flow.discovery.authorizationServer.metadata, client: flow.client.identity,
    refreshToken: flow.tokens.refreshToken,
  }, fetcher);
  t.deepEqual(again.revoked, ['refresh_token'], 'revoking twice is harmless');
});

test('without a revocation endpoint nothing is sent', async (t) => {
  const flow = await authorize(mcp.url, fetcher);
  const { revocation_endpoint: _dropped, ...withoutRevocation } = flow.discovery.authorizationServer.metadata;
  const result = await revokeTokens({
    authorizationServer: withoutRevocation, client: flow.client.identity, refreshToken: flow.tokens.refreshToken,
  }, { fetch: () => Promise.reject(new Error('no request expected')) });
  t.deepEqual(result, { supported: false, revoked: [], notRevocable: [] });
});

/** A token endpoint stand-in that fails the way overloaded servers do. */
async function failingServer(behaviour: 'unavailable' | 'silent') {
  const server = http.createServer((_req, res) => {
    if (behaviour === 'silent') return; // never answers
    res.writeHead(503, { 'content-type': 'text/html' });
    res.end('<h1>Service Unavailable</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, close: () => { server.closeAllConnections(); return new Promise((resolve) => server.close(resolve)); } };
}

test('a 503 from the token endpoint is a retryable failure', async (t) => {
  const flow = await authorize(mcp.url, fetcher);
  const broken = await failingServer('unavailable');
  try {
    const metadata = { ...flow.discovery.authorizationServer.metadata, token_endpoint: `${broken.origin}/token` };
    const error = await t.throwsAsync(refreshTokens({
      authorizationServer: metadata, client: flow.client.identity, refreshToken: flow.tokens.refreshToken!, resource: flow.discovery.resource,
    }, fetcher), { instanceOf: UpstreamUnavailableError });
    t.true(error.retryable);
    t.regex(error.message, /HTTP 503/);
  } finally {
    await broken.close();
  }
});

test('a token endpoint that does not answer in time is a retryable timeout', async (t) => {
  const flow = await authorize(mcp.url, fetcher);
  const silent = await failingServer('silent');
  const impatient = createGuardedFetch({ blockPrivateNetworks: false }, { timeoutMs: 300 });
  try {
    const metadata = { ...flow.discovery.authorizationServer.metadata, token_endpoint: `${silent.origin}/token` };
    const error = await t.throwsAsync(refreshTokens({
      authorizationServer: metadata, client: flow.client.identity, refreshToken: flow.tokens.refreshToken!, resource: flow.discovery.resource,
    }, { fetch: impatient }), { instanceOf: UpstreamTimeoutError });
    t.true(error.retryable);
    t.is(error.failure, FAILURE.transient);
  } finally {
    await impatient.close();
    await silent.close();
  }
});

test('a token endpoint nobody listens on is a retryable network failure', async (t) => {
  const flow = await authorize(mcp.url, fetcher);
  const gone = await failingServer('unavailable');
  await gone.close();
  const metadata = { ...flow.discovery.authorizationServer.metadata, token_endpoint: `${gone.origin}/token` };
  const error = await t.throwsAsync(refreshTokens({
    authorizationServer: metadata, client: flow.client.identity, refreshToken: flow.tokens.refreshToken!, resource: flow.discovery.resource,
  }, fetcher), { instanceOf: UpstreamUnavailableError });
  t.true(error.retryable);
  t.regex(error.message, /ECONNREFUSED/);
});
