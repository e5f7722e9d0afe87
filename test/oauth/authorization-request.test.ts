// The authorization request: PKCE S256 always (and refusal where it is not advertised), the RFC
// 8707 resource, a 256-bit state, and the scope chosen from the challenge, the resource's
// scopes_supported, or nothing.
import test from 'ava';
import crypto from 'node:crypto';
import { startOidcServer, type OidcServer } from '../fixtures/oauth/oidc-server';
import { startProtectedMcpServer, type ProtectedMcpServerOptions } from '../fixtures/oauth/protected-mcp-server';
import { startAuthorization } from '../../activities/oauth/authorization-request';
import { resolveClientIdentity } from '../../activities/oauth/client-identity';
import { selectScope } from '../../activities/oauth/scope';
import { PkceNotSupportedError } from '../../activities/oauth/errors';
import type { AuthorizationDiscovery } from '../../activities/oauth/discover';
import { discover, REDIRECT_URI, testHttp } from './flow';
import { FAILURE } from '../../contract/failures';

const http = testHttp();
let as: OidcServer;
const cleanups: Array<() => Promise<void>> = [];

test.before(async () => {
  as = await startOidcServer();
});

test.after.always(async () => {
  await Promise.all(cleanups.map((close) => close()));
  await as?.close();
  await http.close();
});

async function discoverWith(options: Partial<ProtectedMcpServerOptions>, server = as): Promise<AuthorizationDiscovery> {
  const mcp = await startProtectedMcpServer({ issuer: server.issuer, jwksUri: server.jwksUri, ...options });
  cleanups.push(() => mcp.close());
  return discover(mcp.url, http);
}

async function authorizationUrl(discovery: AuthorizationDiscovery): Promise<URL> {
  const authorizationServer = discovery.authorizationServer.metadata;
  const scope = selectScope({
    challengeScope: discovery.challengeScope,
    resourceScopes: discovery.resourceMetadata?.scopes_supported,
    authorizationServerScopes: authorizationServer.scopes_supported,
  });
  const start = await startAuthorization({
    authorizationServer, redirectUri: REDIRECT_URI, resource: discovery.resource, scope,
    client: { clientId: 'public-client', clientSecret: null, authMethod: 'none', source: 'given' },
  });
  return new URL(start.authorizationUrl);
}

test('the request carries PKCE S256, the resource, the redirect URI and a 256-bit state', async (t) => {
  const discovery = await discoverWith({});
  const authorizationServer = discovery.authorizationServer.metadata;
  const start = await startAuthorization({
    authorizationServer, redirectUri: REDIRECT_URI, resource: discovery.resource, scope: 'mcp:read',
    client: { clientId: 'public-client', clientSecret: null, authMethod: 'none', source: 'given' },
  });
  const url = new URL(start.authorizationUrl);
  t.is(`${url.origin}${url.pathname}`, authorizationServer.authorization_endpoint);
  t.is(url.searchParams.get('response_type'), 'code');
  t.is(url.searchParams.get('client_id'), 'public-client');
  t.is(url.searchParams.get('redirect_uri'), REDIRECT_URI);
  t.is(url.searchParams.get('resource'), discovery.serverUri);
  t.is(url.searchParams.get('code_challenge_method'), 'S256');
  t.is(url.searchParams.get('code_challenge'), crypto.createHash('sha256').update(start.codeVerifier).digest('base64url'));
  t.is(url.searchParams.get('state'), start.state);
  t.is(Buffer.from(start.state, 'base64url').length, 32);
  t.false(url.searchParams.has('prompt'), 'no offline_access, no prompt');
});

test('an authorization server that does not advertise S256 is refused at discovery with a clear 422', async (t) => {
  const noS256 = await startOidcServer({ advertiseS256: false });
  cleanups.push(() => noS256.close());
  const error = await t.throwsAsync(discoverWith({}, noS256), { instanceOf: PkceNotSupportedError });
  t.is(error.failure, FAILURE.unprocessable);
  t.false(error.retryable);
  t.regex(error.message, new RegExp(`${noS256.issuer} does not advertise PKCE support`));
});

test('an authorization request is never built for a server without S256', async (t) => {
  const discovery = await discoverWith({});
  const client = { clientId: 'c', clientSecret: null, authMethod: 'none', source: 'given' } as const;
  for (const methods of [['plain'], undefined]) {
    const authorizationServer = { ...discovery.authorizationServer.metadata, code_challenge_methods_supported: methods };
    await t.throwsAsync(startAuthorization({ authorizationServer, redirectUri: REDIRECT_URI, resource: discovery.resource, scope: null, client }), {
      instanceOf: PkceNotSupportedError,
      message: methods ? /advertises plain/ : /does not advertise PKCE support/,
    });
  }
});

test('the scope comes from the challenge first, with offline_access added', async (t) => {
  const url = await authorizationUrl(await discoverWith({ scopesSupported: ['mcp:read', 'mcp:admin'], challengeScope: 'mcp:admin' }));
  t.is(url.searchParams.get('scope'), 'mcp:admin offline_access');
  t.is(url.searchParams.get('prompt'), 'consent', 'OpenID servers grant offline_access only with consent');
});

test('without a challenge scope, all of scopes_supported is requested', async (t) => {
  const url = await authorizationUrl(await discoverWith({ scopesSupported: ['mcp:read', 'mcp:admin'], challengeScope: null }));
  t.is(url.searchParams.get('scope'), 'mcp:read mcp:admin offline_access');
});

test('without either, the scope parameter is omitted', async (t) => {
  const url = await authorizationUrl(await discoverWith({ scopesSupported: null, challengeScope: null }));
  t.false(url.searchParams.has('scope'));
  t.false(url.searchParams.has('prompt'));
});

test('scope selection rules in isolation', (t) => {
  t.is(selectScope({ challengeScope: ' a  b ', resourceScopes: ['c'] }), 'a b');
  t.is(selectScope({ challengeScope: '', resourceScopes: ['c', 'd'] }), 'c d');
  t.is(selectScope({ resourceScopes: ['c'], authorizationServerScopes: ['openid'] }), 'c', 'offline_access only where listed');
  t.is(selectScope({ challengeScope: 'offline_access x', authorizationServerScopes: ['offline_access'] }), 'offline_access x');
  t.is(selectScope({ authorizationServerScopes: ['offline_access'] }), null);
});

test('a client identity and its authorization URL are built without further requests', async (t) => {
  const discovery = await discoverWith({});
  const resolved = await resolveClientIdentity({
    authorizationServer: discovery.authorizationServer.metadata,
    given: { clientId: 'preset-client' }, baseUrl: 'http://127.0.0.1:9', redirectUri: REDIRECT_URI,
  }, { fetch: () => Promise.reject(new Error('no request expected')) });
  t.deepEqual(resolved.identity, { clientId: 'preset-client', clientSecret: null, authMethod: 'none', source: 'given' });
});
