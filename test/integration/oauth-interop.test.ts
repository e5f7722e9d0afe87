// The interoperability matrix: the whole flow through a real embedded stack (create → connect →
// follow the authorization URL → callback → connected → tools through the proxy) against small
// authorization servers and MCP servers that each behave in one way seen in the wild
// (test/fixtures/wild). Each row reaches `connected` and serves tools, or fails with a clear
// reason where the server is truly unusable; none leaves a connector stuck.
import test, { type ExecutionContext } from 'ava';
import { ADMIN_SCOPE, startWildMcpServer, type WildMcpOptions, type WildMcpServer } from '../fixtures/wild/wild-mcp-server';
import type { TokenAuthMethod } from '../fixtures/wild/wild-authorization-server';
import { callTool, deliverCallback, localMcpUrl, recordWhen, startFlow, openConsentPage } from '../helpers/oauth-service';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { mcpErrorOf } from '../proxy/mcp-answers';

let stack: TestStack;
const servers: WildMcpServer[] = [];

test.before(async () => {
  stack = await startTestStack();
});

test.after.always(async () => {
  await stack?.stop();
  await Promise.all(servers.map((s) => s.close()));
});

async function wild(options: WildMcpOptions = {}): Promise<WildMcpServer> {
  const server = await startWildMcpServer(options);
  servers.push(server);
  return server;
}

const callbackUri = () => `http://127.0.0.1:${stack.port}/api/v1/connectors/oauth/callback`;

interface Connected {
  id: string;
  authorizationUrl: URL;
  record: any;
  page: { status: number; text: string };
}

/** Connect (auth_required), let the server's user consent, deliver its redirect to the callback. */
async function authorize(t: ExecutionContext, id: string): Promise<Connected> {
  const res = await stack.api('POST', `/api/v1/connectors/${id}/connect`, {});
  t.is(res.status, 200, `connect: ${res.text}`);
  t.is(res.body.state, 'auth_required', `connect: ${res.text}`);
  const visit = await openConsentPage(stack.port, res.body.auth_request.authorization_endpoint);
  const authorizationUrl = visit.authorizationUrl;
  const consent = await fetch(authorizationUrl, { redirect: 'manual' });
  t.is(consent.status, 302, `authorization endpoint: ${await consent.clone().text()}`);
  const page = await deliverCallback(stack.port, new URL(consent.headers.get('location')!), visit.cookie);
  const record = (await stack.api('GET', `/api/v1/connectors/${id}`)).body;
  return { id, authorizationUrl, record, page };
}

async function create(t: ExecutionContext, server: WildMcpServer, body: Record<string, unknown> = {}): Promise<string> {
  const created = await stack.api('POST', '/api/v1/connectors', { url: server.url, ...body });
  t.is(created.status, 201, created.text);
  return created.body.id;
}

async function whoami(id: string, tool = 'whoami'): Promise<{ client_id: string | null; scope: string | null }> {
  return JSON.parse(await callTool(localMcpUrl(stack.port, id), tool));
}

/** The common row: the flow ends connected, and a tool called through the proxy sees the grant. */
async function connectsAndServesTools(t: ExecutionContext, options: WildMcpOptions, body: Record<string, unknown> = {}) {
  const server = await wild(options);
  const flow = await authorize(t, await create(t, server, body));
  t.is(flow.page.status, 200, flow.page.text.slice(0, 300));
  t.is(flow.record.state, 'connected', `record: ${flow.record.state} (${flow.record.disconnect_reason})`);
  const clientId = flow.authorizationUrl.searchParams.get('client_id');
  t.is((await whoami(flow.id)).client_id, clientId, 'the tool saw the token the service obtained');
  t.true(server.as.tokenRequests.every((r) => r.resource === server.url), 'RFC 8707 resource on every token request');
  return { server, flow };
}

const methodsUsed = (server: WildMcpServer) => [...new Set(server.as.tokenRequests.map((r) => r.authMethod))];

// Dynamic client registration answers that are not perfect.

