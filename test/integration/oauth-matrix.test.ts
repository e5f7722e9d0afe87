// The OAuth flow across the variations the MCP authorization specification allows, through the
// REST API, the callback route and the proxy of a real stack: where the client identity comes
// from (preset, create request, client metadata document), each token endpoint authentication
// method, a server without S256, each way of publishing authorization-server metadata (RFC 8414
// only, OpenID only, a 2025-03-26 server), where the scope comes from, the authorization deadline,
// the redirect allow-list, revocation on disconnect and delete, and a grant without refresh token.
//
// The main stack runs under BASE_URL=https://connector.test, which resolves nowhere: the client
// metadata document needs an https client_id, so the authorization server fetches the service's
// document through a mapping to 127.0.0.1, and the tests deliver each callback by hand, as the
// browser would. A second stack has the shortest authorization deadline (10 s).
import test, { type ExecutionContext } from 'ava';
import {
  createConsentAgent, startOidcServer, startProtectedMcpServer,
  type OidcServer, type OidcServerOptions, type ProtectedMcpServer, type ProtectedMcpServerOptions,
} from '../fixtures/oauth';
import { observeAuthorizationServer, tryRefreshToken, type AuthorizationServerObserver } from '../helpers/oauth-as-observer';
import { startLegacyMcpServer, type LegacyMcpServer } from '../helpers/oauth-legacy-server';
import {
  CALLBACK_PATH, deliverCallback, describeRecord, localMcpUrl, openConsentPage, recordWhen, startFlow, whoami,
} from '../helpers/oauth-service';
import { eventually, filesContaining, startTestStack, type TestStack } from '../helpers/test-stack';
import { historyPayloads, valuesUnder } from '../helpers/history-values';
import { connectorWorkflowId } from '../../workflows/messages';

const PUBLIC_BASE = 'https://connector.test';
const PUBLIC_CALLBACK = `${PUBLIC_BASE}${CALLBACK_PATH}`;
const DOCUMENT_URL = `${PUBLIC_BASE}/api/v1/oauth/client-metadata.json`;
const ALLOWED_ORIGIN = 'https://app.example';
const PRESET = { clientId: 'preset-client', clientSecret: 'preset-secret-5d0c1e8f7a' };
const POST_CLIENT = { clientId: 'post-client', clientSecret: 'post-secret-92b4e0a1c3' };
const SHORT_TTL_S = 4;

let main: TestStack;
let quick: TestStack;
const cleanups: (() => Promise<void>)[] = [];

// Authorization servers and the MCP servers in front of them, started once.
let as: OidcServer; // static clients for presets, public clients, revocation; long-lived tokens
let asSeen: AuthorizationServerObserver;
let presetMcp: ProtectedMcpServer;
let asPost: OidcServer; // advertises only client_secret_post (and none)
let asPostSeen: AuthorizationServerObserver;
let asCimd: OidcServer; // client metadata documents, no registration
let asCimdSeen: AuthorizationServerObserver;
let documentFetches = 0;

const publicClient = (clientId: string) => ({ clientId, authMethod: 'none' as const, redirectUris: [PUBLIC_CALLBACK] });

async function authorizationServer(options: OidcServerOptions): Promise<OidcServer> {
  const server = await startOidcServer(options);
  cleanups.push(() => server.close());
  return server;
}

async function mcpServer(of: OidcServer, options: Partial<ProtectedMcpServerOptions> = {}): Promise<ProtectedMcpServer> {
  const server = await startProtectedMcpServer({ issuer: of.issuer, jwksUri: of.jwksUri, ...options });
  cleanups.push(() => server.close());
  return server;
}

