// The leniencies of activities/oauth/README.md, step by step against the wild test servers: each
// is a field or an encoding with no security meaning that real servers get wrong. The strict
// checks next to them (issuer on another origin, issuer from RFC 9728 metadata) stay strict.
import test from 'ava';
import { registerClient } from '../../activities/oauth/client-registration';
import { legacyAuthorizationServer } from '../../activities/oauth/authorization-server-metadata';
import { clientSecretBasic, formUrlEncode } from '../../activities/oauth/token-auth-method';
import { discoverAuthorization } from '../../activities/oauth/discover';
import { AuthorizationServerError, IssuerMismatchError } from '../../activities/oauth/errors';
import { startWildMcpServer, type WildMcpOptions, type WildMcpServer } from '../fixtures/wild/wild-mcp-server';
import { REDIRECT_URI, testHttp } from './flow';

const http = testHttp();
const servers: WildMcpServer[] = [];

test.after.always(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await http.close();
});

async function wild(options: WildMcpOptions): Promise<WildMcpServer> {
  const server = await startWildMcpServer(options);
  servers.push(server);
  return server;
}

function basicHeader(clientId: string, secret: string): string {
  const headers = new Headers();
  void clientSecretBasic(clientId, secret)({} as never, {} as never, new URLSearchParams(), headers);
  return Buffer.from(headers.get('authorization')!.slice('Basic '.length), 'base64').toString('ascii');
}

test('client_secret_basic form-urlencodes id and secret as RFC 6749 section 2.3.1 says', (t) => {
  t.is(basicHeader('pre-registered-client', 'a.b_c*d'), 'pre-registered-client:a.b_c*d', '-, ., _ and * stay as they are');
  t.is(basicHeader('id~with:colon', 'sp ace+plus'), 'id%7Ewith%3Acolon:sp+ace%2Bplus');
  t.is(basicHeader('ü', '€'), '%C3%BC:%E2%82%AC', 'non-ASCII as percent-encoded UTF-8');
  t.is(formUrlEncode('a=b&c'), 'a%3Db%26c');
});

test('a registration without client_secret_expires_at, answered 200, is used as a secret that does not expire', async (t) => {
  const server = await wild({ registration: 'no-secret-expiry' });
  const asMetadata = { ...server.as.metadataDocument() } as never;
  const registered = await registerClient({ authorizationServer: asMetadata, redirectUri: REDIRECT_URI }, http);
  t.truthy(registered.clientSecret);
  t.is(registered.clientSecretExpiresAt, null);
  t.is(registered.authMethod, 'client_secret_basic');

  const ok200 = await wild({ registration: 'status-200' });
  const again = await registerClient({ authorizationServer: ok200.as.metadataDocument() as never, redirectUri: REDIRECT_URI }, http);
  t.truthy(again.clientId);
});

test('a registration for another auth method than asked: the registration wins, even over the advertised list', async (t) => {
  const server = await wild({ registration: 'other-auth-method', metadata: { token_endpoint_auth_methods_supported: ['client_secret_basic'] } });
  const registered = await registerClient({ authorizationServer: server.as.metadataDocument() as never, redirectUri: REDIRECT_URI }, http);
  t.is(registered.authMethod, 'client_secret_post');
});

test('a registration refused with an RFC 7591 error body relays its code and description; another status says which', async (t) => {
  const refusing = await wild({ registration: 'refuses' });
  const error = await t.throwsAsync(registerClient({ authorizationServer: refusing.as.metadataDocument() as never, redirectUri: REDIRECT_URI }, http), {
    instanceOf: AuthorizationServerError,
  });
  t.is(error?.oauthError, 'invalid_redirect_uri');
  t.regex(String(error?.message), /refused \(invalid_redirect_uri\): redirect URIs must use https/);
  const server = await wild({});
  const misplaced = { ...server.as.metadataDocument(), registration_endpoint: `${server.origin}/nowhere` } as never;
  await t.throwsAsync(registerClient({ authorizationServer: misplaced, redirectUri: REDIRECT_URI }, http), { message: /HTTP 404/ });
});

test('2025-03-26: metadata at the origin may name an issuer with a path on that origin', async (t) => {
  const server = await wild({ resourceMetadataAt: 'none', metadataAt: 'oauth-root-names-path-issuer', issuerPath: '/oauth' });
  const found = await legacyAuthorizationServer({ serverUrl: server.url }, http);
  t.is(found.metadata.issuer, `${server.origin}/oauth`);
  t.is(found.metadata.token_endpoint, `${server.origin}/oauth/token`);
});

test('2025-03-26: an issuer on another origin is still refused', async (t) => {
  const server = await wild({ resourceMetadataAt: 'none', metadataAt: 'oauth-root-names-path-issuer', metadata: { issuer: 'http://127.0.0.2:1/oauth' } });
  await t.throwsAsync(legacyAuthorizationServer({ serverUrl: server.url }, http), { instanceOf: IssuerMismatchError });
});

test('an issuer that came from RFC 9728 metadata is compared exactly, path and all', async (t) => {
  // The resource metadata names <origin>/tenant1; the document found for it names <origin>/other.
  const metadata: Record<string, unknown> = {};
  const server = await wild({ issuerPath: '/tenant1', metadataAt: 'oauth-insert', metadata });
  metadata.issuer = `${server.origin}/other`;
  await t.throwsAsync(discoverAuthorization({ serverUrl: server.url, challenge: null }, http), { instanceOf: IssuerMismatchError });
});
