// Client identity against a real oidc-provider: given credentials with each token endpoint
// authentication method (checked on the wire), Dynamic Client Registration (and reuse of a stored
// registration), and the clear refusal when nothing applies.
import test from 'ava';
import { startOidcServer, type OidcServer, type StaticClient } from '../fixtures/oauth/oidc-server';
import { startProtectedMcpServer, type ProtectedMcpServer } from '../fixtures/oauth/protected-mcp-server';
import { resolveClientIdentity } from '../../activities/oauth/client-identity';
import { chooseTokenAuthMethod } from '../../activities/oauth/token-auth-method';
import { AuthorizationServerError, NoClientIdentityError, UnsupportedAuthMethodError } from '../../activities/oauth/errors';
import type { AuthorizationServerMetadata } from '../../activities/oauth/schemas';
import { authorize, BASE_URL, discover, recordingHttp, REDIRECT_URI, testHttp, type RecordedRequest } from './flow';
import { FAILURE } from '../../contract/failures';

const fetcher = testHttp();
const STATIC_CLIENTS: StaticClient[] = [
  { clientId: 'basic-client', clientSecret: 'basic-secret-0123456789', authMethod: 'client_secret_basic', redirectUris: [REDIRECT_URI] },
  { clientId: 'post-client', clientSecret: 'post-secret-0123456789', authMethod: 'client_secret_post', redirectUris: [REDIRECT_URI] },
  { clientId: 'public-client', authMethod: 'none', redirectUris: [REDIRECT_URI] },
];

let as: OidcServer;
let mcp: ProtectedMcpServer;

test.before(async () => {
  as = await startOidcServer({ staticClients: STATIC_CLIENTS, issuerPath: '/tenant1' });
  mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri });
});

test.after.always(async () => {
  await mcp?.close();
  await as?.close();
  await fetcher.close();
});

const metadata = (extra: Partial<AuthorizationServerMetadata>): AuthorizationServerMetadata => ({
  issuer: 'https://as.example.com',
  authorization_endpoint: 'https://as.example.com/authorize',
  token_endpoint: 'https://as.example.com/token',
  ...extra,
});

test('the token endpoint auth method follows what the server and the registration allow', (t) => {
  const both = metadata({ token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'none'] });
  t.is(chooseTokenAuthMethod(both, { hasSecret: true }), 'client_secret_basic');
  t.is(chooseTokenAuthMethod(both, { hasSecret: false }), 'none');
  t.is(chooseTokenAuthMethod(both, { hasSecret: true, registered: 'client_secret_post' }), 'client_secret_post');
  t.is(chooseTokenAuthMethod(metadata({ token_endpoint_auth_methods_supported: ['client_secret_post'] }), { hasSecret: true }), 'client_secret_post');
  t.is(chooseTokenAuthMethod(metadata({}), { hasSecret: true }), 'client_secret_basic', 'RFC 8414 default');
  const error = t.throws(() => chooseTokenAuthMethod(metadata({ token_endpoint_auth_methods_supported: ['private_key_jwt'] }), { hasSecret: true }), {
    instanceOf: UnsupportedAuthMethodError,
  });
  t.is(error.failure, FAILURE.unprocessable);
  t.throws(() => chooseTokenAuthMethod(metadata({ token_endpoint_auth_methods_supported: ['client_secret_basic'] }), { hasSecret: false }), {
    instanceOf: UnsupportedAuthMethodError,
    message: /does not accept public clients/,
  });
});

/** The token request the flow sent, as the authorization server received it. */
function tokenRequest(requests: RecordedRequest[]): { authorization: string | null; body: URLSearchParams } {
  const request = requests.find((r) => r.url.endsWith('/token') && r.method === 'POST');
  if (!request) throw new Error('no token request was sent');
  return { authorization: request.headers.get('authorization'), body: new URLSearchParams(request.body ?? '') };
}