test.before(async () => {
  as = await authorizationServer({
    accessTokenTtl: 600,
    staticClients: [
      { ...PRESET, authMethod: 'client_secret_basic', redirectUris: [PUBLIC_CALLBACK] },
      publicClient('public-client'), publicClient('revoke-on-disconnect'), publicClient('revoke-on-delete'),
    ],
  });
  asSeen = observeAuthorizationServer(as);
  presetMcp = await mcpServer(as);
  asPost = await authorizationServer({
    accessTokenTtl: 600,
    staticClients: [{ ...POST_CLIENT, authMethod: 'client_secret_post', redirectUris: [PUBLIC_CALLBACK] }],
    metadata: { token_endpoint_auth_methods_supported: ['client_secret_post', 'none'] },
  });
  asPostSeen = observeAuthorizationServer(asPost);
  // The preset must name the MCP server's URL, so the stack starts after the servers.
  const presets = [{ url: presetMcp.url, client_id: PRESET.clientId, client_secret: PRESET.clientSecret, metadata: { name: 'Preset server' } }];
  // Each stack is kept as soon as it is up, so that the after hook stops it even when the other
  // failed to start (a stack left running would keep this file from ever ending).
  const started = await Promise.allSettled([
    startTestStack({
      BASE_URL: PUBLIC_BASE,
      CONNECTOR__PRESETS: JSON.stringify(presets),
      CONNECTOR__ALLOWED_REDIRECT_ORIGINS: ALLOWED_ORIGIN,
    }).then((stack) => (main = stack)),
    startTestStack({ CONNECTOR__AUTH_TIMEOUT_SECONDS: '10' }).then((stack) => (quick = stack)),
  ]);
  for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
  // The document's https URL resolves nowhere; the authorization server reads it from the stack.
  asCimd = await authorizationServer({
    registration: false,
    accessTokenTtl: 600,
    clientIdMetadataDocuments: {
      resolve: (clientId) => {
        if (clientId.origin !== PUBLIC_BASE) return clientId;
        documentFetches += 1;
        return new URL(clientId.pathname + clientId.search, `http://127.0.0.1:${main.port}`);
      },
    },
  });
  asCimdSeen = observeAuthorizationServer(asCimd);
});

test.after.always(async () => {
  await Promise.all([main?.stop(), quick?.stop()]);
  await Promise.all(cleanups.map((close) => close().catch(() => undefined)));
});

interface Completed {
  id: string;
  authorizationUrl: URL;
  record: any;
  connectMs: number;
  callbackMs: number;
}

/**
 * Create, connect (auth_required), consent as the user, deliver the callback: the whole flow on
 * the main stack, answering the connector's record after the callback.
 */
async function connectThroughConsent(t: ExecutionContext, create: Record<string, unknown>, connect: Record<string, unknown> = {}, stack = main, redirectUri = PUBLIC_CALLBACK): Promise<Completed> {
  const { id, res, connectMs } = await startFlow(stack.api, create, connect);
  t.is(res.status, 200, `connect: ${res.text}`);
  t.is(res.body.state, 'auth_required');
  const consent = await openConsentPage(stack.port, res.body.auth_request.authorization_endpoint);
  const authorizationUrl = consent.authorizationUrl;
  const callback = await createConsentAgent().authorize(authorizationUrl.toString(), { redirectUri, decision: 'approve' });
  const started = Date.now();
  const page = await deliverCallback(stack.port, callback, consent.cookie);
  const callbackMs = Date.now() - started;
  t.is(page.status, connect.redirect_url ? 302 : 200, `callback: ${page.text.slice(0, 300)}`);
  const record = (await stack.api('GET', `/api/v1/connectors/${id}`)).body;
  t.log(`connect → auth_required ${connectMs} ms; callback delivered → connected ${callbackMs} ms`);
  return { id, authorizationUrl, record, connectMs, callbackMs };
}

const scopeOf = (url: URL) => url.searchParams.get('scope')?.split(' ').sort() ?? null;

test('preset credentials: the preset client authenticates with client_secret_basic; the secret is never shown', async (t) => {
  const { id, record } = await connectThroughConsent(t, { url: presetMcp.url });
  t.is(record.state, 'connected');
  t.deepEqual(record.metadata, { name: 'Preset server' }, 'the preset matched');
  t.is((await whoami(localMcpUrl(main.port, id))).client_id, PRESET.clientId);
  const requests = asSeen.tokenRequests(PRESET.clientId);
  t.true(requests.some((r) => r.grantType === 'authorization_code'));
  t.true(requests.every((r) => r.authMethod === 'client_secret_basic'));
  t.true(requests.every((r) => r.resource === presetMcp.url), 'RFC 8707 resource on the token request');
  const shown = JSON.stringify([record, (await main.api('GET', '/api/v1/connectors/presets')).body]);
  t.false(shown.includes(PRESET.clientSecret));
  // The preset's secret stays in the worker's configuration: history names the preset and holds
  // no client secret for it, not even sealed; nothing under DATA_DIR has it in plaintext.
  const history = await historyPayloads(main.temporal, connectorWorkflowId(id));
  t.true(history.length > 0);
  t.deepEqual(valuesUnder(history, 'clientSecret').filter((v) => v !== null), []);
  t.true(valuesUnder(history, 'presetUrl').includes(presetMcp.url));
  t.deepEqual(filesContaining(main.dataDir, PRESET.clientSecret), []);
});

