// A single-use credential is presented to its authorization server once, however often the
// activity that presents it runs (activities/present-once.ts, store/refresh-ledger.ts): a refresh
// token, and an authorization code. Against a real oidc-provider, which rotates refresh tokens and
// revokes the whole grant when one is presented twice, and refuses a code exchanged before, and the
// embedded database (FerretDB) for the ledger.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { MongoClient, type Db } from 'mongodb';
import { createOAuthActivities } from '../../activities/oauth-activities';
import { OAuthSecrets } from '../../activities/oauth-secrets';
import { refreshTokens } from '../../activities/oauth/refresh';
import { exchangeCode } from '../../activities/oauth';
import { InvalidGrantError } from '../../activities/oauth/errors';
import type { OAuthContext, PendingAuthorization } from '../../activities/oauth/oauth-state';
import { createLogger } from '../../platform/logger';
import { SecretBox, secretContext } from '../../platform/secret-box';
import { startFerretDb, type FerretDbServer } from '../../stack/servers/ferretdb-server';
import { OAuthStore } from '../../store/oauth-store';
import { LEDGER_EXPIRY, STALE_CLAIM_MS } from '../../store/refresh-ledger';
import { startOidcServer, type OidcServer } from '../fixtures/oauth/oidc-server';
import { startProtectedMcpServer, type ProtectedMcpServer } from '../fixtures/oauth/protected-mcp-server';
import { authorize, consent, recordingHttp, REDIRECT_URI, testHttp, type AuthorizedFlow } from './flow';

const log = createLogger('test-refresh-once', process.env.LOG_LEVEL ?? 'silent');
const fetcher = testHttp();
const box = new SecretBox(Buffer.alloc(32, 9));
const secrets = new OAuthSecrets(box, []);
let dataDir: string;
let ferret: FerretDbServer;
let client: MongoClient;
let db: Db;
let oauthStore: OAuthStore;
let as: OidcServer;
let mcp: ProtectedMcpServer;
let connectorCount = 0;

test.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'refresh-once-'));
  ferret = await startFerretDb({ dataDir, port: 0, log });
  client = new MongoClient(ferret.uri);
  db = client.db('refresh_once_test');
  oauthStore = new OAuthStore(db);
  await oauthStore.ensureIndexes();
  as = await startOidcServer({ accessTokenTtl: 300, rotateRefreshTokens: true });
  mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri });
});

