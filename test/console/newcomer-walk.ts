// A newcomer's first ten minutes in the console, as steps a person takes in Chromium: sign in
// (where callers are authenticated), create a connector from a preset, try to connect it without
// a token and be told it needs one, connect with the token, copy the MCP client configuration,
// call a tool from the console, create a second connector and a toolset of both, call a tool
// through the toolset and see the call in its audit, delete the toolset and a connector. At every
// step, what the page says in an alert or a notice carries no HTTP status number, and no page
// names a service variable (the newcomer is not an admin).
import type { ExecutionContext } from 'ava';
import type { BrowserContext, Page } from 'playwright-core';
import { screenshot } from './browser';

export interface Upstream { name: string; url: string; token: string }

export interface WalkOptions {
  /** Where the person opens the console. */
  base: string;
  /** The API key to sign in with; absent: callers are not authenticated. */
  key?: string;
  upstreams: [Upstream, Upstream];
  /** Screenshot names are prefixed with it. */
  shots: string;
}

const STATUS_NUMBER = /\b[1-5][0-9]{2}\b/;

/** Everything the page shows in alerts and notices: no status numbers there, ever. */
async function sayings(page: Page): Promise<string> {
  return (await page.locator('[role="alert"], .notice, [role="status"]').allTextContents()).join(' | ');
}

async function checkWords(t: ExecutionContext, page: Page, where: string): Promise<void> {
  const said = await sayings(page);
  t.notRegex(said, STATUS_NUMBER, `${where}: no status number in "${said}"`);
  const body = await page.textContent('body') ?? '';
  t.false(body.includes('CONNECTOR__'), `${where}: no variable name`);
  t.notRegex(body, /HTTP [1-5][0-9]{2}/, `${where}: no HTTP status anywhere on the page`);
}

const stateOf = (page: Page) => page.locator('.status-line .state');

