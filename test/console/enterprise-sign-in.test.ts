// The console's sign-in as the identity assertion of an enterprise-managed connect (SEP-990), in
// headless Chromium: a user signs in at the platform's identity provider (oidc-provider,
// CONNECTOR__AUTH_ISSUER), opens a connector of a preset that declares enterprise_managed, and
// "Connect with my sign-in" sends the ID token of that sign-in; the enterprise identity provider
// (which trusts the platform's) exchanges it for an ID-JAG, the MCP server's authorization server
// takes that, and the connector is connected as enterprise_managed. Nothing goes to localStorage
// and no page reports a CSP violation.
import test from 'ava';
import type { Browser } from 'playwright-core';
import { freePortBelowEphemeral } from '../../service/free-port';
import { startEnterpriseWorld, startOidcServer, type EnterpriseWorld, type OidcServer } from '../fixtures/oauth';
import { startTestStack, type TestStack } from '../helpers/test-stack';
import { launchChromium, localStorageKeys, signInAtProvider, watchCsp } from './browser';

const CONSOLE_CLIENT = 'connector-console';

let stack: TestStack;
let platform: OidcServer;
let world: EnterpriseWorld;
let browser: Browser;
let base: string;

test.before(async () => {
  const port = await freePortBelowEphemeral();
  base = `http://127.0.0.1:${port}`;
  platform = await startOidcServer({ accessTokenTtl: 600, staticClients: [{ clientId: CONSOLE_CLIENT, authMethod: 'none', redirectUris: [`${base}/`] }] });
  world = await startEnterpriseWorld({ trustedIssuer: { issuer: platform.issuer, jwksUri: platform.jwksUri } });
  [stack, browser] = await Promise.all([
    startTestStack({
      PORT: String(port), BASE_URL: base,
      CONNECTOR__AUTH_ISSUER: platform.issuer,
      CONNECTOR__CONSOLE_CLIENT_ID: CONSOLE_CLIENT,
      // Authentication on blocks private networks; the issuers and the MCP server here are on loopback.
      CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
      CONNECTOR__PRESETS: JSON.stringify([{
        url: world.mcp.url, metadata: { name: 'Enterprise tools' }, client_id: 'ema-svc', client_secret: world.secrets.client,
        enterprise_managed: { idp_token_endpoint: world.idp.tokenEndpoint, idp_client_id: 'idp-svc', idp_client_secret: world.secrets.idp },
      }]),
    }),
    launchChromium(),
  ]);
});

test.after.always(async () => {
  await browser?.close();
  await stack?.stop();
  await world?.close();
  await platform?.close();
});

test("a connector of an enterprise-managed preset connects with the signed-in user's own ID token", async (t) => {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const csp = watchCsp(context);
  const page = await context.newPage();
  await page.goto(`${base}/`);
  await signInAtProvider(page, platform.issuer, 'erin');

  // Erin's connector of the preset, made with her own sign-in's access token.
  const credential = await page.evaluate<string>("JSON.parse(sessionStorage.getItem('connector-console:credential')).value");
  const created = await stack.api('POST', '/api/v1/connectors', { url: world.mcp.url }, { authorization: `Bearer ${credential}` });
  t.is(created.status, 201, created.text);
  const exchanged = world.idp.exchanges();

  await page.goto(`${base}/#/connectors/${created.body.id}`);
  await page.getByRole('button', { name: 'Connect with my sign-in' }).click();
  await page.locator('.status-line .state-connected').waitFor();
  t.is(await page.getAttribute('#auth-kind', 'data-kind'), 'enterprise_managed');
  t.true(world.idp.exchanges() > exchanged, "erin's ID token went through the enterprise identity provider");
  t.deepEqual(await localStorageKeys(page), []);
  t.deepEqual(csp, []);
});
