// Discovery against real servers: where the protected-resource metadata is found (challenge URL,
// path-aware, root), which authorization-server documents are tried (RFC 8414 only, OpenID only,
// issuers with a path), the 2025-03-26 fallbacks, and the validation that refuses mismatches.
import test from 'ava';
import { startOidcServer, type OidcServer, type OidcServerOptions } from '../fixtures/oauth/oidc-server';
import { startProtectedMcpServer, type ProtectedMcpServerOptions } from '../fixtures/oauth/protected-mcp-server';
import { authorizationServerMetadataUrls } from '../../activities/oauth/authorization-server-metadata';
import { buildDiscoveryUrls } from '@modelcontextprotocol/client';
import { resourceMetadataUrls } from '../../activities/oauth/resource-metadata';
import {
  AuthorizationServerMetadataError, IssuerMismatchError, ResourceMetadataError, ResourceMismatchError,
} from '../../activities/oauth/errors';
import { discoverAuthorization } from '../../activities/oauth/discover';
import { discover, testHttp } from './flow';
import { FAILURE } from '../../contract/failures';

const http = testHttp();
const cleanups: Array<() => Promise<void>> = [];

test.after.always(async () => {
  await Promise.all(cleanups.map((close) => close()));
  await http.close();
});

async function authorizationServer(options: OidcServerOptions = {}): Promise<OidcServer> {
  const as = await startOidcServer(options);
  cleanups.push(() => as.close());
  return as;
}

async function mcpServer(as: OidcServer, options: Partial<ProtectedMcpServerOptions> = {}) {
  const mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri, ...options });
  cleanups.push(() => mcp.close());
  return mcp;
}

