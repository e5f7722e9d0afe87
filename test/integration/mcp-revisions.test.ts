// Connect negotiates the MCP revision, through the REST API on the real stack: servers built on
// the SDK v2 that speak ONLY 2026-07-28 connect with a token and through OAuth (oidc-provider),
// SDK v1 servers still connect at 2025-11-25, the revision is on the record, in GET answers and in
// the audit event, and a wrong token is a refused token (502) in both eras.
import test from 'ava';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createConsentAgent, startOidcServer, startProtectedMcpServer, type OidcServer, type ProtectedMcpServer } from '../fixtures/oauth';
import { startModernMcpServer, type ModernMcpServer } from '../fixtures/modern-mcp-server';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';
import { CALLBACK_PATH, deliverCallback, openConsentPage } from '../helpers/oauth-service';
import { startTestStack, type TestStack } from '../helpers/test-stack';

let stack: TestStack;
let modernOnly: ModernMcpServer;
let legacyOnly: TokenMcpServer;
let as: OidcServer;
let protectedModern: ProtectedMcpServer;
let protectedHeaderFirst: ProtectedMcpServer;

test.before(async () => {
  modernOnly = await startModernMcpServer({ token: 'modern-token' });
  legacyOnly = await startTokenMcpServer({ token: 'legacy-token' });
  as = await startOidcServer();
  protectedModern = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri, modernOnly: true });
  protectedHeaderFirst = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri, modernOnly: true, requireVersionHeader: true });
  stack = await startTestStack({ CONNECTOR__AUTH_TIMEOUT_SECONDS: '60' });
});

test.after.always(async () => {
  await stack?.stop();
  await Promise.all([modernOnly?.close(), legacyOnly?.close(), protectedModern?.close(), protectedHeaderFirst?.close()]);
  await as?.close();
});

async function connectWithToken(url: string, token: string) {
  const { body: c } = await stack.api('POST', '/api/v1/connectors', { url });
  return { id: c.id as string, res: await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: token }) };
}

async function connectedEvent(id: string) {
  const events = await stack.api('GET', `/api/v1/connectors/${id}/events`);
  return events.body.items.findLast((e: { to: string }) => e.to === 'connected');
}

for (const [era, server, token] of [
  ['2026-07-28', () => modernOnly.url, 'modern-token'],
  ['2025-11-25', () => legacyOnly.url, 'legacy-token'],
] as const) {
  test(`a server that speaks only ${era} connects with a token at ${era}; the record, GET and the audit event say so`, async (t) => {
    const { id, res } = await connectWithToken(server(), token);
    t.is(res.status, 200, JSON.stringify(res.body));
    t.like(res.body, { state: 'connected', protocol_version: era });
    t.is((await stack.api('GET', `/api/v1/connectors/${id}`)).body.protocol_version, era);
    t.like(await connectedEvent(id), { from: 'connecting', to: 'connected', protocol_version: era });
  });

  test(`a wrong token is reported as a refused token (502) at ${era}`, async (t) => {
    const { id, res } = await connectWithToken(server(), 'wrong-token');
    t.is(res.status, 502);
    t.regex(res.body.detail, /refused the token \(HTTP 401\)/);
    t.like((await stack.api('GET', `/api/v1/connectors/${id}`)).body, { state: 'disconnected', protocol_version: null });
  });
}

test('a connector never connected has no protocol_version, and the OpenAPI document describes the field', async (t) => {
  const { body } = await stack.api('POST', '/api/v1/connectors', { url: modernOnly.url });
  t.is(body.protocol_version, null);
  const openapi = await stack.api('GET', '/api/v1/openapi.json');
  t.truthy(openapi.body.components.schemas.Connector.properties.protocol_version);
  t.truthy(openapi.body.components.schemas.ConnectorEvent.properties.protocol_version);
});

for (const [what, server] of [
  ['that speaks only 2026-07-28', () => protectedModern],
  ['that answers 400 to a request without MCP-Protocol-Version before it reads the token', () => protectedHeaderFirst],
] as const) {
  test(`OAuth: a server ${what} starts the flow, and the grant connects it at 2026-07-28`, async (t) => {
    const { body: c } = await stack.api('POST', '/api/v1/connectors', { url: server().url });
    const res = await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, {});
    t.is(res.status, 200, JSON.stringify(res.body));
    t.is(res.body.state, 'auth_required');
    const consent = await openConsentPage(stack.port, res.body.auth_request.authorization_endpoint);
    const callbackUrl = `${stack.baseUrl}${CALLBACK_PATH}`;
    const callback = await createConsentAgent().authorize(consent.authorizationUrl.href, { redirectUri: callbackUrl, decision: 'approve' });
    const page = await deliverCallback(stack.port, callback, consent.cookie);
    t.is(page.status, 200, page.text);
    t.regex(page.text, /Connected/);
    const record = (await stack.api('GET', `/api/v1/connectors/${c.id}`)).body;
    t.like(record, { state: 'connected', protocol_version: '2026-07-28' });
    t.like(await connectedEvent(c.id), { actor: 'user', protocol_version: '2026-07-28' });
    // And usable through the connector's MCP path by a 2026-07-28 client.
    const client = new Client({ name: 'revisions-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${stack.port}/api/v1/connectors/${c.id}/mcp`)));
    t.is(client.getNegotiatedProtocolVersion(), '2026-07-28');
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    t.regex(JSON.stringify(result.content), /test-user/);
    await client.close();
  });
}
