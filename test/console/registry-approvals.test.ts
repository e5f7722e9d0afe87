// The console's registry approvals in headless Chromium, against the embedded stack syncing from a
// local MCP registry (loopback, a real server.json with an OCI stdio package): an admin sees the
// pending stdio preset, approves its version with the button (the keyboard alone), and sees it
// approved, as the REST API then says too; a non-admin's session has no link to the view, and
// typing its address shows the connector list instead. No CSP violation, nothing in localStorage.
import test from 'ava';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { sha256Hex } from '../../callers/api-keys';
import { freePortBelowEphemeral } from '../../service/free-port';
import { realServers, startRegistryServer, type RegistryServer } from '../fixtures/registry/registry-server';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { launchChromium, localStorageKeys, screenshot, watchCsp, signInWithKey } from './browser';

const KEYS = { ops: 'ops-approvals-key-3c2d1e0f9a', ann: 'ann-approvals-key-8b7a6f5e4d' };
const STDIO = 'io.github.username/kubernetes-manager-mcp';
const REMOTE = 'com.example/acme-analytics';

let stack: TestStack;
let registry: RegistryServer;
let browser: Browser;
let base: string;
let csp: string[];
let context: BrowserContext;

test.before(async () => {
  const real = realServers();
  registry = await startRegistryServer({ pageSize: 2 });
  registry.publish(real['kubernetes-manager-mcp']!);
  // A remote preset: listed by the presets API, never in the approvals view (only stdio needs one).
  registry.publish({ ...real['acme-analytics']!, name: REMOTE });
  const port = await freePortBelowEphemeral();
  base = `http://127.0.0.1:${port}`;
  [stack, browser] = await Promise.all([
    startTestStack({
      PORT: String(port), BASE_URL: base,
      CONNECTOR__API_KEYS: JSON.stringify([
        { subject: 'ops', sha256: sha256Hex(KEYS.ops), admin: true },
        { subject: 'ann', sha256: sha256Hex(KEYS.ann) },
      ]),
      // Authentication on blocks private networks; the registry here is on loopback.
      CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8',
      CONNECTOR__REGISTRY_URL: registry.url,
      // The image is named by tag alone: the operator vouches for immutable tags (else a digest is required).
      CONNECTOR__REGISTRY_SERVERS: JSON.stringify([{ name: STDIO, overlay: { immutable_image_tags: true } }, { name: REMOTE }]),
    }),
    launchChromium(),
  ]);
  context = await browser.newContext();
  csp = watchCsp(context);
  // The schedule's first run fills the list; the view is only worth opening once it has.
  await eventually(async () => {
    const items = (await stack.api('GET', '/api/v1/connectors/presets', undefined, { authorization: `Bearer ${KEYS.ops}` })).body.items as any[];
    return items.some((p) => p.name === STDIO) && items.some((p) => p.name === REMOTE) ? items : undefined;
  }, 60_000, 'registry presets synced');
});

test.after.always(async () => {
  await browser?.close();
  await stack?.stop();
  await registry?.close();
});

const presetOf = async (name: string) => ((await stack.api('GET', '/api/v1/connectors/presets', undefined, { authorization: `Bearer ${KEYS.ann}` })).body.items as any[]).find((p) => p.name === name);

test.serial('a non-admin session has no approvals view: no link, and its address shows the connector list', async (t) => {
  const page = await context.newPage();
  await signInWithKey(page, base, KEYS.ann);
  t.is(await page.getByRole('link', { name: 'Approvals' }).count(), 0);
  await page.goto(`${base}/#/approvals`);
  await page.getByRole('heading', { name: 'Connectors' }).waitFor();
  t.is(await page.getByRole('heading', { name: 'Registry approvals' }).count(), 0);
  t.is(await page.getByRole('button', { name: /^Approve/ }).count(), 0);
  t.false((await page.content()).includes(STDIO), 'the pending preset is not shown');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.close();
});

test.serial('an admin sees the pending registry stdio preset, approves its version from the keyboard, and sees it approved', async (t) => {
  const page = await context.newPage();
  await signInWithKey(page, base, KEYS.ops);
  await page.getByRole('link', { name: 'Approvals' }).click();
  await page.getByRole('heading', { name: 'Registry approvals' }).waitFor();
  const pending = page.getByRole('table', { name: 'Registry stdio presets waiting for approval' });
  const row = pending.locator(`tr[data-preset-name="${STDIO}"]`);
  await row.waitFor();
  t.regex(await row.textContent() ?? '', /1\.0\.0.*docker\.io\/yourusername\/kubernetes-manager-mcp:1\.0\.0/);
  t.is(await page.locator(`tr[data-preset-name="${REMOTE}"]`).count(), 0, 'a remote preset needs no approval');
  t.like(await presetOf(STDIO), { approved: false });
  await screenshot(page, 'registry-approvals-pending');

  const approve = page.getByRole('button', { name: `Approve ${STDIO} 1.0.0` });
  await approve.focus();
  await page.keyboard.press('Enter');
  await page.getByRole('status').filter({ hasText: `Approved ${STDIO} 1.0.0.` }).waitFor();
  const approvedRow = page.getByRole('table', { name: 'Approved registry stdio presets' }).locator(`tr[data-preset-name="${STDIO}"]`);
  await approvedRow.waitFor();
  t.regex(await approvedRow.textContent() ?? '', /approved/);
  t.is(await pending.count(), 0, 'nothing is left waiting');
  t.regex(await page.textContent('main') ?? '', /No registry preset is waiting for approval/);
  t.like(await presetOf(STDIO), { version: '1.0.0', approved: true }, 'the API says so too');
  await screenshot(page, 'registry-approvals-done');

  t.deepEqual(await localStorageKeys(page), []);
  t.deepEqual(csp, [], 'no CSP violation');
  await page.close();
});
