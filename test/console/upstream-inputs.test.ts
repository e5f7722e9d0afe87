// The console's connect form with a preset that asks for a secret header and a URL variable
// (headless Chromium against the embedded stack, callers unauthenticated): one field each, the
// header's a password field; the connect sends both, the connector connects, the record lists the
// header by name and the variable with its value, and the page never shows the header's value.
import test from 'ava';
import type { Browser } from 'playwright-core';
import { startApiKeyMcpServer, type ApiKeyMcpServer } from '../fixtures/api-key-mcp-server';
import { startTestStack, type TestStack } from '../helpers/test-stack';
import { launchChromium, watchCsp } from './browser';

const SECRET = `console-api-key-${crypto.randomUUID()}`;

let stack: TestStack;
let upstream: ApiKeyMcpServer;
let browser: Browser;

test.before(async () => {
  upstream = await startApiKeyMcpServer({ apiKey: SECRET, tenant: 'acme' });
  stack = await startTestStack({
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8',
    CONNECTOR__PRESETS: JSON.stringify([{
      url: upstream.template, metadata: { name: 'Tenant tools' },
      headers: [{ name: 'X-API-Key', secret: true, required: true, description: 'Your API key' }],
      variables: { tenant: { description: 'Your tenant' } },
    }]),
  });
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await stack?.stop();
  await upstream?.close();
});

test('the connect form asks for the header and the variable, connects with them, and never shows the key', async (t) => {
  const created = await stack.api('POST', '/api/v1/connectors', { url: upstream.template });
  t.is(created.status, 201, created.text);
  const context = await browser.newContext();
  const csp = watchCsp(context);
  const page = await context.newPage();
  await page.goto(`${stack.baseUrl}/#/connectors/${created.body.id}`);
  const key = page.getByLabel('Header X-API-Key (required)');
  await key.waitFor();
  t.is(await key.getAttribute('type'), 'password');
  await key.fill(SECRET);
  await page.getByLabel('URL variable tenant (required)').fill('acme');
  await page.getByRole('button', { name: 'Connect without a token (OAuth)' }).click();
  await page.locator('.status-line .state-connected').waitFor();
  const record = await page.textContent('dl.record') ?? '';
  t.regex(record, /URL variables\s*tenant=acme/);
  t.regex(record, /Headers\s*X-API-Key/);
  t.true(upstream.seen.some((s) => s.path === '/acme/mcp' && s.apiKey === SECRET), 'the probe reached the bound URL with the key');
  t.false((await page.content()).includes(SECRET), 'the key is never shown');
  t.deepEqual(csp, []);
  await context.close();
});
