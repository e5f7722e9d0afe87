// The OAuth authorization code flow run by the service, end to end: a real oidc-provider, an MCP
// server that verifies its JWTs, the user played by an HTTP agent with a cookie jar, and the
// real stack. Connect → consent → callback → connected and usable through the proxy; tokens
// refreshed on a durable timer; a grant revoked at the server ends as `disconnected`.
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectorWorkflowId } from '../../workflows/messages';
import { createConsentAgent, startOidcServer, startProtectedMcpServer, type OidcServer, type ProtectedMcpServer } from '../fixtures/oauth';
import { eventually, filesContaining, startTestStack, type TestStack } from '../helpers/test-stack';
import { undeclaredAnswers } from '../helpers/declared-answers';
import { CALLBACK_PATH, deliverCallback, openConsentPage } from '../helpers/oauth-service';

let stack: TestStack;
let as: OidcServer;
let mcp: ProtectedMcpServer;
const TOKEN_TTL_S = 6;

test.before(async () => {
  as = await startOidcServer({ accessTokenTtl: TOKEN_TTL_S });
  mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri, scopesSupported: ['mcp:read'] });
  stack = await startTestStack({ CONNECTOR__AUTH_TIMEOUT_SECONDS: '60' });
});

// Every answer of this file is one its operation declares (contract/operations.ts).
test.after('no handler answered a status or problem type its operation does not declare', (t) => {
  t.deepEqual(undeclaredAnswers(stack.logFile), []);
});

test.after.always(async () => {
  await stack?.stop();
  await mcp?.close();
  await as?.close();
});

const callbackUrl = () => `${stack.baseUrl}${CALLBACK_PATH}`;
const deliver = (callback: URL, cookie?: string) => deliverCallback(stack.port, callback, cookie);
const consentOf = (res: { body: { auth_request: { authorization_endpoint: string } } }) => openConsentPage(stack.port, res.body.auth_request.authorization_endpoint);