test('registration: a client_secret without client_secret_expires_at', async (t) => {
  const { server } = await connectsAndServesTools(t, { registration: 'no-secret-expiry' });
  t.deepEqual(methodsUsed(server), ['client_secret_basic']);
});

test('registration: answered 200 instead of 201', async (t) => {
  await connectsAndServesTools(t, { registration: 'status-200' });
});

test('registration: a token_endpoint_auth_method other than the one asked for is the one used', async (t) => {
  const { server } = await connectsAndServesTools(t, { registration: 'other-auth-method', metadata: { token_endpoint_auth_methods_supported: ['client_secret_basic'] } });
  t.is(server.as.registrations[0]?.token_endpoint_auth_method, 'client_secret_basic', 'asked for Basic');
  t.deepEqual(methodsUsed(server), ['client_secret_post'], 'used what the registration said');
});

// Pre-registered clients whose ids and secrets hold characters that encodings disagree on.

const ODD_ID = 'pre-registered.client_1~a:b-ü';
const ODD_SECRET = 's3cret-._~:+/=ß€ x';
const credentialRows: [TokenAuthMethod, string[]][] = [
  ['client_secret_basic', ['client_secret_basic']],
  ['client_secret_post', ['client_secret_post']],
  ['none', ['client_secret_basic', 'client_secret_post', 'none']],
];
for (const [method, advertised] of credentialRows) {
  test(`credentials: id and secret with -._~: and non-ASCII, ${method}`, async (t) => {
    const secret = method === 'none' ? undefined : ODD_SECRET;
    const options = {
      registration: 'off' as const,
      clients: [{ clientId: ODD_ID, clientSecret: secret, authMethod: method, redirectUris: [callbackUri()] }],
      metadata: { token_endpoint_auth_methods_supported: method === 'client_secret_post' ? ['client_secret_post'] : advertised },
    };
    const { server } = await connectsAndServesTools(t, options, { client_id: ODD_ID, ...(secret ? { client_secret: secret } : {}) });
    t.deepEqual(methodsUsed(server), [method]);
  });
}

test('credentials: client_secret_basic to a server that compares the header undecoded (-, ., _ stay as they are)', async (t) => {
  const client = { clientId: 'pre-registered-client', clientSecret: 'pre_registered.secret-1', authMethod: 'client_secret_basic' as const };
  const { server } = await connectsAndServesTools(t, { registration: 'off', basicDecoding: 'raw', clients: [client] }, {
    client_id: client.clientId, client_secret: client.clientSecret,
  });
  t.deepEqual(methodsUsed(server), ['client_secret_basic']);
});

// Token responses.

const tokenRows: [string, NonNullable<WildMcpOptions['tokenResponse']>][] = [
  ['token_type in lower case', { tokenType: 'bearer' }],
  ['token_type in upper case', { tokenType: 'BEARER' }],
  ['expires_in as a string', { expiresInAsString: true }],
  ['no scope', { omitScope: true }],
  ['no refresh token', { omitRefreshToken: true }],
  ['no expires_in', { omitExpiresIn: true }],
];
for (const [name, tokenResponse] of tokenRows) {
  test(`token response: ${name}`, async (t) => {
    await connectsAndServesTools(t, { tokenResponse });
  });
}

// Where the metadata is.

const discoveryRows: [string, WildMcpOptions][] = [
  ['resource metadata at the path-aware well-known URL, not named in the challenge', { resourceMetadataAt: 'path-aware', challengeNamesMetadata: false }],
  ['resource metadata at the root well-known URL, not named in the challenge', { resourceMetadataAt: 'root', challengeNamesMetadata: false }],
  ['resource metadata at a custom URL given only in the header', { resourceMetadataAt: 'header-only' }],
  ['RFC 8414 metadata at the root', { metadataAt: 'oauth-insert' }],
  ['OpenID configuration at the root', { metadataAt: 'oidc-insert' }],
  ['RFC 8414 metadata for an issuer with a path (inserted)', { issuerPath: '/tenant1', metadataAt: 'oauth-insert' }],
  ['OpenID configuration for an issuer with a path (inserted)', { issuerPath: '/tenant1', metadataAt: 'oidc-insert' }],
  ['OpenID configuration at a tenant path (appended)', { issuerPath: '/tenant1', metadataAt: 'oidc-append' }],
  ['2025-03-26: metadata at the MCP server origin', { resourceMetadataAt: 'none' }],
  ['2025-03-26: metadata at the origin naming an issuer with a path', { resourceMetadataAt: 'none', metadataAt: 'oauth-root-names-path-issuer', issuerPath: '/oauth' }],
  ['2025-03-26: no metadata at all, the default /authorize, /token and /register', { resourceMetadataAt: 'none', metadataAt: 'none' }],
];
for (const [name, options] of discoveryRows) {
  test(`discovery: ${name}`, async (t) => {
    await connectsAndServesTools(t, options);
  });
}

