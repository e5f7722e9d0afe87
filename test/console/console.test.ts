// The web console driven end to end in headless Chromium against the embedded stack, with caller
// authentication on (API keys and oidc-provider as the platform's identity provider): the
// signed-out page and the API reference; a sign-in with a key; a connector created from a preset,
// connected with a token, its audit trail and its MCP calls, how each connector authenticates; an OAuth connect through the
// service's consent page and oidc-provider in the same browser; another owner who sees none of it;
// an admin who sees every owner; a sign-in at the identity provider (authorization code + PKCE in
// the browser); delete and sign-out. No page may report a CSP violation, and nothing is ever kept
// in localStorage. Screenshots of the main views go to test-output/console/.
import test from 'ava';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { sha256Hex } from '../../callers/api-keys';
import { freePortBelowEphemeral } from '../../service/free-port';
import { startOidcServer, startProtectedMcpServer, type OidcServer, type ProtectedMcpServer } from '../fixtures/oauth';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { launchChromium, localStorageKeys, screenshot, sessionStorageLength, watchCsp, signInAtProvider, signInWithKey } from './browser';

const UPSTREAM_TOKEN = 'console-upstream-token-7d1e';
const KEYS = { ann: 'ann-console-key-5a4b3c2d1e', bob: 'bob-console-key-9e8d7c6b5a', ops: 'ops-console-key-0f1e2d3c4b' };
const CONSOLE_CLIENT = 'connector-console';
const MCP_INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

let stack: TestStack;
let as: OidcServer;
let oauthServer: ProtectedMcpServer;
let tokenServer: TokenMcpServer;
let browser: Browser;
let base: string;
let ann: { context: BrowserContext; page: Page; csp: string[] };
/** Ids of ann's connectors, shared by the tests in order. */
const made: { token?: string; oauth?: string } = {};

test.before(async () => {
  const port = await freePortBelowEphemeral();
  base = `http://127.0.0.1:${port}`;
  as = await startOidcServer({
    accessTokenTtl: 600,
    staticClients: [{ clientId: CONSOLE_CLIENT, authMethod: 'none', redirectUris: [`${base}/`] }],
  });
  oauthServer = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri, scopesSupported: ['mcp:read'] });
  tokenServer = await startTokenMcpServer({ token: UPSTREAM_TOKEN });
  [stack, browser] = await Promise.all([
    startTestStack({
      PORT: String(port), BASE_URL: base,
      CONNECTOR__API_KEYS: JSON.stringify([
        { subject: 'ann', sha256: sha256Hex(KEYS.ann) },
        { subject: 'bob', sha256: sha256Hex(KEYS.bob) },
        { subject: 'ops', sha256: sha256Hex(KEYS.ops), admin: true },
      ]),
      CONNECTOR__AUTH_ISSUER: as.issuer,
      CONNECTOR__CONSOLE_CLIENT_ID: CONSOLE_CLIENT,
      // Authentication on blocks private networks; the issuer and the MCP servers here are on loopback.
      CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
      CONNECTOR__PRESETS: JSON.stringify([
        { url: tokenServer.url, metadata: { name: 'Echo tools', description: 'An MCP server that wants a token' } },
      ]),
    }),
    launchChromium(),
  ]);
  const context = await browser.newContext();
  ann = { context, page: await context.newPage(), csp: watchCsp(context) };
});

test.after.always(async () => {
  await browser?.close();
  await stack?.stop();
  await tokenServer?.close();
  await oauthServer?.close();
  await as?.close();
});