async function whoami(mcpUrl: string): Promise<string> {
  const client = new Client({ name: 'oauth-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  await client.close();
  return JSON.stringify(result.content);
}

async function startFlow(body: Record<string, unknown> = {}) {
  const { body: c } = await stack.api('POST', '/api/v1/connectors', { url: mcp.url });
  const res = await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, body);
  return { id: c.id as string, mcpUrl: c.mcp_url as string, res };
}

test('approve: auth_required with the URL to open, consent, callback, connected, usable, refreshed, revoked', async (t) => {
  const { id, mcpUrl, res } = await startFlow();
  t.is(res.status, 200, JSON.stringify(res.body));
  t.is(res.body.state, 'auth_required');
  const consent = await consentOf(res);
  const url = consent.authorizationUrl;
  t.is(url.searchParams.get('code_challenge_method'), 'S256');
  t.is(url.searchParams.get('resource'), mcp.url);
  t.is(url.searchParams.get('redirect_uri'), callbackUrl());
  t.true(Date.parse(res.body.auth_request.expires_at) > Date.now());

  const callback = await createConsentAgent().authorize(url.toString(), { redirectUri: callbackUrl(), decision: 'approve' });
  const page = await deliver(callback, consent.cookie);
  t.is(page.status, 200);
  t.regex(page.text, /Connected/);
  const record = (await stack.api('GET', `/api/v1/connectors/${id}`)).body;
  t.is(record.state, 'connected');
  t.regex(await whoami(mcpUrl), /mcp:read/);

  // Replaying the same callback is refused and changes nothing.
  const replay = await deliver(callback, consent.cookie);
  t.is(replay.status, 400);
  t.regex(replay.text, /expired or was already used/);
  t.is((await stack.api('GET', `/api/v1/connectors/${id}`)).body.state, 'connected');

  // The token is refreshed on the workflow's timer: it changes while the connector stays usable.
  const handle = stack.temporal.workflow.getHandle(connectorWorkflowId(id));
  const connectedAt = Date.now();
  const first = (await handle.query('route' as never)) as { token: string };
  const rotated = await eventually(async () => {
    const now = (await handle.query('route' as never)) as { token: string };
    return now.token !== first.token ? now : undefined;
  }, TOKEN_TTL_S * 3000, 'a refreshed token');
  t.truthy(rotated);
  // Scheduled at expiry minus a third of the lifetime (the skew shortened for short-lived tokens).
  t.log(`token refreshed ${Date.now() - connectedAt} ms after connected; scheduled at ${(TOKEN_TTL_S * 2000) / 3} ms`);
  t.regex(await whoami(mcpUrl), /mcp:read/);

  // Revoking the grant at the server: the next refresh fails with invalid_grant → disconnected.
  t.true((await as.revokeAllGrants()) > 0);
  const lost = await eventually(async () => {
    const r = (await stack.api('GET', `/api/v1/connectors/${id}`)).body;
    return r.state === 'disconnected' ? r : undefined;
  }, TOKEN_TTL_S * 3000, 'disconnect after revocation');
  t.regex(lost.disconnect_reason, /expired or was revoked/);
  t.true(lost.disconnect_permanent);
});

test('deny with redirect_url: 302 to it with connector_id, error and error_description', async (t) => {
  const { id, res } = await startFlow({ redirect_url: 'http://127.0.0.1:1/done?x=1' });
  const consent = await consentOf(res);
  const callback = await createConsentAgent().authorize(consent.authorizationUrl.href, { redirectUri: callbackUrl(), decision: 'deny' });
  const answer = await deliver(callback, consent.cookie);
  t.is(answer.status, 302);
  const location = new URL(answer.location!);
  t.is(location.origin + location.pathname, 'http://127.0.0.1:1/done');
  t.is(location.searchParams.get('x'), '1');
  t.is(location.searchParams.get('connector_id'), id);
  t.is(location.searchParams.get('error'), 'access_denied');
  t.truthy(location.searchParams.get('error_description'));
  const record = (await stack.api('GET', `/api/v1/connectors/${id}`)).body;
  t.is(record.state, 'disconnected');
  t.regex(record.disconnect_reason, /authorization failed/);

  // The same callback again: its state is used, and the user still goes back to redirect_url.
  const replay = await deliver(callback, consent.cookie);
  t.is(replay.status, 302);
  const back = new URL(replay.location!);
  t.is(back.origin + back.pathname, 'http://127.0.0.1:1/done');
  t.is(back.searchParams.get('connector_id'), id);
  t.is(back.searchParams.get('error'), 'invalid_request');
  t.regex(back.searchParams.get('error_description') ?? '', /expired or was already used/);
  t.is((await stack.api('GET', `/api/v1/connectors/${id}`)).body.updated_at, record.updated_at, 'the replay touched nothing');
});

test('deny without redirect_url: an HTML page shows the error, escaped', async (t) => {
  const { res } = await startFlow();
  const consent = await consentOf(res);
  const callback = await createConsentAgent().authorize(consent.authorizationUrl.href, { redirectUri: callbackUrl(), decision: 'deny' });
  const page = await deliver(callback, consent.cookie);
  t.is(page.status, 400);
  t.regex(page.text, /Authorization failed/);
  t.regex(page.text, /access_denied/);
  t.false(page.text.includes('<script'));
});

test('the consent page names the server and the owner; a callback without its cookie is refused and leaves the state usable', async (t) => {
  const { id, res } = await startFlow({ redirect_url: 'http://127.0.0.1:1/done' });
  const endpoint = new URL(res.body.auth_request.authorization_endpoint);
  t.is(endpoint.origin + endpoint.pathname, `${stack.baseUrl}/api/v1/connectors/oauth/authorize`, 'the service hands out its own page');
  const consent = await consentOf(res);
  t.true(consent.page.includes(mcp.url), 'the page names the MCP server');
  t.regex(consent.page, /belongs to/);
  t.regex(consent.cookie, /^connector_consent_/);
  t.true(consent.authorizationUrl.href.startsWith(as.issuer));
  const callback = await createConsentAgent().authorize(consent.authorizationUrl.href, { redirectUri: callbackUrl(), decision: 'approve' });

  const elsewhere = await deliver(callback); // another browser: no cookie
  t.is(elsewhere.status, 302);
  const back = new URL(elsewhere.location!);
  t.is(back.searchParams.get('error'), 'access_denied');
  t.is(back.searchParams.get('connector_id'), id);
  t.is((await stack.api('GET', `/api/v1/connectors/${id}`)).body.state, 'auth_required', 'nothing changed');
  const forgedCookie = await deliver(callback, `${consent.cookie.split('=')[0]}=forged`);
  t.is(new URL(forgedCookie.location!).searchParams.get('error'), 'access_denied');

  const here = await deliver(callback, consent.cookie); // the browser that opened the page
  t.is(here.status, 302);
  t.is(new URL(here.location!).searchParams.get('error'), null);
  t.is((await stack.api('GET', `/api/v1/connectors/${id}`)).body.state, 'connected');
});

test('a forged state touches no connector', async (t) => {
  const { id, res } = await startFlow({ redirect_url: 'http://127.0.0.1:1/done' });
  const page = await deliver(new URL(`${callbackUrl()}?code=forged&state=${'A'.repeat(43)}&iss=${encodeURIComponent(as.issuer)}`));
  t.is(page.status, 400, 'no redirect: nothing about the caller can be trusted');
  t.regex(page.text, /this authorization request is unknown/);
  const record = (await stack.api('GET', `/api/v1/connectors/${id}`)).body;
  t.is(record.state, 'auth_required');
  t.is(record.auth_request.authorization_endpoint, res.body.auth_request.authorization_endpoint);
});

test('a wrong iss fails the flow', async (t) => {
  const { id, res } = await startFlow();
  const consent = await consentOf(res);
  const callback = await createConsentAgent().authorize(consent.authorizationUrl.href, { redirectUri: callbackUrl(), decision: 'approve' });
  callback.searchParams.set('iss', 'http://127.0.0.1:2/evil');
  const page = await deliver(callback, consent.cookie);
  t.is(page.status, 400);
  t.regex(page.text, /issuer/);
  t.is((await stack.api('GET', `/api/v1/connectors/${id}`)).body.state, 'disconnected');
});

test('no secret of the flow reaches the data dir or the logs in plaintext', async (t) => {
  const { id, res } = await startFlow();
  const consent = await consentOf(res);
  const callback = await createConsentAgent().authorize(consent.authorizationUrl.href, { redirectUri: callbackUrl(), decision: 'approve' });
  await deliver(callback, consent.cookie);
  t.is((await stack.api('GET', `/api/v1/connectors/${id}`)).body.state, 'connected');
  const code = callback.searchParams.get('code')!;
  t.deepEqual(filesContaining(stack.dataDir, code), [], 'authorization code');
  t.true(mcp.seenTokens.length > 0);
  for (const token of mcp.seenTokens) t.deepEqual(filesContaining(stack.dataDir, token.slice(-43)), [], 'access token');
  t.true(as.issuedRefreshTokens().length > 0);
  for (const token of as.issuedRefreshTokens()) t.deepEqual(filesContaining(stack.dataDir, token), [], 'refresh token');
});