test('given credentials with client_secret_basic complete the flow (issuer with a path)', async (t) => {
  const recorded = recordingHttp(fetcher);
  const flow = await authorize(mcp.url, recorded, { given: { clientId: 'basic-client', clientSecret: 'basic-secret-0123456789' } });
  t.is(flow.client.identity.source, 'given');
  t.is(flow.client.identity.authMethod, 'client_secret_basic');
  t.is(flow.client.newRegistration, null);
  t.is(flow.callback.searchParams.get('iss'), `${as.origin}/tenant1`);
  t.truthy(flow.tokens.accessToken);
  const sent = tokenRequest(recorded.requests);
  // RFC 6749 section 2.3.1: id and secret are form-encoded, then joined and base64-encoded
  const [id, secret] = Buffer.from(sent.authorization!.replace(/^Basic /, ''), 'base64').toString().split(':').map(decodeURIComponent);
  t.deepEqual([id, secret], ['basic-client', 'basic-secret-0123456789']);
  t.false(sent.body.has('client_secret'));
  t.is(sent.body.get('resource'), mcp.url);
  t.truthy(sent.body.get('code_verifier'));
});

test('given credentials without a secret authenticate with none', async (t) => {
  const recorded = recordingHttp(fetcher);
  const flow = await authorize(mcp.url, recorded, { given: { clientId: 'public-client' } });
  t.is(flow.client.identity.authMethod, 'none');
  t.is(flow.client.identity.clientSecret, null);
  t.truthy(flow.tokens.refreshToken);
  const sent = tokenRequest(recorded.requests);
  t.is(sent.authorization, null);
  t.is(sent.body.get('client_id'), 'public-client');
  t.false(sent.body.has('client_secret'));
});

test('given credentials use client_secret_post where the server advertises only that', async (t) => {
  const postOnly = await startOidcServer({
    staticClients: STATIC_CLIENTS,
    metadata: { token_endpoint_auth_methods_supported: ['client_secret_post', 'none'] },
  });
  const server = await startProtectedMcpServer({ issuer: postOnly.issuer, jwksUri: postOnly.jwksUri });
  try {
    const recorded = recordingHttp(fetcher);
    const flow = await authorize(server.url, recorded, { given: { clientId: 'post-client', clientSecret: 'post-secret-0123456789' } });
    t.is(flow.client.identity.authMethod, 'client_secret_post');
    t.truthy(flow.tokens.accessToken);
    const sent = tokenRequest(recorded.requests);
    t.is(sent.authorization, null);
    t.is(sent.body.get('client_id'), 'post-client');
    t.is(sent.body.get('client_secret'), 'post-secret-0123456789');
  } finally {
    await server.close();
    await postOnly.close();
  }
});

test('given credentials may name their method when the server advertises several', async (t) => {
  const flow = await authorize(mcp.url, fetcher, {
    given: { clientId: 'post-client', clientSecret: 'post-secret-0123456789', authMethod: 'client_secret_post' },
  });
  t.is(flow.client.identity.authMethod, 'client_secret_post');
  t.truthy(flow.tokens.accessToken);
});

test('a public client sent with a secret is refused by the server as invalid_client', async (t) => {
  const error = await t.throwsAsync(authorize(mcp.url, fetcher, { given: { clientId: 'public-client', clientSecret: 'made-up' } }), {
    instanceOf: AuthorizationServerError,
  });
  t.is(error.oauthError, 'invalid_client');
  t.false(error.retryable);
});

test('dynamic registration registers once; a stored registration is reused', async (t) => {
  const first = await authorize(mcp.url, fetcher);
  const registration = first.client.newRegistration;
  t.truthy(registration);
  t.is(registration!.issuer, as.issuer);
  t.is(registration!.redirectUri, REDIRECT_URI);
  t.is(registration!.authMethod, 'client_secret_basic');
  t.truthy(registration!.clientSecret);
  const second = await authorize(mcp.url, fetcher, { registration });
  t.is(second.client.newRegistration, null);
  t.is(second.client.identity.clientId, registration!.clientId);
  t.truthy(second.tokens.accessToken);
  const elsewhere = await authorize(mcp.url, fetcher, { registration: { ...registration!, issuer: 'https://other.example.com' } });
  t.not(elsewhere.client.identity.clientId, registration!.clientId, 'a registration of another issuer is not used');
});