test('challenge: several challenges, odd spacing and quoted commas in WWW-Authenticate', async (t) => {
  const formatChallenge = (bearer: string) =>
    `Basic realm="wild, with \\"commas\\", too" ,  Bearer   ${bearer.replace(/="/g, ' = "')} , DPoP algs="ES256 PS256"`;
  const { flow } = await connectsAndServesTools(t, { resourceMetadataAt: 'header-only', challengeScope: 'mcp:read mcp:write', formatChallenge });
  t.deepEqual(flow.authorizationUrl.searchParams.get('scope')?.split(' ').sort(), ['mcp:read', 'mcp:write']);
});

test('scope: from the challenge', async (t) => {
  const { flow } = await connectsAndServesTools(t, { challengeScope: 'mcp:read', scopesSupported: ['mcp:read', 'mcp:write'] });
  t.is(flow.authorizationUrl.searchParams.get('scope'), 'mcp:read');
});

test('scope: from scopes_supported when the challenge names none', async (t) => {
  const { flow } = await connectsAndServesTools(t, { scopesSupported: ['mcp:read', 'mcp:write'] });
  t.deepEqual(flow.authorizationUrl.searchParams.get('scope')?.split(' ').sort(), ['mcp:read', 'mcp:write']);
});

test('RFC 9207: iss in the authorization response, promised by the metadata', async (t) => {
  await connectsAndServesTools(t, { issInCallback: true });
});

// Servers that ask for authorization only after initialize, or only for some tools.

