// Re-authorization during use, end to end (decisions.md, "MCP protocol revisions"): a real
// oidc-provider, MCP SDK servers that verify its JWTs and, mid-session, refuse a tool with 403
// insufficient_scope or a revoked token with 401, the embedded stack, and both eras' clients
// (SDK v1 at 2025-11-25 with sessions, SDK v2 at 2026-07-28). A 403 insufficient_scope keeps the
// connector connected with a step-up URL; a 401 no refresh cures moves it to auth_required with a
// fresh URL; the request that met it carries the URL (-32042 for clients that declared URL-mode
// elicitation, problem details otherwise), and following the URL makes the connector whole.
//
// Serial: revoking grants at the authorization server is global to it.
import anyTest, { type TestFn } from 'ava';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { createConsentAgent, startOidcServer, startProtectedMcpServer, type OidcServer, type ProtectedMcpServer } from '../fixtures/oauth';
import { startTestStack, type TestStack } from '../helpers/test-stack';
import { CALLBACK_PATH, deliverCallback, localMcpUrl, openConsentPage, recordWhen } from '../helpers/oauth-service';
import { mcpErrorOf } from '../proxy/mcp-answers';

const test = anyTest.serial as TestFn;

let stack: TestStack;
let as: OidcServer;
/** SDK v1 with sessions (2025-11-25). */
let legacy: ProtectedMcpServer;
/** SDK v2, 2026-07-28 only. */
let modern: ProtectedMcpServer;

test.before(async () => {
  as = await startOidcServer({ accessTokenTtl: 600 });
  legacy = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri, scopesSupported: ['mcp:read'], sessions: true });
  modern = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri, scopesSupported: ['mcp:read'], modernOnly: true });
  stack = await startTestStack({ CONNECTOR__AUTH_TIMEOUT_SECONDS: '120' });
});

test.after.always(async () => {
  await stack?.stop();
  await legacy?.close();
  await modern?.close();
  await as?.close();
});

const URL_ELICITATION = { elicitation: { url: {} } };
const record = async (id: string) => (await stack.api('GET', `/api/v1/connectors/${id}`)).body;

/** Runs the consent as the user would and delivers the callback; answers the connector record. */
async function authorize(id: string, endpoint: string) {
  const consent = await openConsentPage(stack.port, endpoint);
  const callback = await createConsentAgent().authorize(consent.authorizationUrl.href, { redirectUri: `${stack.baseUrl}${CALLBACK_PATH}`, decision: 'approve' });
  const page = await deliverCallback(stack.port, callback, consent.cookie);
  if (page.status !== 200) throw new Error(`callback answered ${page.status}: ${page.text}`);
  return { record: await record(id), scope: consent.authorizationUrl.searchParams.get('scope')?.split(' ') ?? [] };
}

async function connected(server: ProtectedMcpServer): Promise<{ id: string; mcpUrl: string }> {
  const { body: c } = await stack.api('POST', '/api/v1/connectors', { url: server.url });
  const res = await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, {});
  const { record: r } = await authorize(c.id, res.body.auth_request.authorization_endpoint);
  if (r.state !== 'connected') throw new Error(`not connected: ${JSON.stringify(r)}`);
  return { id: c.id, mcpUrl: localMcpUrl(stack.port, c.id) };
}

async function v1Session(mcpUrl: string, capabilities: Record<string, unknown> = URL_ELICITATION) {
  const client = new ClientV1({ name: 'reauth-v1', version: '1.0.0' }, { capabilities });
  await client.connect(new TransportV1(new URL(mcpUrl)));
  return client;
}

async function v2Client(mcpUrl: string, capabilities: Record<string, unknown> = URL_ELICITATION) {
  const client = new ClientV2({ name: 'reauth-v2', version: '1.0.0' }, { capabilities, versionNegotiation: { mode: 'auto' } });
  await client.connect(new TransportV2(new URL(mcpUrl)));
  return client;
}

const textOf = (result: object) => JSON.stringify((result as { content?: unknown }).content);

/** The -32042 error's code and its one elicitation's URL. */
function elicitedUrl(error: unknown): { code: unknown; url: string | undefined } {
  const e = error as { code?: unknown; data?: { elicitations?: { mode?: string; url?: string }[] } };
  const elicitation = e.data?.elicitations?.[0];
  return { code: e.code, url: elicitation?.mode === 'url' ? elicitation.url : undefined };
}

const rawCall = (mcpUrl: string, name: string) => fetch(mcpUrl, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name, arguments: { text: 'raw' } } }),
});