test('a stored registration whose method the server no longer lists is made again, with a method it lists', async (t) => {
  const first = await authorize(mcp.url, fetcher);
  const stored = first.client.newRegistration!;
  t.is(stored.authMethod, 'client_secret_basic');
  // The same issuer, now advertising public clients only: what a server redeployed with another
  // policy says, or another server on the same address (the conformance suite's scenarios reuse
  // ports). The metadata is narrowed here; the registration it leads to is the real server's.
  const discovered = (await discover(mcp.url, fetcher)).authorizationServer.metadata;
  const publicOnly = { ...discovered, token_endpoint_auth_methods_supported: ['none'] };
  const input = { authorizationServer: publicOnly, registration: stored, baseUrl: BASE_URL, redirectUri: REDIRECT_URI };
  const again = await resolveClientIdentity(input, fetcher);
  t.truthy(again.newRegistration, 'registered again');
  t.not(again.identity.clientId, stored.clientId);
  t.is(again.identity.authMethod, 'none');
  const kept = await resolveClientIdentity({ ...input, authorizationServer: discovered }, fetcher);
  t.is(kept.newRegistration, null, 'where the server still lists its method, the registration is reused');
  t.is(kept.identity.clientId, stored.clientId);
});

test('dynamic registration names the service a web application (SEP-837), and the server registers it so', async (t) => {
  const http = recordingHttp(fetcher);
  const flow = await authorize(mcp.url, http);
  const registration = http.requests.find((r) => r.method === 'POST' && r.url.endsWith('/reg'));
  t.truthy(registration, http.requests.map((r) => `${r.method} ${r.url}`).join(', '));
  t.like(JSON.parse(registration!.body!), { application_type: 'web', redirect_uris: [REDIRECT_URI] });
  const client = await as.provider.Client.find(flow.client.identity.clientId);
  t.is(client?.applicationType, 'web');
});

test('a server that offers both: the client ID metadata document is preferred over registration', async (t) => {
  const asked: string[] = [];
  const noNetwork = { fetch: async (url: string | URL) => { asked.push(String(url)); throw new Error('nothing may be fetched'); } };
  const resolved = await resolveClientIdentity({
    authorizationServer: metadata({ registration_endpoint: 'https://as.example.com/register', client_id_metadata_document_supported: true }),
    baseUrl: 'https://connector.example.com', redirectUri: 'https://connector.example.com/api/v1/connectors/oauth/callback',
  }, noNetwork);
  t.deepEqual(resolved, {
    identity: { clientId: 'https://connector.example.com/api/v1/oauth/client-metadata.json', clientSecret: null, authMethod: 'none', source: 'metadata-document' },
    newRegistration: null,
  });
  t.deepEqual(asked, [], 'no registration request');
});

test('without credentials, registration or metadata documents, identity fails with a clear 422', async (t) => {
  const closed = await startOidcServer({ registration: false });
  const server = await startProtectedMcpServer({ issuer: closed.issuer, jwksUri: closed.jwksUri });
  try {
    const discovery = await discover(server.url, fetcher);
    const error = await t.throwsAsync(resolveClientIdentity({
      authorizationServer: discovery.authorizationServer.metadata, baseUrl: 'http://127.0.0.1:9', redirectUri: REDIRECT_URI,
    }, fetcher), { instanceOf: NoClientIdentityError });
    t.is(error.failure, FAILURE.unprocessable);
    t.regex(error.message, /neither dynamic client registration nor client ID metadata documents/);
  } finally {
    await server.close();
    await closed.close();
  }
});
