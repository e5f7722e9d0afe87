// Issue 38's newcomer path in Chromium, twice: callers authenticated with API keys (BASE_URL at
// localhost: opened at 127.0.0.1 the console says where it works and links there), and the open
// loopback default opened at 127.0.0.1 although BASE_URL says localhost (one origin). The walk
// itself is newcomer-walk.ts; screenshots go to test-output/console/newcomer-*.png.
import test from 'ava';
import type { Browser } from 'playwright-core';
import { sha256Hex } from '../../callers/api-keys';
import { freePortBelowEphemeral } from '../../service/free-port';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';
import { startTestStack, type TestStack } from '../helpers/test-stack';
import { launchChromium, screenshot, watchCsp } from './browser';
import { walkNewcomerPath, type Upstream } from './newcomer-walk';

const KEY = 'newcomer-console-key-4b5c6d7e8f';
const upstreams: TokenMcpServer[] = [];
let presets: [Upstream, Upstream];
let browser: Browser;
const stacks: TestStack[] = [];

async function stackAt(port: number, env: Record<string, string>): Promise<TestStack> {
  const stack = await startTestStack({
    PORT: String(port), BASE_URL: `http://localhost:${port}`,
    CONNECTOR__PRESETS: JSON.stringify([
      ...presets.map((p) => ({ url: p.url, metadata: { name: p.name, description: 'an MCP server that wants a token' } })),
      { url: 'mcp+stdio://everything', metadata: { name: 'Everything (stdio)' }, stdio: { image: 'mcp/everything', command: ['node', 'index.js'] } },
    ]),
    ...env,
  });
  stacks.push(stack);
  return stack;
}

test.before(async () => {
  for (const token of ['newcomer-echo-token-1a2b', 'newcomer-notes-token-3c4d']) upstreams.push(await startTokenMcpServer({ token }));
  presets = [
    { name: 'Echo tools', url: upstreams[0]!.url, token: 'newcomer-echo-token-1a2b' },
    { name: 'Notes tools', url: upstreams[1]!.url, token: 'newcomer-notes-token-3c4d' },
  ];
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  for (const stack of stacks) await stack.stop();
  for (const upstream of upstreams) await upstream.close();
});

test.serial('callers authenticated: at 127.0.0.1 the console says where it works and links there; at localhost the newcomer walks the whole path', async (t) => {
  t.timeout(8 * 60_000);
  const port = await freePortBelowEphemeral();
  await stackAt(port, {
    CONNECTOR__API_KEYS: JSON.stringify([{ subject: 'newcomer', sha256: sha256Hex(KEY) }]),
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
  });
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const csp = watchCsp(context);
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.getByRole('heading', { name: 'Open the console at its own address' }).waitFor();
  await screenshot(page, 'newcomer-keys-0-wrong-address');
  await Promise.all([page.waitForURL(`http://localhost:${port}/`), page.locator('#console-address').click()]);
  await page.getByLabel('API key').waitFor();
  await page.close();
  await walkNewcomerPath(t, context, { base: `http://localhost:${port}`, key: KEY, upstreams: presets, shots: 'newcomer-keys' });
  t.deepEqual(csp, []);
});

test.serial('open loopback mode: opened at 127.0.0.1 while BASE_URL says localhost, the newcomer walks the whole path', async (t) => {
  t.timeout(8 * 60_000);
  const port = await freePortBelowEphemeral();
  await stackAt(port, {});
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const csp = watchCsp(context);
  await walkNewcomerPath(t, context, { base: `http://127.0.0.1:${port}`, upstreams: presets, shots: 'newcomer-open' });
  t.deepEqual(csp, []);
});