test.after.always(async () => {
  await mcp?.close();
  await as?.close();
  await fetcher.close();
  await client?.close();
  await ferret?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** The refresh activity as the worker builds it, with a wire that counts refresh requests. */
function activities() {
  const wire = recordingHttp(fetcher);
  const built = createOAuthActivities({
    http: wire, secrets: box, oauthStore, baseUrl: 'http://127.0.0.1:9', authTimeoutSeconds: 600, presets: [],
    addressPolicy: { blockPrivateNetworks: false, allowedPrivateNetworks: [] },
  });
  const granted = (type: string) => wire.requests.filter((r) => r.method === 'POST' && new URLSearchParams(r.body ?? '').get('grant_type') === type).length;
  return { ...built, presented: () => granted('refresh_token'), exchanged: () => granted('authorization_code') };
}

function nextConnectorId(): string {
  connectorCount += 1;
  return `0193a0c4-0000-7000-8000-${String(connectorCount).padStart(12, '0')}`;
}

/** A connector with a fresh grant at oidc-provider: the refresh activity's input, its token sealed as the workflow holds it. */
async function grantedConnector() {
  const connectorId = nextConnectorId();
  const flow = await authorize(mcp.url, fetcher);
  return { connectorId, flow, input: refreshInput(connectorId, flow, flow.tokens.refreshToken!) };
}

function refreshInput(connectorId: string, flow: AuthorizedFlow, refreshToken: string) {
  const context: OAuthContext = {
    authorizationServer: flow.discovery.authorizationServer.metadata, resource: flow.discovery.resource, scope: null,
    redirectUri: REDIRECT_URI, client: secrets.sealClient(connectorId, flow.client.identity, null),
  };
  return { connectorId, context, refreshToken: box.seal(refreshToken, secretContext(connectorId, 'refresh_token')) };
}

const openRefreshToken = (connectorId: string, sealed: string) => box.open(sealed, secretContext(connectorId, 'refresh_token'));

test('the hazard: oidc-provider revokes the whole grant when a rotated refresh token is presented again', async (t) => {
  const { flow } = await grantedConnector();
  const request = { authorizationServer: flow.discovery.authorizationServer.metadata, client: flow.client.identity, resource: flow.discovery.resource };
  const first = await refreshTokens({ ...request, refreshToken: flow.tokens.refreshToken! }, fetcher);
  await t.throwsAsync(refreshTokens({ ...request, refreshToken: flow.tokens.refreshToken! }, fetcher), { instanceOf: InvalidGrantError });
  await t.throwsAsync(refreshTokens({ ...request, refreshToken: first.refreshToken! }, fetcher), { instanceOf: InvalidGrantError }, 'the rotated token died with the grant');
});

test('a refresh run again with the same refresh token gets the first run\'s answer, and the grant lives on', async (t) => {
  const { connectorId, flow, input } = await grantedConnector();
  const refresh = activities();
  const first = await refresh.oauthRefresh(input);
  const again = await refresh.oauthRefresh(input);
  t.deepEqual(again, first, 'the same sealed tokens');
  t.is(refresh.presented(), 1, 'the token was presented once');
  const next = await refresh.oauthRefresh(refreshInput(connectorId, flow, openRefreshToken(connectorId, first.refreshToken!)));
  t.not(openRefreshToken(connectorId, next.refreshToken!), openRefreshToken(connectorId, first.refreshToken!), 'the grant rotated again: it was never revoked');
  t.is(refresh.presented(), 2);
});

test('a server that does not rotate: each refresh presents the same refresh token anew and gets a new access token', async (t) => {
  const steady = await startOidcServer({ accessTokenTtl: 300, rotateRefreshTokens: false });
  const server = await startProtectedMcpServer({ issuer: steady.issuer, jwksUri: steady.jwksUri });
  t.teardown(async () => { await server.close(); await steady.close(); });
  const connectorId = '0193a0c4-0000-7000-8000-00000000aaaa';
  const flow = await authorize(server.url, fetcher);
  const refresh = activities();
  const first = await refresh.oauthRefresh(refreshInput(connectorId, flow, flow.tokens.refreshToken!));
  t.is(openRefreshToken(connectorId, first.refreshToken!), flow.tokens.refreshToken!, 'not rotated');
  const second = await refresh.oauthRefresh(refreshInput(connectorId, flow, flow.tokens.refreshToken!));
  t.is(refresh.presented(), 2, 'an unspent token leaves no answer behind');
  t.not(box.open(second.accessToken, secretContext(connectorId, 'access_token')), box.open(first.accessToken, secretContext(connectorId, 'access_token')));
});

test('two runs at once with one refresh token: one presents it, the other waits for its answer', async (t) => {
  const { input } = await grantedConnector();
  const refresh = activities();
  const [a, b] = await Promise.all([refresh.oauthRefresh(input), refresh.oauthRefresh(input)]);
  t.deepEqual(a, b);
  t.is(refresh.presented(), 1);
});

test('a refused refresh leaves no claim: the next run presents the token and hears the refusal itself', async (t) => {
  const { flow, input } = await grantedConnector();
  await as.revokeGrantOf(flow.tokens.refreshToken!);
  const refresh = activities();
  await t.throwsAsync(refresh.oauthRefresh(input), { message: /grant/i });
  await t.throwsAsync(refresh.oauthRefresh(input), { message: /grant/i });
  t.is(refresh.presented(), 2, 'no run waited for an answer that would never come');
});

test('a claim left by a run that died is taken over once it is stale; a live one is waited for', async (t) => {
  const { connectorId, flow, input } = await grantedConnector();
  const key = secrets.refreshKey(connectorId, flow.tokens.refreshToken!);
  const ledger = oauthStore.refreshes;
  t.is((await ledger.claim(key, connectorId, 'a-run-that-died', new Date(Date.now() - STALE_CLAIM_MS - 1000))).kind, 'mine');
  t.is((await ledger.claim(key, connectorId, 'another-run', new Date(Date.now() - STALE_CLAIM_MS + 5000))).kind, 'busy', 'not stale yet as of then');
  const refresh = activities();
  const tokens = await refresh.oauthRefresh(input);
  t.truthy(tokens.refreshToken);
  t.is(refresh.presented(), 1);
});

test('the ledger keeps no token: its key is a MAC, its answer is sealed; another connector\'s run never reads it', async (t) => {
  const { connectorId, flow, input } = await grantedConnector();
  const refresh = activities();
  const answer = await refresh.oauthRefresh(input);
  const stored = JSON.stringify(await db.collection('oauth_refreshes').find({ connector_id: connectorId }).toArray());
  const plain = [flow.tokens.refreshToken!, openRefreshToken(connectorId, answer.refreshToken!), box.open(answer.accessToken, secretContext(connectorId, 'access_token'))];
  for (const token of plain) t.false(stored.includes(token), 'no token in plaintext');
  t.true(stored.includes(answer.accessToken), 'the answer, sealed');

  // The same refresh token arriving as another connector's: its own key, so it presents (and is refused).
  const other = '0193a0c4-0000-7000-8000-0000000fffff';
  await t.throwsAsync(refresh.oauthRefresh(refreshInput(other, flow, flow.tokens.refreshToken!)), { message: /grant/i });
  t.is(refresh.presented(), 2);
});

test('answers go a day after their claim: the sweep deletes them and keeps newer ones', async (t) => {
  const ledger = oauthStore.refreshes;
  const now = Date.now();
  await ledger.claim('old-key', 'sweep-connector', 'holder', new Date(now - LEDGER_EXPIRY.afterSeconds * 1000 - 60_000));
  await ledger.claim('new-key', 'sweep-connector', 'holder', new Date(now - 60_000));
  t.is(await ledger.sweepExpired(new Date(now)), 1);
  t.deepEqual((await db.collection('oauth_refreshes').find({ connector_id: 'sweep-connector' }).toArray()).map((e) => e._id), ['new-key']);
});

/** A connector whose user consented at oidc-provider: the callback activity's input, its code not yet exchanged. */
async function consentedConnector() {
  const connectorId = nextConnectorId();
  const flow = await consent(mcp.url, fetcher);
  return { connectorId, flow, input: callbackInput(connectorId, flow) };
}

/** The callback activity's input as the workflow holds it for `connectorId`: each secret sealed to it. */
function callbackInput(connectorId: string, flow: Awaited<ReturnType<typeof consent>>) {
  const pending: PendingAuthorization = {
    stateHash: 'not-read-here', redirectUrl: null,
    state: box.seal(flow.start.state, secretContext(connectorId, 'oauth_state')),
    codeVerifier: box.seal(flow.start.codeVerifier, secretContext(connectorId, 'code_verifier')),
    context: {
      authorizationServer: flow.discovery.authorizationServer.metadata, resource: flow.discovery.resource, scope: null,
      redirectUri: REDIRECT_URI, client: secrets.sealClient(connectorId, flow.client.identity, null),
    },
  };
  // As the API seals it: the callback's query string.
  const callback = box.seal(flow.callback.search.slice(1), secretContext(connectorId, 'oauth_callback'));
  return { connectorId, pending, callback };
}

test('the code exchange run again after a lost report gets the first run\'s tokens; the code is exchanged once', async (t) => {
  const { flow, input } = await consentedConnector();
  const complete = activities();
  const first = await complete.oauthComplete(input);
  const again = await complete.oauthComplete(input);
  t.deepEqual(again, first, 'the same sealed tokens');
  t.is(complete.exchanged(), 1);
  // The hazard it spares the connect: the code presented again is refused.
  await t.throwsAsync(exchangeCode({
    authorizationServer: flow.discovery.authorizationServer.metadata, client: flow.client.identity, callback: flow.callback.href,
    expectedState: flow.start.state, codeVerifier: flow.start.codeVerifier, redirectUri: REDIRECT_URI, resource: flow.discovery.resource,
  }, fetcher), { instanceOf: InvalidGrantError });
});

test('two runs of one code exchange at once: one presents the code, the other waits for its answer', async (t) => {
  const { input } = await consentedConnector();
  const complete = activities();
  const [a, b] = await Promise.all([complete.oauthComplete(input), complete.oauthComplete(input)]);
  t.deepEqual(a, b);
  t.is(complete.exchanged(), 1);
});

test('the ledger keeps no code and no token of an exchange; another connector with the same callback exchanges for itself', async (t) => {
  const { connectorId, flow, input } = await consentedConnector();
  const complete = activities();
  const answer = await complete.oauthComplete(input);
  const stored = JSON.stringify(await db.collection('oauth_refreshes').find({ connector_id: connectorId }).toArray());
  const code = flow.callback.searchParams.get('code')!;
  t.true(code.length > 8);
  for (const plain of [code, box.open(answer.accessToken, secretContext(connectorId, 'access_token'))]) t.false(stored.includes(plain), 'nothing in plaintext');
  t.true(stored.includes(answer.accessToken), 'the answer, sealed');

  const theirs = callbackInput('0193a0c4-0000-7000-8000-0000000eeeee', flow);
  await t.throwsAsync(complete.oauthComplete(theirs), { message: /grant/i }, 'its own key: it presents the spent code and is refused, never handed the answer');
  t.is(complete.exchanged(), 2);
});