const stateOf = (page: Page) => page.locator('.status-line .state');
const idFromUrl = (page: Page) => decodeURIComponent(/#\/connectors\/([^/]+)/.exec(page.url())![1]!);

test.serial('signed out, / says what the service is and links to the API reference and the health checks; the reference renders the OpenAPI document', async (t) => {
  const { page } = ann;
  const res = await page.goto(`${base}/`);
  t.is(res?.status(), 200);
  await page.getByRole('heading', { name: 'Connector registry' }).waitFor();
  t.regex(await page.textContent('main') ?? '', /MCP servers as connectors/);
  for (const href of ['/reference', '/api/v1/openapi.json', '/healthz', '/readyz']) t.is(await page.locator(`a[href="${href}"]`).count(), 1, href);
  t.true(await page.getByRole('button', { name: 'Sign in with the identity provider' }).isVisible());
  await screenshot(page, 'signed-out');

  await page.click('a[href="/reference"]');
  await page.getByText('Create a connector').first().waitFor();
  t.true(await page.locator('.opblock').count() >= 10, 'the operations of the OpenAPI document are listed');
  await screenshot(page, 'api-reference');
  t.deepEqual(ann.csp, [], 'no CSP violation on the console or the reference');
});

test.serial('ann signs in with a key, creates a connector from a preset, connects it with a token and sees it connected, with its audit trail', async (t) => {
  const { page } = ann;
  await signInWithKey(page, base, KEYS.ann);
  t.regex(await page.textContent('#signed-in-as') ?? '', /Signed in as ann$/);
  await page.getByRole('link', { name: 'New connector' }).click();
  await page.getByLabel('Preset', { exact: true }).selectOption(tokenServer.url);
  await page.getByRole('button', { name: 'Create' }).click();
  await page.waitForURL(/#\/connectors\/[0-9a-f-]{36}$/);
  made.token = idFromUrl(page);
  await page.getByRole('heading', { name: 'Echo tools' }).waitFor();
  t.is(await stateOf(page).textContent(), 'created');

  await page.getByLabel('Access token').fill(UPSTREAM_TOKEN);
  await page.getByRole('button', { name: 'Connect with token' }).click();
  await page.locator('.status-line .state-connected').waitFor();
  t.is(await page.getByLabel('Access token').inputValue(), '', 'the token field is emptied once sent');
  t.false((await page.content()).includes(UPSTREAM_TOKEN), 'the token is never shown');
  const trail = page.locator('table.events tbody tr');
  await trail.nth(2).waitFor();
  t.regex(await trail.nth(0).textContent() ?? '', /key:ann.*created/);
  t.regex(await trail.nth(1).textContent() ?? '', /key:ann.*created → connecting.*connect requested/);
  t.regex(await trail.nth(2).textContent() ?? '', /key:ann.*connecting → connected.*with a given token/);
  t.is(await page.locator('#auth-kind').getAttribute('data-kind'), 'bearer');
  t.is(await page.locator('#auth-kind').textContent(), 'a given token', 'how it authenticates, in words');
  await screenshot(page, 'connector-connected');
  const record = await stack.api('GET', `/api/v1/connectors/${made.token}`, undefined, { authorization: `Bearer ${KEYS.ann}` });
  t.like(record.body, { state: 'connected', created_by: 'key:ann', preset: { url: tokenServer.url }, auth_kind: 'bearer' });
});

test.serial("the connector's MCP calls are listed and filtered", async (t) => {
  const { page } = ann;
  const call = await fetch(`${base}/api/v1/connectors/${made.token}/mcp`, {
    method: 'POST', body: JSON.stringify(MCP_INIT),
    headers: { authorization: `Bearer ${KEYS.ann}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
  });
  t.is(call.status, 200);
  await call.body?.cancel();
  await page.getByRole('link', { name: 'MCP calls' }).click();
  const rows = page.locator('table.calls tbody tr');
  // The audit is written in batches, polled every 5 s. The connector page's own tool list made
  // calls too (initialize, tools/list), with ann's credential like this one.
  await page.locator('table.calls tbody tr', { hasText: 'tools/list' }).first().waitFor({ timeout: 20_000 });
  t.true((await rows.allTextContents()).some((row) => /key:ann.*initialize.*200/.test(row)));
  await page.getByLabel('Method').fill('tools/call');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('No calls match.').waitFor();
  await page.getByLabel('Method').fill('initialize');
  await page.getByLabel('Errors only').check();
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('No calls match.').waitFor();
  await page.getByLabel('Errors only').uncheck();
  await page.getByRole('button', { name: 'Apply filters' }).click();
  // This test's initialize may reach the audit after the console's (batched writes, a page that polls).
  await rows.nth(1).waitFor({ timeout: 20_000 });
  const initializes = await rows.allTextContents();
  t.is(initializes.length, 2, "the console's and this test's");
  t.true(initializes.every((row) => row.includes('initialize')));
  await screenshot(page, 'mcp-calls');
});

test.serial('an OAuth connect: the authorization link opens the consent page, oidc-provider signs in and consents, and the console sees it connected', async (t) => {
  const { page, context } = ann;
  await page.goto(`${base}/#/new`);
  await page.getByLabel('a URL').check();
  await page.getByLabel('MCP server URL').fill(oauthServer.url);
  await page.getByLabel(/^Name/).fill('Docs (OAuth)');
  await page.getByRole('button', { name: 'Create' }).click();
  await page.waitForURL(/#\/connectors\/[0-9a-f-]{36}$/);
  made.oauth = idFromUrl(page);
  await page.getByRole('button', { name: 'Connect without a token (OAuth)' }).click();
  await page.locator('.status-line .state-auth_required').waitFor();
  await screenshot(page, 'connector-auth-required');

  const [tab] = await Promise.all([context.waitForEvent('page'), page.click('#authorize-link')]);
  await tab.waitForLoadState();
  t.true(tab.url().startsWith(`${base}/api/v1/connectors/oauth/authorize?`), "the service's own consent page first");
  t.regex(await tab.textContent('body') ?? '', /belongs to/);
  await Promise.all([tab.waitForURL((url) => url.href.startsWith(as.issuer)), tab.click('#continue')]);
  await tab.fill('input[name="login"]', 'ann-at-docs');
  await tab.fill('input[name="password"]', 'any password');
  await tab.click('button[type="submit"]');
  await tab.waitForSelector('input[name="prompt"][value="consent"]', { state: 'attached' });
  await Promise.all([tab.waitForURL((url) => url.href.startsWith(`${base}/api/v1/connectors/oauth/callback`)), tab.click('button[type="submit"]')]);
  t.is(await tab.title(), 'Connected');
  await tab.close();

  // The console tab learns of it by polling.
  await page.locator('.status-line .state-connected').waitFor({ timeout: 20_000 });
  // The audit trail is a poll of its own: it may show the last transition a moment after the state.
  await page.locator('table.events', { hasText: /auth_required[\s\S]*→ connected/ }).waitFor({ timeout: 20_000 }).catch(() => undefined);
  t.regex(await page.locator('table.events').textContent() ?? '', /auth_required.*connected/s);
  t.is(await page.locator('#auth-kind').textContent(), 'OAuth, authorized by a user');
  await page.goto(`${base}/#/`);
  await page.locator(`tr[data-connector-id="${made.oauth}"] .state-connected`).waitFor();
  await page.locator(`tr[data-connector-id="${made.token}"] .state-connected`).waitFor();
  await screenshot(page, 'connectors');
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
  t.teardown(() => phone.close());
  const small = await phone.newPage();
  await signInWithKey(small, base, KEYS.ann);
  await small.locator(`tr[data-connector-id="${made.oauth}"]`).waitFor();
  t.true(await small.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth + 1'), 'no sideways scrolling on a phone');
  await screenshot(small, 'connectors-phone');
});

test.serial("another owner's session sees none of it; an admin sees every owner's", async (t) => {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const csp = watchCsp(context);
  const page = await context.newPage();
  await signInWithKey(page, base, KEYS.bob);
  await page.getByText('No connectors yet.').waitFor();
  t.is(await page.locator('tr[data-connector-id]').count(), 0);
  await page.goto(`${base}/#/connectors/${made.token}`);
  await page.getByRole('heading', { name: 'Connector not found' }).waitFor();
  await page.goto(`${base}/#/connectors/${made.oauth}/calls`);
  await page.getByRole('alert').filter({ hasText: 'it was deleted, or it is not yours' }).waitFor();
  t.false((await page.content()).includes('Echo tools'));

  await page.getByRole('button', { name: 'Sign out' }).click();
  await signInWithKey(page, base, KEYS.ops);
  t.regex(await page.textContent('#signed-in-as') ?? '', /ops \(admin\)/);
  const row = page.locator(`tr[data-connector-id="${made.token}"]`);
  await row.waitFor();
  t.regex(await row.textContent() ?? '', /ann/, 'the owner column names ann');
  await page.getByLabel('Owner').fill('key:bob');
  await page.getByLabel('Owner').press('Enter');
  await page.getByText('No connectors yet.').waitFor();
  t.deepEqual(csp, []);
});

test.serial('a sign-in at the identity provider: authorization code + PKCE in the browser, then the API answers the access token', async (t) => {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const csp = watchCsp(context);
  const page = await context.newPage();
  await page.goto(`${base}/`);
  const [request] = await Promise.all([
    page.waitForRequest((r) => r.url().startsWith(as.issuer) && new URL(r.url()).searchParams.has('code_challenge')),
    page.getByRole('button', { name: 'Sign in with the identity provider' }).click(),
  ]);
  const authorize = new URL(request.url()).searchParams;
  t.like(Object.fromEntries(authorize), { response_type: 'code', client_id: CONSOLE_CLIENT, redirect_uri: `${base}/`, code_challenge_method: 'S256', resource: base, scope: 'openid' });
  t.regex(authorize.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
  await page.waitForURL((url) => url.href.startsWith(as.issuer) && url.pathname.includes('/interaction/'));
  await page.fill('input[name="login"]', 'carol');
  await page.fill('input[name="password"]', 'any password');
  await page.click('button[type="submit"]');
  await page.waitForSelector('input[name="prompt"][value="consent"]', { state: 'attached' });
  await page.click('button[type="submit"]');
  await page.locator('#signed-in-as').waitFor();
  t.regex(await page.textContent('#signed-in-as') ?? '', /Signed in as carol$/);
  t.false(page.url().includes('code='), 'the code is taken out of the address bar');
  await page.getByText('No connectors yet.').waitFor();
  t.deepEqual(await localStorageKeys(page), []);
  t.deepEqual(csp, []);
});

test.serial('a link followed signed out (an approval page, the toolsets) opens after the sign-in at the identity provider', async (t) => {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await page.goto(`${base}/#/toolsets`);
  // Carol consented in the test before: the provider may remember it and skip the question.
  await signInAtProvider(page, as.issuer, 'carol');
  await page.getByRole('heading', { name: 'Toolsets' }).waitFor();
  t.is(new URL(page.url()).hash, '#/toolsets');
  t.false(page.url().includes('code='));
});

test.serial('ann deletes a connector and signs out; nothing was ever kept in localStorage', async (t) => {
  const { page } = ann;
  await page.goto(`${base}/#/connectors/${made.token}`);
  await page.locator('.status-line .state-connected').waitFor();
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Delete' }).click();
  // A delete ends on the list, saying so, and the row goes once the teardown is done.
  await page.getByText('Deleting “Echo tools”').waitFor();
  await page.locator(`tr[data-connector-id="${made.token}"]`).waitFor({ state: 'detached', timeout: 30_000 });
  // The list's keys and the record are two writes of the teardown: the record may go a moment after the row.
  const gone = await eventually(async () => {
    const status = (await stack.api('GET', `/api/v1/connectors/${made.token}`, undefined, { authorization: `Bearer ${KEYS.ann}` })).status;
    return status === 200 ? undefined : status;
  }, 30_000, 'the deleted connector\'s record to go');
  t.is(gone, 404);
  await page.locator(`tr[data-connector-id="${made.oauth}"]`).waitFor();
  t.deepEqual(await localStorageKeys(page), []);
  t.true(await sessionStorageLength(page) > 0, 'the key is in this tab\'s session storage');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('API key').waitFor();
  t.is(await sessionStorageLength(page), 0, 'signing out forgets the key');
  await page.reload();
  await page.getByLabel('API key').waitFor();
  t.deepEqual(ann.csp, [], 'no CSP violation anywhere');
});
