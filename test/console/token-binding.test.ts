// The connector page says how the connector's token travels (headless Chromium against the
// embedded stack, callers unauthenticated): bound to the connector's own DPoP key when the
// authorization server issued it so (RFC 9449), a bearer token otherwise; beside how it authenticates.
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { startOidcServer, startProtectedMcpServer, type OidcServer, type ProtectedMcpServer } from '../fixtures/oauth';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';
import { startTestStack, type TestStack } from '../helpers/test-stack';
import { launchChromium, watchCsp } from './browser';

const SECRET = `binding-secret-${crypto.randomUUID()}`;
const TOKEN = 'binding-bearer-token';

let stack: TestStack;
let as: OidcServer;
let dpopServer: ProtectedMcpServer;
let tokenServer: TokenMcpServer;
let browser: Browser;

test.before(async () => {
  as = await startOidcServer({
    accessTokenTtl: 600, clientCredentials: true, dpop: true,
    staticClients: [{ clientId: 'binding-client', clientSecret: SECRET, authMethod: 'client_secret_basic', redirectUris: [], grantTypes: ['client_credentials'] }],
  });
  dpopServer = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri, scopesSupported: ['mcp:read'], dpop: { nonce: 'rs-nonce-1' } });
  tokenServer = await startTokenMcpServer({ token: TOKEN });
  stack = await startTestStack({});
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await stack?.stop();
  await dpopServer?.close();
  await tokenServer?.close();
  await as?.close();
});

async function connectorPage(id: string): Promise<{ page: Page; csp: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext();
  const csp = watchCsp(context);
  const page = await context.newPage();
  await page.goto(`${stack.baseUrl}/#/connectors/${id}`);
  await page.locator('#token-binding').waitFor();
  return { page, csp, close: () => context.close() };
}

test('a DPoP-bound token and a bearer token are told apart on the connector page', async (t) => {
  const bound = (await stack.api('POST', '/api/v1/connectors', { url: dpopServer.url, match_preset: false })).body;
  const connected = await stack.api('POST', `/api/v1/connectors/${bound.id}/connect`, { grant: 'client_credentials', client_id: 'binding-client', client_secret: SECRET });
  t.is(connected.status, 200, connected.text);
  t.like(connected.body, { state: 'connected', token_binding: 'dpop', auth_kind: 'client_credentials' });
  const bearer = (await stack.api('POST', '/api/v1/connectors', { url: tokenServer.url, match_preset: false })).body;
  const given = await stack.api('POST', `/api/v1/connectors/${bearer.id}/connect`, { access_token: TOKEN });
  t.like(given.body, { state: 'connected', auth_kind: 'bearer' });
  t.is(given.body.token_binding, undefined);

  const dpop = await connectorPage(bound.id);
  t.is(await dpop.page.locator('#token-binding').getAttribute('data-binding'), 'dpop');
  t.regex(await dpop.page.locator('#token-binding').textContent() ?? '', /^DPoP: bound to the connector's own key/);
  t.is(await dpop.page.locator('#auth-kind').textContent(), 'OAuth client credentials');
  t.deepEqual(dpop.csp, []);
  await dpop.close();

  const plain = await connectorPage(bearer.id);
  t.is(await plain.page.locator('#token-binding').getAttribute('data-binding'), 'bearer');
  t.regex(await plain.page.locator('#token-binding').textContent() ?? '', /^Bearer/);
  t.is(await plain.page.locator('#auth-kind').textContent(), 'a given token');
  t.false((await plain.page.content()).includes(TOKEN), 'never the token itself');
  await plain.close();
});