test('credentials from the create request win over the preset: a public client, token auth none', async (t) => {
  const { id, authorizationUrl, record } = await connectThroughConsent(t, { url: presetMcp.url, client_id: 'public-client' });
  t.is(record.state, 'connected');
  t.is(authorizationUrl.searchParams.get('client_id'), 'public-client');
  t.is((await whoami(localMcpUrl(main.port, id))).client_id, 'public-client');
  const requests = asSeen.tokenRequests('public-client');
  t.true(requests.length > 0);
  t.true(requests.every((r) => r.authMethod === 'none'));
});

test('credentials from the create request with a secret, where the server takes only client_secret_post', async (t) => {
  const mcp = await mcpServer(asPost);
  const { id, record } = await connectThroughConsent(t, { url: mcp.url, client_id: POST_CLIENT.clientId, client_secret: POST_CLIENT.clientSecret });
  t.is(record.state, 'connected');
  t.is((await whoami(localMcpUrl(main.port, id))).client_id, POST_CLIENT.clientId);
  const requests = asPostSeen.tokenRequests(POST_CLIENT.clientId);
  t.true(requests.length > 0);
  t.true(requests.every((r) => r.authMethod === 'client_secret_post'));
  t.false(JSON.stringify(record).includes(POST_CLIENT.clientSecret));
});

test('client metadata document: the service serves its own document and uses its URL as client_id', async (t) => {
  const served = await main.api('GET', '/api/v1/oauth/client-metadata.json');
  t.is(served.status, 200);
  t.is(served.body.client_id, DOCUMENT_URL);
  t.deepEqual(served.body.redirect_uris, [PUBLIC_CALLBACK]);
  t.is(served.body.token_endpoint_auth_method, 'none');

  const mcp = await mcpServer(asCimd);
  const before = documentFetches;
  const { id, authorizationUrl, record } = await connectThroughConsent(t, { url: mcp.url });
  t.is(authorizationUrl.searchParams.get('client_id'), DOCUMENT_URL);
  t.is(authorizationUrl.searchParams.get('redirect_uri'), PUBLIC_CALLBACK);
  t.is(record.state, 'connected');
  t.true(documentFetches > before, 'the authorization server fetched the document from the service');
  t.is((await whoami(localMcpUrl(main.port, id))).client_id, DOCUMENT_URL);
  t.true(asCimdSeen.tokenRequests(DOCUMENT_URL).every((r) => r.authMethod === 'none'));
});

test('dynamic client registration authenticates with client_secret_basic', async (t) => {
  const dcrAs = await authorizationServer({ accessTokenTtl: 600 });
  const seen = observeAuthorizationServer(dcrAs);
  const mcp = await mcpServer(dcrAs);
  const { id, authorizationUrl, record } = await connectThroughConsent(t, { url: mcp.url });
  t.is(record.state, 'connected');
  const clientId = authorizationUrl.searchParams.get('client_id')!;
  t.is((await whoami(localMcpUrl(main.port, id))).client_id, clientId);
  t.true(seen.tokenRequests(clientId).length > 0);
  t.true(seen.tokenRequests(clientId).every((r) => r.authMethod === 'client_secret_basic'));
});

const withoutS256: [string, OidcServerOptions, RegExp][] = [
  ['no code_challenge_methods_supported', { advertiseS256: false }, /does not advertise PKCE support/],
  ['only plain', { metadata: { code_challenge_methods_supported: ['plain'] } }, /does not support PKCE with S256 \(it advertises plain\)/],
];
for (const [variant, options, message] of withoutS256) {
  test(`a server without S256 (${variant}): connect answers 422 saying why`, async (t) => {
    const noS256 = await authorizationServer(options);
    const mcp = await mcpServer(noS256);
    const { id, res } = await startFlow(main.api, { url: mcp.url });
    t.is(res.status, 422, res.text);
    t.regex(res.body.detail, message);
    t.true(res.body.detail.includes(noS256.issuer), 'names the server');
    const record = (await main.api('GET', `/api/v1/connectors/${id}`)).body;
    t.is(record.state, 'disconnected');
    t.regex(record.disconnect_reason, message);
    t.is(record.auth_request, null, 'no authorization URL was issued');
  });
}

