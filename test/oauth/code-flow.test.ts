// The whole authorization code flow against a real oidc-provider and a real MCP SDK server:
// dynamic registration, consent, code exchange with PKCE and resource, and a token the MCP
// server accepts; plus the callback checks (RFC 9207 iss, state, denial).
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startOidcServer, type OidcServer } from '../fixtures/oauth/oidc-server';
import { startProtectedMcpServer, type ProtectedMcpServer } from '../fixtures/oauth/protected-mcp-server';
import { createConsentAgent } from '../fixtures/oauth/consent-agent';
import { probeForChallenge } from '../../activities/oauth/auth-probe';
import { exchangeCode } from '../../activities/oauth/code-exchange';
import { resolveClientIdentity } from '../../activities/oauth/client-identity';
import { findBearerChallenge } from '../../contract/www-authenticate';
import { startAuthorization } from '../../activities/oauth/authorization-request';
import {
  AuthorizationDeniedError, CallbackIssuerError, InvalidCallbackError, InvalidGrantError,
} from '../../activities/oauth/errors';
import { authorize, discover, REDIRECT_URI, testHttp } from './flow';
import { FAILURE } from '../../contract/failures';

let as: OidcServer;
let mcp: ProtectedMcpServer;
const http = testHttp();

test.before(async () => {
  as = await startOidcServer();
  mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri });
});

test.after.always(async () => {
  await mcp?.close();
  await as?.close();
  await http.close();
});

async function callWhoami(accessToken: string): Promise<{ sub: string; scope: string | null }> {
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcp.url), {
    requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
  });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    const [first] = result.content as Array<{ type: string; text: string }>;
    return JSON.parse(first!.text);
  } finally {
    await client.close();
  }
}

test('a registered client completes the code flow and the MCP server accepts its token', async (t) => {
  const flow = await authorize(mcp.url, http);
  t.is(flow.client.identity.source, 'registered');
  t.truthy(flow.client.newRegistration, 'the registration is returned for the caller to store');
  t.is(flow.start.scope, 'mcp:read offline_access');
  t.truthy(flow.tokens.refreshToken, 'offline_access brought a refresh token');
  t.truthy(flow.tokens.expiresAt);
  const who = await callWhoami(flow.tokens.accessToken);
  t.is(who.sub, 'test-user');
  t.is(who.scope, 'mcp:read');
  t.deepEqual(await probeForChallenge({ serverUrl: mcp.url, accessToken: flow.tokens.accessToken }, http), { kind: 'accepted', protocolVersion: '2025-11-25' });
});

test('the MCP server answers 403 insufficient_scope for the admin tool, and the challenge parses', async (t) => {
  const { tokens } = await authorize(mcp.url, http);
  const response = await fetch(mcp.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens.accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'admin-echo', arguments: { text: 'hi' } } }),
  });
  t.is(response.status, 403);
  const challenge = findBearerChallenge(response.headers.get('www-authenticate'));
  t.is(challenge?.error, 'insufficient_scope');
  t.is(challenge?.scope, 'mcp:read mcp:admin');
  t.is(challenge?.resourceMetadata, mcp.resourceMetadataUrl);
});

async function authorizedCallback() {
  const discovery = await discover(mcp.url, http);
  const authorizationServer = discovery.authorizationServer.metadata;
  const { identity } = await resolveClientIdentity({
    authorizationServer, baseUrl: 'http://127.0.0.1:9', redirectUri: REDIRECT_URI,
  }, http);
  const start = await startAuthorization({ authorizationServer, client: identity, redirectUri: REDIRECT_URI, resource: discovery.resource, scope: 'mcp:read' });
  const callback = await createConsentAgent().authorize(start.authorizationUrl, { redirectUri: REDIRECT_URI });
  const exchange = (url: URL) => exchangeCode({
    authorizationServer, client: identity, callback: url.href, expectedState: start.state,
    codeVerifier: start.codeVerifier, redirectUri: REDIRECT_URI, resource: discovery.resource,
  }, http);
  return { callback, exchange, authorizationServer };
}

test('a callback whose iss names another issuer is refused, and so is one without iss', async (t) => {
  const { callback, exchange, authorizationServer } = await authorizedCallback();
  t.true(authorizationServer.authorization_response_iss_parameter_supported);
  t.is(callback.searchParams.get('iss'), as.issuer);
  const wrong = new URL(callback);
  wrong.searchParams.set('iss', 'http://127.0.0.1:1/evil');
  const error = await t.throwsAsync(exchange(wrong), { instanceOf: CallbackIssuerError });
  t.is(error.failure, FAILURE.authorizationFailed);
  t.false(error.retryable);
  const missing = new URL(callback);
  missing.searchParams.delete('iss');
  await t.throwsAsync(exchange(missing), { instanceOf: CallbackIssuerError, message: /lacks the iss parameter/ });
  // the code was never sent, so the genuine callback still works
  const tokens = await exchange(callback);
  t.truthy(tokens.accessToken);
});

test('a callback with a foreign state is refused; a used code is invalid_grant', async (t) => {
  const { callback, exchange } = await authorizedCallback();
  const forged = new URL(callback);
  forged.searchParams.set('state', 'x'.repeat(43));
  await t.throwsAsync(exchange(forged), { instanceOf: InvalidCallbackError });
  await exchange(callback);
  const replay = await t.throwsAsync(exchange(callback), { instanceOf: InvalidGrantError });
  t.false(replay.retryable);
});

test('a user who denies consent yields access_denied', async (t) => {
  const discovery = await discover(mcp.url, http);
  const authorizationServer = discovery.authorizationServer.metadata;
  const { identity } = await resolveClientIdentity({
    authorizationServer, baseUrl: 'http://127.0.0.1:9', redirectUri: REDIRECT_URI,
  }, http);
  const start = await startAuthorization({ authorizationServer, client: identity, redirectUri: REDIRECT_URI, resource: discovery.resource, scope: 'mcp:read' });
  const callback = await createConsentAgent().authorize(start.authorizationUrl, { redirectUri: REDIRECT_URI, decision: 'deny' });
  t.is(callback.searchParams.get('error'), 'access_denied');
  const error = await t.throwsAsync(exchangeCode({
    authorizationServer, client: identity, callback: callback.href, expectedState: start.state,
    codeVerifier: start.codeVerifier, redirectUri: REDIRECT_URI, resource: discovery.resource,
  }, http), { instanceOf: AuthorizationDeniedError });
  t.is(error.oauthError, 'access_denied');
});