async function createFromPreset(page: Page, base: string, upstream: Upstream): Promise<string> {
  await page.goto(`${base}/#/new`);
  await page.getByLabel('Preset', { exact: true }).selectOption(upstream.url);
  await page.getByRole('button', { name: 'Create' }).click();
  await page.waitForURL(/#\/connectors\/[0-9a-f-]{36}$/);
  await page.getByRole('heading', { name: upstream.name }).waitFor();
  return decodeURIComponent(/#\/connectors\/([^/]+)/.exec(page.url())![1]!);
}

async function connectWithToken(page: Page, token: string): Promise<void> {
  await page.getByLabel(/^Access token/).fill(token);
  await page.getByRole('button', { name: 'Connect with token' }).click();
  await page.locator('.status-line .state-connected').waitFor();
}

async function callTool(page: Page, tool: string, text: string): Promise<string> {
  await page.getByLabel('Tool', { exact: true }).selectOption(tool);
  await page.getByLabel('text').fill(text);
  await page.getByRole('button', { name: 'Call the tool' }).click();
  const answer = page.getByRole('status', { name: "The tool's answer" });
  await answer.waitFor();
  return await answer.textContent() ?? '';
}

export async function walkNewcomerPath(t: ExecutionContext, context: BrowserContext, o: WalkOptions): Promise<void> {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: o.base });
  const page = await context.newPage();
  const refused: string[] = [];
  page.on('response', (res) => { if (res.status() === 401) refused.push(res.url()); });
  const [first, second] = o.upstreams;

  await page.goto(`${o.base}/`);
  if (o.key) {
    await page.getByLabel('API key').fill(o.key);
    await page.getByRole('button', { name: 'Sign in with the key' }).click();
  }
  await page.locator('#signed-in-as').waitFor();
  t.deepEqual(refused, [], 'no request is refused on the way in (no probe of /api/v1/caller without a credential)');
  await screenshot(page, `${o.shots}-1-signed-in`);

  await page.goto(`${o.base}/#/new`);
  const options = await page.getByLabel('Preset', { exact: true }).locator('option').allTextContents();
  t.false(options.some((label) => /\(stdio\).*\(stdio\)/.test(label)), `a preset's kind is said once: ${options.join(' / ')}`);
  const id = await createFromPreset(page, o.base, first);
  t.is(await stateOf(page).textContent(), 'created');
  await page.getByRole('button', { name: 'Connect without a token (OAuth)' }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'needs a token' });
  await alert.waitFor();
  t.regex(await alert.textContent() ?? '', /Paste a token it accepts/);
  t.is(await page.evaluate<string>('document.activeElement?.id ?? ""'), 'access-token', 'the token field takes the focus');
  await checkWords(t, page, 'connect without a token');
  await screenshot(page, `${o.shots}-2-needs-a-token`);
  await page.locator('.status-line .state-disconnected').waitFor();
  t.false(await page.getByRole('button', { name: 'Disconnect' }).isEnabled(), 'no Disconnect on a disconnected connector');
  await page.getByRole('link', { name: 'Connectors', exact: true }).first().click();
  await page.locator(`tr[data-connector-id="${id}"]`).waitFor();
  t.is(await page.getByRole('alert').count(), 0, 'the error stays behind when the person moves on');
  await page.goto(`${o.base}/#/connectors/${id}`);
  await page.getByRole('heading', { name: first.name }).waitFor();

  await connectWithToken(page, first.token);
  t.is(await page.getByRole('button', { name: 'Disconnect' }).isEnabled(), true);
  t.is(await page.getByRole('button', { name: 'Re-authorize' }).count(), 0, 'no Re-authorize on a token connector');
  const mcpUrl = (await page.getByLabel('MCP address', { exact: true }).textContent())!;
  t.regex(mcpUrl, new RegExp(`/api/v1/connectors/${id}/mcp$`));
  await page.getByRole('button', { name: 'Copy MCP client configuration' }).click();
  await page.getByRole('button', { name: 'Copy MCP client configuration' }).filter({ hasText: 'Copied' }).waitFor();
  const copied = JSON.parse(await page.evaluate<string>('navigator.clipboard.readText()')) as { mcpServers: Record<string, { url: string; headers?: Record<string, string> }> };
  const server = Object.values(copied.mcpServers)[0]!;
  t.is(server.url, mcpUrl, 'the copied configuration points at the MCP address');
  t.is(server.headers?.Authorization, o.key ? 'Bearer <your API key>' : undefined, 'with the header the service wants, never the key itself');
  await page.locator('ul.tools').getByText('echo').waitFor();
  t.regex(await callTool(page, 'echo', 'hello from the console'), /hello from the console/);
  await checkWords(t, page, 'connected');
  await screenshot(page, `${o.shots}-3-connected-tool-called`);

  const secondId = await createFromPreset(page, o.base, second);
  await connectWithToken(page, second.token);
  await page.getByRole('link', { name: 'Toolsets' }).click();
  await page.getByRole('link', { name: 'New toolset' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Both servers');
  await page.getByLabel(first.name, { exact: true }).check();
  await page.getByLabel(second.name, { exact: true }).check();
  await page.getByRole('button', { name: 'Create the toolset' }).click();
  await page.waitForURL(/#\/toolsets\/[0-9a-f-]{36}$/);
  await page.getByRole('heading', { name: 'Both servers' }).waitFor();
  const tools = page.locator('ul.tools li');
  await tools.nth(1).waitFor();
  const names = (await tools.allTextContents()).map((text) => text.split(' ')[0]).sort();
  t.is(names.length, 2);
  t.true(names.every((name) => /^[a-z0-9_-]+__echo$/.test(name!)), names.join(', '));
  t.regex(await callTool(page, names[1]!, 'through the toolset'), /through the toolset/);
  const audited = page.locator('table.calls tbody tr', { hasText: 'tools/call' });
  await audited.first().waitFor({ timeout: 30_000 }); // written in batches, read every 5 s
  await checkWords(t, page, 'toolset');
  await screenshot(page, `${o.shots}-4-toolset`);

  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Delete the toolset' }).click();
  await page.getByText('Deleted the toolset “Both servers”.').waitFor();
  await page.goto(`${o.base}/#/connectors/${secondId}`);
  await page.locator('.status-line .state-connected').waitFor();
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.waitForURL(/#\/$/);
  await page.getByText(`Deleting “${second.name}”`).waitFor();
  t.is(await page.getByRole('heading', { name: 'Connector not found' }).count(), 0, 'a delete ends on the list, not on "not found"');
  await page.locator(`tr[data-connector-id="${secondId}"]`).waitFor({ state: 'detached', timeout: 30_000 });
  await checkWords(t, page, 'after the deletes');
  await screenshot(page, `${o.shots}-5-deleted`);
  t.deepEqual(refused, [], 'no request was refused along the way');
  await page.close();
}