for (const discovery of ['oauth', 'oidc'] as const) {
  test(`an authorization server with only ${discovery === 'oauth' ? 'RFC 8414 metadata' : 'OpenID discovery'} reaches connected`, async (t) => {
    const only = await authorizationServer({ discovery, accessTokenTtl: 600 });
    const mcp = await mcpServer(only);
    const { id, authorizationUrl, record } = await connectThroughConsent(t, { url: mcp.url });
    t.is(authorizationUrl.origin, only.origin);
    t.is(record.state, 'connected', String(record.disconnect_reason));
    t.regex(JSON.stringify(await whoami(localMcpUrl(main.port, id))), /mcp:read/);
  });
}

test('a 2025-03-26 server (its own authorization server, no resource metadata) reaches connected', async (t) => {
  const legacy: LegacyMcpServer = await startLegacyMcpServer({ accessTokenTtl: 600 });
  cleanups.push(() => legacy.close());
  const { id, authorizationUrl, record } = await connectThroughConsent(t, { url: legacy.url });
  t.is(authorizationUrl.origin, new URL(legacy.url).origin);
  t.is(authorizationUrl.searchParams.get('resource'), legacy.url);
  t.is(record.state, 'connected', String(record.disconnect_reason));
  t.is((await whoami(localMcpUrl(main.port, id))).sub, 'test-user');
});

test('scope from the challenge, over the resource metadata; offline_access added', async (t) => {
  const mcp = await mcpServer(as, { scopesSupported: ['mcp:read'], challengeScope: 'mcp:admin' });
  const { id, authorizationUrl, record } = await connectThroughConsent(t, { url: mcp.url, client_id: 'public-client' });
  t.deepEqual(scopeOf(authorizationUrl), ['mcp:admin', 'offline_access']);
  t.is(record.state, 'connected');
  t.is((await whoami(localMcpUrl(main.port, id))).scope, 'mcp:admin');
});

test('scope from scopes_supported when the challenge has none', async (t) => {
  const mcp = await mcpServer(as, { scopesSupported: ['mcp:read'], challengeScope: null });
  const { id, authorizationUrl, record } = await connectThroughConsent(t, { url: mcp.url, client_id: 'public-client' });
  t.deepEqual(scopeOf(authorizationUrl), ['mcp:read', 'offline_access']);
  t.is(record.state, 'connected');
  t.is((await whoami(localMcpUrl(main.port, id))).scope, 'mcp:read');
});

test('no scope in the challenge nor in the resource metadata: the scope parameter is omitted', async (t) => {
  const mcp = await mcpServer(as, { scopesSupported: null, challengeScope: null });
  const { res } = await startFlow(main.api, { url: mcp.url, client_id: 'public-client' });
  t.is(res.status, 200, res.text);
  const url = (await openConsentPage(main.port, res.body.auth_request.authorization_endpoint)).authorizationUrl;
  t.false(url.searchParams.has('scope'), 'not even offline_access alone');
  t.is(url.searchParams.get('resource'), mcp.url);
  // Not completed: oidc-provider has no default scope and refuses a grant of nothing.
});

test('a grant without refresh token stays connected past the token\'s expiry', async (t) => {
  // No offline_access on offer: the service cannot ask for it, and no refresh token is issued.
  // Long enough for the first MCP call below to come before the expiry on a loaded machine
  // (with 4 s, a CI run once saw the token expire before it).
  const ttlS = 12;
  const noOffline = await authorizationServer({ accessTokenTtl: ttlS, metadata: { scopes_supported: ['openid'] } });
  const seen = observeAuthorizationServer(noOffline);
  const mcp = await mcpServer(noOffline);
  const { id, authorizationUrl, record } = await connectThroughConsent(t, { url: mcp.url });
  t.deepEqual(scopeOf(authorizationUrl), ['mcp:read']);
  t.is(record.state, 'connected', String(record.disconnect_reason));
  const clientId = authorizationUrl.searchParams.get('client_id')!;
  t.true(seen.tokenRequests(clientId).length > 0);
  t.deepEqual(seen.refreshTokensOf(clientId), [], 'no refresh token issued');
  t.is((await whoami(localMcpUrl(main.port, id))).scope, 'mcp:read');

  // Nothing can be refreshed, so nothing is scheduled: the connector stays connected until the
  // server rejects the token, even past the token's lifetime.
  await new Promise((resolve) => setTimeout(resolve, (ttlS + 2) * 1000));
  const later = (await main.api('GET', `/api/v1/connectors/${id}`)).body;
  t.is(later.state, 'connected');
  t.is(later.updated_at, record.updated_at, 'no transition since');
});

