// What the proxy does about an OAuth connector's token, end to end: a real oidc-provider, an MCP
// server that verifies its JWTs and can be told to refuse a token that still verifies, the real
// stack, and an MCP SDK client calling through the proxy. Access tokens live ten minutes here,
// so the workflow's timer never refreshes during the test: every refresh seen is the proxy's.
//
// Serial: revoking grants at the authorization server is global to it.
import anyTest, { type TestFn } from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectorWorkflowId } from '../../workflows/messages';
import { createConsentAgent, startOidcServer, startProtectedMcpServer, type OidcServer, type ProtectedMcpServer } from '../fixtures/oauth';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { CALLBACK_PATH, deliverCallback, openConsentPage } from '../helpers/oauth-service';
import { mcpErrorOf } from '../proxy/mcp-answers';
import { historyOfAllRuns } from '../helpers/history-values';

const test = anyTest.serial as TestFn;

let stack: TestStack;
let as: OidcServer;
let mcp: ProtectedMcpServer;

test.before(async () => {
  as = await startOidcServer({ accessTokenTtl: 600 });
  mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri, scopesSupported: ['mcp:read'] });
  stack = await startTestStack({ CONNECTOR__AUTH_TIMEOUT_SECONDS: '60' });
});

test.after.always(async () => {
  await stack?.stop();
  await mcp?.close();
  await as?.close();
});

const callbackUrl = () => `${stack.baseUrl}${CALLBACK_PATH}`;

/** Runs the consent as the user would and delivers the callback; answers the connector record. */
async function authorize(id: string, endpoint: string) {
  const consent = await openConsentPage(stack.port, endpoint);
  const callback = await createConsentAgent().authorize(consent.authorizationUrl.href, { redirectUri: callbackUrl(), decision: 'approve' });
  const page = await deliverCallback(stack.port, callback, consent.cookie);
  if (page.status !== 200) throw new Error(`callback answered ${page.status}: ${page.text}`);
  return (await stack.api('GET', `/api/v1/connectors/${id}`)).body;
}

async function connectedConnector(): Promise<{ id: string; mcpUrl: string }> {
  const { body: c } = await stack.api('POST', '/api/v1/connectors', { url: mcp.url });
  const res = await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, {});
  const record = await authorize(c.id, res.body.auth_request.authorization_endpoint);
  if (record.state !== 'connected') throw new Error(`not connected: ${JSON.stringify(record)}`);
  return { id: c.id, mcpUrl: c.mcp_url };
}

