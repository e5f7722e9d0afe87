// The console's connector and toolset pages list the tasks the service runs for their callers
// (headless Chromium against the embedded stack, callers unauthenticated): the tool, the status
// as words, and never the task's arguments or result.
import test from 'ava';
import type { Browser } from 'playwright-core';
import { startTasksMcpServer, type TasksMcpServer } from '../fixtures/tasks-mcp-server';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { launchChromium, watchCsp } from './browser';
import { mcpRpc } from '../helpers/tasks-rpc';

const MARKER = 'label-never-on-the-page-41c7';
// The service answers a call that ends within its 300 ms window as a plain call, with no task to
// list. A 1 s call was once answered plainly on a loaded CI machine (the window's timer was
// handled after the call had ended), so the call outlasts the window by far.
const LONGER_THAN_THE_WINDOW = 4;

let stack: TestStack;
let upstream: TasksMcpServer;
let browser: Browser;

test.before(async () => {
  upstream = await startTasksMcpServer({ tasks: false });
  stack = await startTestStack({ CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8' });
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await stack?.stop();
  await upstream?.close();
});

test("the connector's page lists its tasks: tool and status, never their contents", async (t) => {
  const created = await stack.api('POST', '/api/v1/connectors', { url: upstream.url, match_preset: false });
  t.is((await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: 'console-token' })).body.state, 'connected');
  const answer = await mcpRpc(created.body.mcp_url, 'tools/call', { name: 'slow_compute', arguments: { seconds: LONGER_THAN_THE_WINDOW, label: MARKER } }, 'slow_compute');
  t.is(answer.body.result?.resultType, 'task', JSON.stringify(answer.body));
  const taskId = String(answer.body.result?.taskId);
  await eventually(async () => {
    const page = await stack.api('GET', `/api/v1/connectors/${created.body.id}/tasks`);
    return page.body.items?.some((task: { task_id: string; status: string }) => task.task_id === taskId && task.status === 'completed') ? true : undefined;
  }, 30_000, 'the task to complete');

  const context = await browser.newContext();
  const csp = watchCsp(context);
  const page = await context.newPage();
  await page.goto(`${stack.baseUrl}/#/connectors/${created.body.id}`);
  const row = page.locator('table.tasks tbody tr').first();
  await row.waitFor();
  t.is(await row.locator('[data-label="Tool"]').textContent(), 'slow_compute');
  t.is(await row.locator('[data-label="Status"]').textContent(), 'completed');
  t.false((await page.content()).includes(MARKER), 'no argument or result on the page');
  t.deepEqual(csp, []);
  await context.close();
});

test("the toolset's page lists the tasks started through it", async (t) => {
  const created = await stack.api('POST', '/api/v1/connectors', { url: upstream.url, match_preset: false });
  t.is((await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: 'console-token' })).body.state, 'connected');
  const toolset = (await stack.api('POST', '/api/v1/toolsets', { name: 'console-tasks', members: [{ connector_id: created.body.id, prefix: 'ops' }] })).body;
  const answer = await mcpRpc(toolset.mcp_url, 'tools/call', { name: 'ops__slow_compute', arguments: { seconds: LONGER_THAN_THE_WINDOW, label: MARKER } }, 'ops__slow_compute', { toolset: true });
  t.is(answer.body.result?.resultType, 'task', JSON.stringify(answer.body));
  await eventually(async () => {
    const page = await stack.api('GET', `/api/v1/toolsets/${toolset.id}/tasks`);
    return page.body.items?.some((task: { status: string }) => task.status === 'completed') ? true : undefined;
  }, 30_000, 'the task to complete');

  const context = await browser.newContext();
  const csp = watchCsp(context);
  const page = await context.newPage();
  await page.goto(`${stack.baseUrl}/#/toolsets/${toolset.id}`);
  const row = page.locator('table.tasks tbody tr').first();
  await row.waitFor();
  t.is(await row.locator('[data-label="Tool"]').textContent(), 'slow_compute (through a toolset)');
  t.is(await row.locator('[data-label="Status"]').textContent(), 'completed');
  t.false((await page.content()).includes(MARKER), 'no argument or result on the page');
  t.deepEqual(csp, []);
  await context.close();
});