test('401 only after initialize: auth_required with a fresh URL (the challenge\'s scope), the request answered 409 with it; the next connect authorizes too', async (t) => {
  const server = await wild({ openWithoutToken: 'initialize', challengeScope: 'mcp:read' });
  const id = await create(t, server);
  const open = await stack.api('POST', `/api/v1/connectors/${id}/connect`, {});
  t.is(open.body.state, 'connected', 'initialize answered without a token');

  const refused = await fetch(localMcpUrl(stack.port, id), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  t.is(refused.status, 409);
  t.is(refused.headers.get('www-authenticate'), null, "the upstream's challenge never reaches the MCP client");
  const { problem } = await mcpErrorOf(refused);
  t.is(problem.connector_state, 'auth_required');
  const record = await recordWhen(stack.api, id, (r) => r.state === 'auth_required', 10_000, 'auth_required');
  t.is(problem.authorization_url, record.auth_request.authorization_endpoint);
  const offered = await openConsentPage(stack.port, problem.authorization_url);
  t.is(offered.authorizationUrl.searchParams.get('scope'), 'mcp:read', 'the challenge gave the scope');

  const flow = await authorize(t, id);
  t.is(flow.authorizationUrl.searchParams.get('scope'), 'mcp:read', 'the kept challenge gave the scope');
  t.is(flow.record.state, 'connected');
  // The proxy cached the connector as disconnected; it may keep that answer for about 1.5 s.
  const seen = await eventually(() => whoami(id), 10_000, 'the new grant in use');
  t.is(seen.client_id, flow.authorizationUrl.searchParams.get('client_id'));
  const events = (await stack.api('GET', `/api/v1/connectors/${id}/events`)).body.items.map((e: any) => `${e.from ?? ''}>${e.to}`);
  t.deepEqual(events, ['>created', 'created>connecting', 'connecting>connected', 'connected>auth_required', 'auth_required>connecting', 'connecting>auth_required', 'auth_required>connected']);
});

test('403 insufficient_scope on one tool: the call fails with a step-up URL, still connected; the next connect asks for the union of scopes', async (t) => {
  const { server, flow } = await connectsAndServesTools(t, { challengeScope: 'mcp:read' });
  const error = await t.throwsAsync(whoami(flow.id, 'admin'));
  t.is((error as { code?: number } | undefined)?.code, 403, 'a 403 reached the client, without the upstream challenge');
  const offered = (await stack.api('GET', `/api/v1/connectors/${flow.id}`)).body;
  t.is(offered.state, 'connected');
  t.truthy(offered.auth_request?.authorization_endpoint, 'a step-up URL is on offer');
  const again = await authorize(t, flow.id);
  t.deepEqual(again.authorizationUrl.searchParams.get('scope')?.split(' ').sort(), [ADMIN_SCOPE, 'mcp:read']);
  t.is(again.record.state, 'connected');
  // The proxy's route cache may serve the old token for about a second and a half after a change.
  const granted = await eventually(() => whoami(flow.id, 'admin'), 10_000, 'the wider grant in use');
  t.regex(granted.scope ?? '', new RegExp(ADMIN_SCOPE));
  t.true(server.as.tokenRequests.length >= 2);
});

test('403 insufficient_scope to a connector without a token: auth_required with that scope, and the next connect authorizes with it too', async (t) => {
  const server = await wild({ openWithoutToken: 'all' });
  const id = await create(t, server);
  t.is((await stack.api('POST', `/api/v1/connectors/${id}/connect`, {})).body.state, 'connected');
  t.is((await whoami(id)).client_id, null, 'the open tools work without a token');
  await t.throwsAsync(whoami(id, 'admin'));
  await recordWhen(stack.api, id, (r) => r.state === 'auth_required', 10_000, 'auth_required');
  const events = (await stack.api('GET', `/api/v1/connectors/${id}/events`)).body.items as { reason: string }[];
  t.regex(events.at(-1)!.reason, /asks for authorization \(HTTP 403\); authorization URL issued/);
  const flow = await authorize(t, id);
  t.is(flow.authorizationUrl.searchParams.get('scope'), ADMIN_SCOPE);
  t.is(flow.record.state, 'connected');
  const granted = await eventually(() => whoami(id, 'admin'), 10_000, 'the new grant in use');
  t.regex(granted.scope ?? '', new RegExp(ADMIN_SCOPE));
  t.true(server.as.tokenRequests.length > 0);
});

// Servers broken beyond use: a clear failure, never a stuck connector.

test('broken: metadata without a token endpoint is a 502 naming the field', async (t) => {
  const server = await wild({ metadata: { token_endpoint: undefined } });
  const id = await create(t, server);
  const res = await stack.api('POST', `/api/v1/connectors/${id}/connect`, {});
  t.is(res.status, 502, res.text);
  t.regex(res.body.detail, /token_endpoint/);
  t.is(res.body.record?.state ?? (await stack.api('GET', `/api/v1/connectors/${id}`)).body.state, 'disconnected');
});

test('broken: a token endpoint that answers an HTML page fails the callback with the reason on record', async (t) => {
  const server = await wild({ brokenTokenEndpoint: true });
  const flow = await authorize(t, await create(t, server));
  t.is(flow.record.state, 'disconnected');
  t.regex(flow.record.disconnect_reason, /authorization failed: .*(JSON|token)/i);
  t.regex(flow.page.text, /error/i);
});

test('broken: no registration, no metadata documents and no client_id is a 422 saying what to do', async (t) => {
  const server = await wild({ registration: 'off' });
  const id = await create(t, server);
  const res = await stack.api('POST', `/api/v1/connectors/${id}/connect`, {});
  t.is(res.status, 422, res.text);
  t.regex(res.body.detail, /create the connector with a client_id/);
});
