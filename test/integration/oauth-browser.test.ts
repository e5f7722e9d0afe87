// The consent driven by a real browser: headless Chromium (Debian's, through playwright-core)
// opens the authorization URL the connect answered, signs in on oidc-provider's development login
// page, approves the consent, and follows the authorization server's redirect to the service's
// callback by itself. The service is reachable at its BASE_URL (http://127.0.0.1:<port>), so
// nothing is delivered by hand: what the user sees is the service's own page.
import test from 'ava';
import { chromium, type Browser } from 'playwright-core';
import { createLogger } from '../../platform/logger';
import { locateChromium } from '../../stack/toolchain/chromium';
import { startOidcServer, startProtectedMcpServer, type OidcServer, type ProtectedMcpServer } from '../fixtures/oauth';
import { CALLBACK_PATH, startFlow, whoami } from '../helpers/oauth-service';
import { startTestStack, type TestStack } from '../helpers/test-stack';

const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

let stack: TestStack;
let as: OidcServer;
let mcp: ProtectedMcpServer;
let browser: Browser;

test.before(async () => {
  // Found or fetched by `npm test`'s toolchain step; missing here means that step was skipped.
  const found = await locateChromium({ log: createLogger('test-browser', 'warn'), install: false });
  as = await startOidcServer({ accessTokenTtl: 600 });
  mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri, scopesSupported: ['mcp:read'] });
  [stack, browser] = await Promise.all([
    startTestStack(),
    chromium.launch({ executablePath: found.path, env: { ...process.env, ...found.env }, args: CHROMIUM_ARGS }),
  ]);
});

test.after.always(async () => {
  await browser?.close();
  await stack?.stop();
  await mcp?.close();
  await as?.close();
});

test('a user in Chromium signs in, approves, lands on the success page; the connector is connected and usable', async (t) => {
  const { id, res, connectMs } = await startFlow(stack.api, { url: mcp.url });
  t.is(res.status, 200, res.text);
  t.is(res.body.state, 'auth_required');
  const authorizationUrl = res.body.auth_request.authorization_endpoint as string;
  t.true(authorizationUrl.startsWith(`${stack.baseUrl}/api/v1/connectors/oauth/authorize?`), "the service's own consent page first");

  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  // Every page the browser loads, to show the path it took.
  const visited: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) visited.push(new URL(frame.url()).origin + new URL(frame.url()).pathname);
  });

  await page.goto(authorizationUrl);
  // The service's page names the MCP server and the owner; the user chooses to continue.
  t.true((await page.textContent('body') ?? '').includes(mcp.url), 'the consent page names the MCP server');
  await Promise.all([page.waitForURL((url) => url.href.startsWith(as.issuer)), page.click('#continue')]);
  // oidc-provider's development login: any login name and password.
  await page.fill('input[name="login"]', 'browser-user');
  await page.fill('input[name="password"]', 'any password');
  await page.click('button[type="submit"]');
  // The consent page: the client asks for mcp:read on the MCP server.
  await page.waitForSelector('input[name="prompt"][value="consent"]', { state: 'attached' });
  t.true((await page.textContent('body') ?? '').includes(mcp.url), 'the consent names the resource');

  const callbackUrl = `${stack.baseUrl}${CALLBACK_PATH}`;
  const approved = Date.now();
  await Promise.all([
    page.waitForURL((url) => url.href.startsWith(callbackUrl), { waitUntil: 'load' }),
    page.click('button[type="submit"]'),
  ]);
  const consentToPageMs = Date.now() - approved;

  t.is(await page.title(), 'Connected');
  t.regex(await page.textContent('body') ?? '', /The connector is connected/);
  t.is(await page.textContent('code'), id);
  const landed = new URL(page.url());
  t.is(landed.origin + landed.pathname, callbackUrl, 'the browser itself followed the redirect to the service');
  t.is(landed.searchParams.get('iss'), as.issuer);
  t.true(visited.some((url) => url.startsWith(`${as.issuer}/interaction/`)), 'went through the login and consent pages');
  t.is(visited[0], `${stack.baseUrl}/api/v1/connectors/oauth/authorize`, "started on the service's consent page, which set the cookie");

  const record = (await stack.api('GET', `/api/v1/connectors/${id}`)).body;
  t.is(record.state, 'connected');
  const claims = await whoami(record.mcp_url);
  t.is(claims.sub, 'browser-user');
  t.is(claims.scope, 'mcp:read');
  t.log(`connect → auth_required ${connectMs} ms; consent approved → success page shown ${consentToPageMs} ms (includes the authorization server's redirects)`);
  t.log(visited.join('\n'));
});
