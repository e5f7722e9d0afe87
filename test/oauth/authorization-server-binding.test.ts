// SEP-2352 as the OAuth client: a connector is bound to the authorization server of its last
// grant. When the MCP server's protected-resource metadata names another one, the service
// registers there anew and issues a new authorization URL for it, and never sends client
// credentials that were given for the old server to the new one. Against two real oidc-providers.
import test from 'ava';
import { ApplicationFailure } from '@temporalio/common';
import { createOAuthActivities } from '../../activities/oauth-activities';
import { checkAuthorizationServerBinding } from '../../activities/oauth/authorization-server-binding';
import { AuthorizationServerChangedError } from '../../activities/oauth/errors';
import { SecretBox, secretContext } from '../../platform/secret-box';
import type { OAuthStore } from '../../store/oauth-store';
import { startOidcServer, type OidcServer } from '../fixtures/oauth/oidc-server';
import { startProtectedMcpServer, type ProtectedMcpServer } from '../fixtures/oauth/protected-mcp-server';
import { recordingHttp, testHttp } from './flow';
import type { OAuthHttp } from '../../activities/oauth/http';
import { FAILURE } from '../../contract/failures';

const fetcher = testHttp();
const secrets = new SecretBox(Buffer.alloc(32, 7));
const CONNECTOR = '0193a0c4-0000-7000-8000-0000000000b1';
let oldAs: OidcServer;
let newAs: OidcServer;
let moved: ProtectedMcpServer;

test.before(async () => {
  [oldAs, newAs] = await Promise.all([startOidcServer(), startOidcServer()]);
  moved = await startProtectedMcpServer({ issuer: newAs.issuer, jwksUri: newAs.jwksUri });
});

test.after.always(async () => {
  await moved?.close();
  await Promise.all([oldAs?.close(), newAs?.close()]);
  await fetcher.close();
});

function activities(saved: unknown[], http: OAuthHttp = fetcher) {
  const store = {
    registration: async () => null,
    saveRegistration: async (r: unknown) => void saved.push(r),
    rememberState: async () => undefined,
  } as unknown as OAuthStore;
  return createOAuthActivities({
    http, secrets, oauthStore: store, baseUrl: 'http://127.0.0.1:9', authTimeoutSeconds: 600, presets: [],
    addressPolicy: { blockPrivateNetworks: false, allowedPrivateNetworks: [] },
  });
}

test('the binding: unchanged or never bound is no change; a change with given credentials is refused', (t) => {
  t.deepEqual(checkAuthorizationServerBinding({ boundIssuer: null, issuer: 'https://a.example', givenCredentials: true }), { changed: false });
  t.deepEqual(checkAuthorizationServerBinding({ boundIssuer: 'https://a.example', issuer: 'https://a.example', givenCredentials: true }), { changed: false });
  t.deepEqual(checkAuthorizationServerBinding({ boundIssuer: 'https://a.example', issuer: 'https://b.example', givenCredentials: false }), { changed: true });
  const error = t.throws(() => checkAuthorizationServerBinding({ boundIssuer: 'https://a.example', issuer: 'https://b.example', givenCredentials: true }), {
    instanceOf: AuthorizationServerChangedError,
  });
  t.is(error.failure, FAILURE.unprocessable);
});

test('a server that moved to another authorization server: registered there anew, and the URL is for the new server', async (t) => {
  const saved: { issuer: string }[] = [];
  const begin = await activities(saved).oauthBegin({
    connectorId: CONNECTOR, url: moved.url, given: null, redirectUrl: null, extraScopes: [], boundIssuer: oldAs.issuer,
  });
  if (begin.kind !== 'authorize') return t.fail(`expected an authorization, got ${begin.kind}`);
  t.deepEqual(begin.authorizationServerChanged, { from: oldAs.issuer, to: newAs.issuer });
  t.is(begin.pending.context.authorizationServer.issuer, newAs.issuer);
  t.deepEqual(saved.map((r) => r.issuer), [newAs.issuer], 'a registration of its own at the new server');
  t.is(begin.pending.context.client.source, 'registered');
});

test('the same server as before is no move', async (t) => {
  const begin = await activities([]).oauthBegin({
    connectorId: CONNECTOR, url: moved.url, given: null, redirectUrl: null, extraScopes: [], boundIssuer: newAs.issuer,
  });
  t.is(begin.kind === 'authorize' ? begin.authorizationServerChanged : undefined, null);
});

test('client credentials given for the old server are refused (422), and nothing is sent to the new one but discovery', async (t) => {
  const wire = recordingHttp(fetcher);
  const given = { clientId: 'given-for-the-old-server', clientSecret: secrets.seal('old-secret', secretContext(CONNECTOR, 'client_secret')) };
  const failure = await t.throwsAsync(activities([], wire).oauthBegin({
    connectorId: CONNECTOR, url: moved.url, given, redirectUrl: null, extraScopes: [], boundIssuer: oldAs.issuer,
  }), { instanceOf: ApplicationFailure });
  t.is(failure.type, 'Unprocessable');
  t.regex(failure.message, /now names the authorization server .* not sent to another server/);
  const toNewServer = wire.requests.filter((r) => r.url.startsWith(newAs.issuer));
  t.true(toNewServer.every((r) => r.method === 'GET' && r.url.includes('/.well-known/')), toNewServer.map((r) => `${r.method} ${r.url}`).join(', '));
  t.false(wire.requests.some((r) => r.headers.get('authorization') !== null || (r.body ?? '').includes('given-for-the-old-server')));
});