/** One MCP session through the proxy: connect, call a tool, close. */
async function callTool(mcpUrl: string, name: string, args: Record<string, unknown> = {}) {
  const client = new Client({ name: 'oauth-proxy-e2e', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
    const result = await client.callTool({ name, arguments: args });
    return JSON.stringify(result.content);
  } finally {
    await client.close();
  }
}

const record = async (id: string) => (await stack.api('GET', `/api/v1/connectors/${id}`)).body;

const authRequired = (id: string) => eventually(async () => {
  const r = await record(id);
  return r.state === 'auth_required' ? r : undefined;
}, 20_000, 'auth_required');

test('a token the server refuses is refreshed by the proxy and the call retried; a revoked grant asks the user again (auth_required)', async (t) => {
  const { id, mcpUrl } = await connectedConnector();
  t.regex(await callTool(mcpUrl, 'whoami'), /mcp:read/);
  const first = mcp.seenTokens.at(-1)!;

  mcp.refuseToken(first);
  const seenBefore = mcp.seenTokens.length;
  t.regex(await callTool(mcpUrl, 'whoami'), /mcp:read/, 'the caller never saw the 401');
  const seen = mcp.seenTokens.slice(seenBefore);
  t.is(seen[0], first, 'the first request carried the refused token');
  const second = seen[1]!;
  t.not(second, first);
  t.true(seen.slice(1).every((token) => token === second), 'every later request carried the new token');
  t.is((await record(id)).state, 'connected');

  // The grant is revoked at the authorization server and the server refuses the current token:
  // the refresh fails with invalid_grant, and the user is asked to authorize again.
  t.true((await as.revokeAllGrants()) > 0);
  mcp.refuseToken(second);
  await t.throwsAsync(callTool(mcpUrl, 'whoami'));
  const waiting = await authRequired(id);
  t.is(waiting.disconnect_reason, null);
  t.truthy(waiting.auth_request.authorization_endpoint);
  const answer = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  t.is(answer.status, 409, 'the proxy no longer relays for a connector waiting for authorization');
  t.like((await mcpErrorOf(answer)).problem, { connector_state: 'auth_required', authorization_url: waiting.auth_request.authorization_endpoint });
});

test('a freshly refreshed token refused too: the user is asked to authorize again, the audit says why', async (t) => {
  const { id, mcpUrl } = await connectedConnector();
  t.regex(await callTool(mcpUrl, 'whoami'), /mcp:read/);
  mcp.refuseEveryToken(true);
  t.teardown(() => mcp.refuseEveryToken(false));
  const seenBefore = mcp.seenTokens.length;
  await t.throwsAsync(callTool(mcpUrl, 'whoami'));
  const [refused, fresh] = mcp.seenTokens.slice(seenBefore);
  t.truthy(fresh);
  t.not(fresh, refused, 'the retry carried a new token');
  const waiting = await authRequired(id);
  t.truthy(waiting.auth_request.authorization_endpoint);
  const events = (await stack.api('GET', `/api/v1/connectors/${id}/events`)).body.items as { to: string; reason: string }[];
  t.regex(events.at(-1)!.reason, /refused the access token \(HTTP 401\) and a refresh did not help; authorization URL issued/);
});

test('step-up: a 403 insufficient_scope reaches the caller with a step-up URL, and the next connect asks for the union of the scopes', async (t) => {
  const { id, mcpUrl } = await connectedConnector();
  const before = await callTool(mcpUrl, 'whoami');
  t.regex(before, /mcp:read/);
  t.notRegex(before, /mcp:admin/);

  // A client calling the tool again and again: every call fails, one report reaches the workflow.
  for (let i = 0; i < 4; i++) {
    const error = await t.throwsAsync(callTool(mcpUrl, 'admin-echo', { text: 'hi' }), { instanceOf: StreamableHTTPError });
    t.is((error as StreamableHTTPError).code, 403);
  }
  const { events } = await historyOfAllRuns(stack.temporal, connectorWorkflowId(id));
  const stepUps = (events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'stepUpAuthorization');
  t.is(stepUps.length, 1, 'one report for the same token and scope set, however often the server asks');
  const offered = await record(id);
  t.is(offered.state, 'connected', 'asking for scope does not disconnect');
  t.truthy(offered.auth_request?.authorization_endpoint, 'a step-up URL is on offer');

  const reconnect = await stack.api('POST', `/api/v1/connectors/${id}/connect`, {});
  t.is(reconnect.body.state, 'auth_required');
  const scopeOf = async (res: typeof reconnect) =>
    (await openConsentPage(stack.port, res.body.auth_request.authorization_endpoint)).authorizationUrl.searchParams.get('scope')!.split(' ');
  const scope = await scopeOf(reconnect);
  t.true(scope.includes('mcp:read'));
  t.true(scope.includes('mcp:admin'));
  t.is(scope.filter((s) => s === 'mcp:admin').length, 1);

  // With the wider grant the tool works, and nothing asks for more. The proxy's route cache
  // may serve the old token for up to about a second and a half after the change.
  t.is((await authorize(id, reconnect.body.auth_request.authorization_endpoint)).state, 'connected');
  await eventually(async () => ((await callTool(mcpUrl, 'whoami')).includes('mcp:admin') ? true : undefined), 10_000, 'the new token in use');
  t.is(await callTool(mcpUrl, 'admin-echo', { text: 'granted' }), JSON.stringify([{ type: 'text', text: 'granted' }]));
  const again = await stack.api('POST', `/api/v1/connectors/${id}/connect`, {});
  const scopeAgain = await scopeOf(again);
  t.deepEqual([...scopeAgain].sort(), [...scope].sort(), 'the union did not grow');
});