test('the well-known locations follow the order of MCP 2025-11-25', (t) => {
  t.deepEqual(resourceMetadataUrls('https://mcp.example.com/public/mcp/'), [
    'https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp',
    'https://mcp.example.com/.well-known/oauth-protected-resource',
  ]);
  t.deepEqual(resourceMetadataUrls('https://mcp.example.com'), ['https://mcp.example.com/.well-known/oauth-protected-resource']);
  t.deepEqual(resourceMetadataUrls('https://mcp.example.com/mcp?tenant=a')[0], 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp?tenant=a');
  t.deepEqual(authorizationServerMetadataUrls('https://auth.example.com/tenant1').map((l) => l.url), [
    'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
    'https://auth.example.com/.well-known/openid-configuration/tenant1',
    'https://auth.example.com/tenant1/.well-known/openid-configuration',
  ]);
  t.deepEqual(authorizationServerMetadataUrls('https://auth.example.com/').map((l) => l.url), [
    'https://auth.example.com/.well-known/oauth-authorization-server',
    'https://auth.example.com/.well-known/openid-configuration',
  ]);
});

test('RFC 8414 well-known suffixes (SEP-2351): the same locations, in the same order, as the MCP SDK v2 client', (t) => {
  for (const issuer of ['https://auth.example.com', 'https://auth.example.com/', 'https://auth.example.com/tenant1', 'https://auth.example.com/a/b/']) {
    const sdk = buildDiscoveryUrls(issuer).map(({ url, type }) => ({ url: url.href, kind: type }));
    t.deepEqual(authorizationServerMetadataUrls(issuer), sdk, issuer);
  }
});

test('the metadata URL from the challenge is used, even at a location no well-known URL reaches', async (t) => {
  const as = await authorizationServer();
  const mcp = await mcpServer(as, { metadataLocation: 'custom' });
  const discovery = await discover(mcp.url, http);
  t.is(discovery.resourceMetadataUrl, `${mcp.origin}/meta/protected-resource.json`);
  t.is(discovery.protocol, '2025-11-25');
  t.is(discovery.resource, mcp.url);
  t.is(discovery.challengeScope, 'mcp:read');
  t.is(discovery.authorizationServer.metadata.issuer, as.issuer);
});

test('without a URL in the challenge, the path-aware well-known location is found', async (t) => {
  const as = await authorizationServer();
  const mcp = await mcpServer(as, { metadataLocation: 'path-aware', advertiseMetadataUrl: false });
  const discovery = await discover(mcp.url, http);
  t.is(discovery.resourceMetadataUrl, `${mcp.origin}/.well-known/oauth-protected-resource/mcp`);
});

test('without a URL in the challenge, the root well-known location is the fallback', async (t) => {
  const as = await authorizationServer();
  const mcp = await mcpServer(as, { metadataLocation: 'root', advertiseMetadataUrl: false });
  const discovery = await discover(mcp.url, http);
  t.is(discovery.resourceMetadataUrl, `${mcp.origin}/.well-known/oauth-protected-resource`);
});

test('metadata naming the server origin as the resource is accepted, and that resource is requested', async (t) => {
  const as = await authorizationServer();
  const mcp = await mcpServer(as, { metadataLocation: 'root', resource: (origin) => origin });
  const discovery = await discover(mcp.url, http);
  t.is(discovery.serverUri, mcp.url);
  t.is(discovery.resource, mcp.origin);
});

test('metadata describing another resource is refused', async (t) => {
  const as = await authorizationServer();
  const mcp = await mcpServer(as, { resource: 'http://127.0.0.1:1/other' });
  const error = await t.throwsAsync(discover(mcp.url, http), { instanceOf: ResourceMismatchError });
  t.is(error.failure, FAILURE.upstreamError);
  t.regex(error.message, /describes http:\/\/127\.0\.0\.1:1\/other/);
});

test('a challenge URL that leads nowhere is an error, not a silent fallback', async (t) => {
  const as = await authorizationServer();
  const mcp = await mcpServer(as, { metadataLocation: 'custom' });
  await t.throwsAsync(discoverAuthorization({
    serverUrl: mcp.url,
    challenge: { resourceMetadata: `${mcp.origin}/missing`, scope: null, error: null, errorDescription: null },
  }, http), { instanceOf: ResourceMetadataError });
});

test('an authorization server with only RFC 8414 metadata is discovered', async (t) => {
  const as = await authorizationServer({ discovery: 'oauth' });
  const mcp = await mcpServer(as);
  const found = (await discover(mcp.url, http)).authorizationServer;
  t.is(found.kind, 'oauth');
  t.is(found.url, `${as.origin}/.well-known/oauth-authorization-server`);
});

test('an authorization server with only OpenID discovery is discovered', async (t) => {
  const as = await authorizationServer({ discovery: 'oidc' });
  const mcp = await mcpServer(as);
  const found = (await discover(mcp.url, http)).authorizationServer;
  t.is(found.kind, 'oidc');
  t.is(found.url, `${as.origin}/.well-known/openid-configuration`);
});

test('an issuer with a path: RFC 8414 path insertion is tried first', async (t) => {
  const as = await authorizationServer({ issuerPath: '/tenant1', discovery: 'oauth' });
  const mcp = await mcpServer(as);
  const found = (await discover(mcp.url, http)).authorizationServer;
  t.is(found.url, `${as.origin}/.well-known/oauth-authorization-server/tenant1`);
  t.is(found.metadata.issuer, `${as.origin}/tenant1`);
  t.is(found.metadata.token_endpoint, `${as.origin}/tenant1/token`);
});

test('an issuer with a path and OpenID discovery only: OpenID path insertion comes next', async (t) => {
  const as = await authorizationServer({ issuerPath: '/tenant1', discovery: 'oidc' });
  const mcp = await mcpServer(as);
  const found = (await discover(mcp.url, http)).authorizationServer;
  t.is(found.kind, 'oidc');
  t.is(found.url, `${as.origin}/.well-known/openid-configuration/tenant1`);
});

test('metadata naming another issuer is refused', async (t) => {
  const as = await authorizationServer({ metadata: { issuer: 'http://127.0.0.1:1' } });
  const mcp = await mcpServer(as);
  const error = await t.throwsAsync(discover(mcp.url, http), { instanceOf: IssuerMismatchError });
  t.false(error.retryable);
});

test('an authorization server without any metadata is an error naming it', async (t) => {
  const as = await authorizationServer();
  const mcp = await mcpServer(as, { authorizationServers: [`${as.origin}/nothing-here`] });
  const error = await t.throwsAsync(discover(mcp.url, http), { instanceOf: AuthorizationServerMetadataError });
  t.regex(error.message, /nothing-here/);
});

test('a 2025-03-26 server: authorization server metadata at the MCP server origin', async (t) => {
  const as = await authorizationServer();
  const mcp = await mcpServer(as, {
    legacy: true,
    originAuthorizationServerMetadata: (origin) => ({
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/oauth/token`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    }),
  });
  const discovery = await discover(mcp.url, http);
  t.is(discovery.protocol, '2025-03-26');
  t.is(discovery.resourceMetadata, null);
  t.is(discovery.resource, mcp.url);
  t.is(discovery.authorizationServer.kind, 'oauth');
  t.is(discovery.authorizationServer.metadata.token_endpoint, `${mcp.origin}/oauth/token`);
});

test('a 2025-03-26 server without any metadata gets the default endpoints at its origin', async (t) => {
  const as = await authorizationServer();
  const mcp = await mcpServer(as, { legacy: true });
  const discovery = await discover(mcp.url, http);
  t.is(discovery.authorizationServer.kind, 'default-endpoints');
  t.is(discovery.authorizationServer.url, null);
  t.like(discovery.authorizationServer.metadata, {
    issuer: mcp.origin,
    authorization_endpoint: `${mcp.origin}/authorize`,
    token_endpoint: `${mcp.origin}/token`,
    registration_endpoint: `${mcp.origin}/register`,
  });
});