test('a redirect_url outside CONNECTOR__ALLOWED_REDIRECT_ORIGINS is refused with 422; one inside is followed', async (t) => {
  const mcp = await mcpServer(as);
  const refused = await startFlow(main.api, { url: mcp.url, client_id: 'public-client' }, { redirect_url: 'https://elsewhere.example/done' });
  t.is(refused.res.status, 422, refused.res.text);
  t.regex(refused.res.text, /redirect_url/);
  t.is((await main.api('GET', `/api/v1/connectors/${refused.id}`)).body.state, 'created', 'nothing started');

  const allowed = `${ALLOWED_ORIGIN}/done?x=1`;
  const { id, consent } = await startFlow(main.api, { url: mcp.url, client_id: 'public-client' }, { redirect_url: allowed })
    .then(async ({ id, res }) => ({ id, consent: await openConsentPage(main.port, res.body.auth_request.authorization_endpoint) }));
  const callback = await createConsentAgent().authorize(consent.authorizationUrl.toString(), { redirectUri: PUBLIC_CALLBACK });
  const answer = await deliverCallback(main.port, callback, consent.cookie);
  t.is(answer.status, 302);
  const location = new URL(answer.location!);
  t.is(location.origin + location.pathname, `${ALLOWED_ORIGIN}/done`);
  t.is(location.searchParams.get('x'), '1');
  t.is(location.searchParams.get('connector_id'), id);
  t.false(location.searchParams.has('error'));
  t.is((await main.api('GET', `/api/v1/connectors/${id}`)).body.state, 'connected');
});

for (const ending of ['disconnect', 'delete'] as const) {
  test(`${ending} revokes the grant at the authorization server`, async (t) => {
    const clientId = ending === 'disconnect' ? 'revoke-on-disconnect' : 'revoke-on-delete';
    const mcp = await mcpServer(as);
    const { id, record } = await connectThroughConsent(t, { url: mcp.url, client_id: clientId });
    t.is(record.state, 'connected');
    const issued = asSeen.refreshTokensOf(clientId);
    t.is(issued.length, 1, 'one grant, not refreshed yet (tokens live 10 minutes)');
    const refreshToken = issued[0]!;
    t.truthy(await as.provider.RefreshToken.find(refreshToken), 'usable before');

    if (ending === 'disconnect') {
      const res = await main.api('POST', `/api/v1/connectors/${id}/disconnect`);
      t.is(res.status, 200);
      t.is(res.body.state, 'disconnected');
    } else {
      t.is((await main.api('DELETE', `/api/v1/connectors/${id}`)).status, 202);
      await eventually(async () => ((await main.api('GET', `/api/v1/connectors/${id}`)).status === 404 ? true : undefined), 30_000, 'the record removed');
    }
    await eventually(async () => ((await as.provider.RefreshToken.find(refreshToken)) ? undefined : true), 30_000, 'the refresh token revoked');
    t.deepEqual(await tryRefreshToken(as, refreshToken, clientId), { status: 400, error: 'invalid_grant' });
  });
}

test('the authorization deadline: disconnected "authorization timed out", and the late callback is refused', async (t) => {
  const mcp = await mcpServer(as);
  const started = Date.now();
  const { id, res } = await startFlow(quick.api, { url: mcp.url });
  const answered = Date.now();
  t.is(res.status, 200, res.text);
  t.is(res.body.state, 'auth_required');
  const expiresAt = Date.parse(res.body.auth_request.expires_at);
  t.true(expiresAt >= started + 10_000 && expiresAt <= answered + 10_000, 'expires_at is CONNECTOR__AUTH_TIMEOUT_SECONDS after the connect');

  // The user consents, but comes back too late.
  const consent = await openConsentPage(quick.port, res.body.auth_request.authorization_endpoint);
  const callback = await createConsentAgent().authorize(consent.authorizationUrl.href, {
    redirectUri: `http://127.0.0.1:${quick.port}${CALLBACK_PATH}`,
  });
  const lost = await recordWhen(quick.api, id, (r) => r.state === 'disconnected', 60_000, 'the authorization deadline');
  t.is(lost.disconnect_reason, 'authorization timed out');
  t.true(Date.now() >= expiresAt);

  const late = await deliverCallback(quick.port, callback, consent.cookie);
  t.is(late.status, 400);
  t.regex(late.text, /expired or was already used/);
  const after = (await quick.api('GET', `/api/v1/connectors/${id}`)).body;
  t.is(after.state, 'disconnected', await describeRecord(quick.api, id));
  t.is(after.updated_at, lost.updated_at, 'the refused callback touched nothing');
});