test('SDK v1 session meets a 403 insufficient_scope: -32042 with the step-up URL, still connected; the grant through it makes the tool work', async (t) => {
  const { id, mcpUrl } = await connected(legacy);
  const session = await v1Session(mcpUrl);
  t.teardown(() => session.close());
  t.regex(textOf(await session.callTool({ name: 'whoami', arguments: {} })), /mcp:read/);

  const error = await t.throwsAsync(session.callTool({ name: 'admin-echo', arguments: { text: 'hi' } }));
  const { code, url } = elicitedUrl(error);
  t.is(code, -32042);
  t.truthy(url);
  const offered = await record(id);
  t.is(offered.state, 'connected', 'asking for scope does not disconnect');
  t.is(offered.auth_request?.authorization_endpoint, url);
  t.regex(textOf(await session.callTool({ name: 'whoami', arguments: {} })), /mcp:read/, 'what the token may do keeps working');

  // A client that declared nothing: 403, a JSON-RPC error whose problem carries the same URL.
  const plain = await rawCall(mcpUrl, 'admin-echo');
  t.is(plain.status, 403);
  t.is(plain.headers.get('www-authenticate'), null);
  const { rpc, problem } = await mcpErrorOf(plain);
  t.like(rpc, { id: 9, code: -31007 });
  t.is(problem.authorization_url, url, 'the offer covering the scopes is reused');
  t.regex(problem.scope ?? '', /mcp:admin/);

  const events = (await stack.api('GET', `/api/v1/connectors/${id}/events`)).body.items as { from: string; to: string; reason: string }[];
  t.true(events.some((e) => e.from === 'connected' && e.to === 'connected' && /asked for more scope \(.*mcp:admin.*\); step-up authorization URL issued/.test(e.reason)), 'the audit says why');

  const { record: after, scope } = await authorize(id, url!);
  t.like(after, { state: 'connected', auth_request: null });
  t.true(scope.includes('mcp:read') && scope.includes('mcp:admin'), `SEP-2350: the accumulated scopes (${scope.join(' ')})`);
  const fresh = await v1Session(mcpUrl);
  t.teardown(() => fresh.close());
  // The proxy's route cache may serve the old token for about a second and a half after the change.
  await recordWhen(stack.api, id, (r) => r.state === 'connected', 5_000, 'connected');
  const granted = await retry(() => fresh.callTool({ name: 'admin-echo', arguments: { text: 'granted' } }));
  t.is(textOf(granted), JSON.stringify([{ type: 'text', text: 'granted' }]));
});

test('SDK v2 client at 2026-07-28 meets a 403 insufficient_scope: -32042 from the request\'s _meta capabilities; without them, an error', async (t) => {
  const { id, mcpUrl } = await connected(modern);
  const client = await v2Client(mcpUrl);
  t.teardown(() => client.close());
  t.is(client.getNegotiatedProtocolVersion(), '2026-07-28');
  const error = await t.throwsAsync(client.callTool({ name: 'admin-echo', arguments: { text: 'hi' } }));
  const { code, url } = elicitedUrl(error);
  t.is(code, -32042);
  t.is((await record(id)).auth_request?.authorization_endpoint, url);
  t.is((await record(id)).state, 'connected');

  const undeclared = await v2Client(mcpUrl, {});
  t.teardown(() => undeclared.close());
  const refused = await t.throwsAsync(undeclared.callTool({ name: 'admin-echo', arguments: { text: 'hi' } }));
  t.not(elicitedUrl(refused).code, -32042, 'no elicitation for a client that did not declare it');
  t.regex(textOf(await client.callTool({ name: 'whoami', arguments: {} })), /mcp:read/);
});

test('a revoked grant met mid-session by SDK v1: auth_required with a fresh URL, -32042 carrying it; authorizing again connects', async (t) => {
  const { id, mcpUrl } = await connected(legacy);
  const session = await v1Session(mcpUrl);
  t.teardown(() => session.close());
  t.regex(textOf(await session.callTool({ name: 'whoami', arguments: {} })), /mcp:read/);

  t.true((await as.revokeAllGrants()) > 0);
  legacy.refuseToken(legacy.seenTokens.at(-1)!);
  const error = await t.throwsAsync(session.callTool({ name: 'whoami', arguments: {} }));
  const { code, url } = elicitedUrl(error);
  t.is(code, -32042);
  t.truthy(url);
  const waiting = await record(id);
  t.like(waiting, { state: 'auth_required', disconnect_reason: null });
  t.is(waiting.auth_request?.authorization_endpoint, url);
  const events = (await stack.api('GET', `/api/v1/connectors/${id}/events`)).body.items as { from: string; to: string; reason: string }[];
  t.true(events.some((e) => e.from === 'connected' && e.to === 'auth_required' && /refused the access token \(HTTP 401\) and a refresh did not help; authorization URL issued/.test(e.reason)));
  t.false(events.some((e) => e.to === 'disconnected'), 'never silently disconnected');

  // Meanwhile a request of a client that declared nothing: 409, with the URL.
  const plain = await rawCall(mcpUrl, 'whoami');
  t.is(plain.status, 409);
  t.like((await mcpErrorOf(plain)).problem, { connector_state: 'auth_required', authorization_url: url });

  const { record: again } = await authorize(id, url!);
  t.is(again.state, 'connected');
  // The proxy's route cache may answer from the auth_required route for a moment.
  const fresh = await retry(() => v1Session(mcpUrl));
  t.teardown(() => fresh.close());
  t.regex(textOf(await fresh.callTool({ name: 'whoami', arguments: {} })), /mcp:read/);
});

test('a token refused for good at 2026-07-28 (SDK v2, no URL elicitation): the call fails, the record waits for the user with a fresh URL', async (t) => {
  const { id, mcpUrl } = await connected(modern);
  const client = await v2Client(mcpUrl, {});
  t.teardown(() => client.close());
  modern.refuseEveryToken(true);
  t.teardown(() => modern.refuseEveryToken(false));
  await t.throwsAsync(client.callTool({ name: 'whoami', arguments: {} }));
  const waiting = await recordWhen(stack.api, id, (r) => r.state !== 'connected', 20_000, 'the connector to leave connected');
  t.is(waiting.state, 'auth_required');
  t.truthy(waiting.auth_request?.authorization_endpoint);
  modern.refuseEveryToken(false);
  t.is((await authorize(id, waiting.auth_request.authorization_endpoint)).record.state, 'connected');
});

/** The proxy's route cache may serve the previous route for a moment after a change. */
async function retry<T>(call: () => Promise<T>, attempts = 20): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await call();
    } catch (err) {
      if (i >= attempts) throw err;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
