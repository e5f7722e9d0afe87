// The connector page's approval rules (headless Chromium against the embedded stack, callers
// unauthenticated): a rule added and saved is on the connector (read back through the REST API);
// a malformed approver is refused and the page shows the service's own field error beside the
// form; removing the last rule saves null and the connector has none. The toolset page edits its own.
import test from 'ava';
import type { Browser } from 'playwright-core';
import { startTestStack, type TestStack } from '../helpers/test-stack';
import { launchChromium, watchCsp } from './browser';

let stack: TestStack;
let browser: Browser;

test.before(async () => {
  stack = await startTestStack({ CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8' });
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await stack?.stop();
});

test('the owner adds, is refused a bad approver, and removes an approval rule on the connector page', async (t) => {
  const created = await stack.api('POST', '/api/v1/connectors', { url: 'http://127.0.0.1:9/mcp', match_preset: false });
  t.is(created.status, 201, created.text);
  const path = `/api/v1/connectors/${created.body.id}`;
  const context = await browser.newContext();
  const csp = watchCsp(context);
  const page = await context.newPage();
  await page.goto(`${stack.baseUrl}/#/connectors/${created.body.id}`);
  const section = page.getByRole('region', { name: 'Approval rules' });
  // The PATCH's answer, awaited: the REST API is read only after the service has the change.
  const save = () => Promise.all([
    page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().endsWith(path)),
    section.getByRole('button', { name: 'Save approval rules' }).click(),
  ]);
  await section.getByText('No approval rules.').waitFor();

  await section.getByRole('button', { name: 'Add rule' }).click();
  await section.getByLabel('Tools (glob)').fill('delete_*');
  await section.getByLabel('Approvers (comma-separated)').fill('role:admin, key:ops');
  await section.getByLabel('Timeout (seconds, optional)').fill('120');
  await save();
  await section.getByText('Approval rules saved.').waitFor();
  t.deepEqual((await stack.api('GET', path)).body.approval_rules, [{ tools: 'delete_*', approvers: ['role:admin', 'key:ops'], timeout_seconds: 120 }]);
  t.is(await section.getByLabel('Tools (glob)').inputValue(), 'delete_*', 'the saved rule is shown');

  await section.getByLabel('Approvers (comma-separated)').fill('foo:bar');
  await section.getByRole('button', { name: 'Save approval rules' }).click();
  const alert = section.getByRole('alert');
  await alert.waitFor();
  const refused = await stack.api('PATCH', path, { approval_rules: [{ tools: 'delete_*', approvers: ['foo:bar'], timeout_seconds: 120 }] });
  t.is(refused.status, 422, refused.text);
  const messages: string[] = (refused.body.errors ?? []).map((e: { message: string }) => e.message);
  t.true(messages.length > 0, refused.text);
  const shown = await alert.textContent() ?? '';
  t.true(messages.some((m) => shown.includes(m)), `the service's field error is shown: ${shown}`);
  t.is((await stack.api('GET', path)).body.approval_rules.length, 1, 'the refused change left the saved rule');

  await section.getByRole('button', { name: 'Remove rule 1' }).click();
  await save();
  await section.getByText('Approval rules saved.').waitFor();
  const after = (await stack.api('GET', path)).body.approval_rules;
  t.deepEqual(after ?? [], [], 'the rules are gone');
  t.is(await section.getByLabel('Tools (glob)').count(), 0, 'no rule is shown');
  t.deepEqual(csp, []);
  await context.close();
});

test("the toolset page edits the toolset's own rules, over its prefixed tool names", async (t) => {
  const member = await stack.api('POST', '/api/v1/connectors', { url: 'http://127.0.0.1:9/mcp', match_preset: false });
  const created = await stack.api('POST', '/api/v1/toolsets', { name: 'console-rules', members: [{ connector_id: member.body.id, prefix: 'ops' }] });
  t.is(created.status, 201, created.text);
  const path = `/api/v1/toolsets/${created.body.id}`;
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${stack.baseUrl}/#/toolsets/${created.body.id}`);
  const section = page.getByRole('region', { name: 'Approval rules' });
  await section.getByText('No approval rules.').waitFor();
  await section.getByRole('button', { name: 'Add rule' }).click();
  await section.getByLabel('Tools (glob)').fill('ops__delete_*');
  await section.getByLabel('Approvers (comma-separated)').fill('key:ops');
  await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().endsWith(path)),
    section.getByRole('button', { name: 'Save approval rules' }).click(),
  ]);
  await section.getByText('Approval rules saved.').waitFor();
  t.deepEqual((await stack.api('GET', path)).body.approval_rules, [{ tools: 'ops__delete_*', approvers: ['key:ops'] }]);
  t.deepEqual((await stack.api('GET', `/api/v1/connectors/${member.body.id}`)).body.approval_rules ?? [], [], "the member connector's own rules are untouched");
  await context.close();
});
