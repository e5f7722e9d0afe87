// A call held for approval, decided in the console (headless Chromium against the embedded stack):
// the agent's tools/call becomes a task whose URL-mode elicitation points at the approval page;
// the approver opens that address, signs in with an API key, sees the tool, its arguments and who
// asks, and approves — the agent's task then completes; denied, it fails; left undecided, the page
// says it expired and offers no decision. The connector's owner reads the task's changes among its
// MCP calls. No CSP violation.
import test from 'ava';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { sha256Hex } from '../../callers/api-keys';
import { freePortBelowEphemeral } from '../../service/free-port';
import { startTasksMcpServer, type TasksMcpServer } from '../fixtures/tasks-mcp-server';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { mcpRpc } from '../helpers/tasks-rpc';
import { launchChromium, screenshot, watchCsp } from './browser';

const KEYS = { agent: 'agent-approval-key-6a5b4c3d2e', ann: 'ann-approval-key-1f2e3d4c5b' };

let stack: TestStack;
let upstream: TasksMcpServer;
let browser: Browser;
let context: BrowserContext;
let csp: string[];
let base: string;
let mcpUrl: string;
let connectorId: string;

test.before(async () => {
  const port = await freePortBelowEphemeral();
  base = `http://127.0.0.1:${port}`;
  upstream = await startTasksMcpServer({ tasks: false });
  [stack, browser] = await Promise.all([
    startTestStack({
      PORT: String(port), BASE_URL: base,
      CONNECTOR__API_KEYS: JSON.stringify([
        { subject: 'agent', sha256: sha256Hex(KEYS.agent) },
        { subject: 'ann', sha256: sha256Hex(KEYS.ann) },
      ]),
      CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8',
      CONNECTOR__APPROVAL_TOOLS: JSON.stringify([
        { tools: 'slow_compute', approvers: ['key:ann'] },
        { tools: 'greet', approvers: ['key:ann'], timeout_seconds: 2 },
      ]),
    }),
    launchChromium(),
  ]);
  const auth = { authorization: `Bearer ${KEYS.agent}` };
  const created = await stack.api('POST', '/api/v1/connectors', { url: upstream.url, match_preset: false }, auth);
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  mcpUrl = created.body.mcp_url;
  connectorId = created.body.id;
  const connected = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: 'approval-console-token' }, auth);
  if (connected.status !== 200) throw new Error(`connect: ${connected.status} ${connected.text}`);
  context = await browser.newContext();
  csp = watchCsp(context);
});

test.after.always(async () => {
  await browser?.close();
  await stack?.stop();
  await upstream?.close();
});

const agent = (method: string, params: Record<string, unknown>, name: string) => mcpRpc(mcpUrl, method, params, name, { headers: { authorization: `Bearer ${KEYS.agent}` } });

/** The agent's call, held: its task id and the page its elicitation points at. */
async function heldCall(tool: string, args: Record<string, unknown>): Promise<{ taskId: string; url: string }> {
  const created = await agent('tools/call', { name: tool, arguments: args }, tool);
  const taskId = String(created.body.result?.taskId);
  const task = (await agent('tasks/get', { taskId }, taskId)).body.result;
  return { taskId, url: String(task?.inputRequests?.approval?.params?.url) };
}

async function ended(taskId: string): Promise<Record<string, any>> {
  return eventually(async () => {
    const task = (await agent('tasks/get', { taskId }, taskId)).body.result;
    return task && ['completed', 'failed'].includes(task.status) ? task : undefined;
  }, 30_000, 'the task to end');
}

/** The approver follows the link: the console asks them to sign in, then shows the call. */
async function openAsApprover(url: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  await page.getByLabel('API key').fill(KEYS.ann);
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  await page.getByRole('heading', { name: 'Approve a tool call' }).waitFor();
  await page.locator('#approval-tool').waitFor();
  return page;
}

test.serial('the approver signs in at the link, sees the call and approves it; the agent’s task completes', async (t) => {
  const started = Date.now();
  const timeline: string[] = [];
  const mark = (what: string) => timeline.push(`+${Date.now() - started} ms ${what}`);
  const { taskId, url } = await heldCall('slow_compute', { seconds: 1, label: 'approved-in-console' });
  mark('the agent has its task (input_required) and the approval URL');
  t.true(url.startsWith(`${base}/#/connectors/`));
  const page = await openAsApprover(url);
  mark('the approver signed in at the URL and sees the call');
  t.is(await page.locator('#approval-tool').textContent(), 'slow_compute');
  t.is(await page.locator('#approval-requester').textContent(), 'key:agent');
  t.deepEqual(JSON.parse((await page.locator('#approval-arguments').textContent()) ?? 'null'), { seconds: 1, label: 'approved-in-console' });
  t.is(await page.locator('#approval-state').textContent(), 'waiting for a decision');
  await screenshot(page, 'tool-approval-pending');
  t.is(upstream.calls.filter((c) => c.args.label === 'approved-in-console').length, 0, 'nothing reached the server before the approval');
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.locator('#approval-decider').waitFor();
  mark('approved: the page says so');
  t.is(await page.locator('#approval-state').textContent(), 'approved');
  t.regex((await page.locator('#approval-decider').textContent()) ?? '', /^key:ann /);
  t.is(await page.getByRole('button', { name: 'Approve' }).count(), 0, 'no second decision');
  const done = await ended(taskId);
  mark('the agent\'s tasks/get says completed');
  t.is(done.status, 'completed');
  t.deepEqual(done.result?.content, [{ type: 'text', text: 'computed approved-in-console after 1s' }]);
  t.log(timeline.join('\n'));
  await page.close();
});

test.serial('the connector’s owner reads the approved task’s changes among its MCP calls: held, approved by whom, completed', async (t) => {
  const owner = await browser.newContext();
  const seen = watchCsp(owner);
  const page = await owner.newPage();
  await page.goto(`${base}/#/connectors/${connectorId}/calls`);
  await page.getByLabel('API key').fill(KEYS.agent);
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  const rows = page.locator('table.calls tbody tr.task');
  await rows.filter({ hasText: 'completed' }).first().waitFor({ timeout: 30_000 });
  const approved = rows.filter({ hasText: 'approved, by key:ann' });
  t.is(await approved.count(), 1);
  t.regex((await approved.textContent()) ?? '', /slow_compute.*working \(approved, by key:ann\)/);
  t.is(await rows.filter({ hasText: 'input required (held for approval)' }).count(), 1);
  const taskId = /task ([0-9a-f-]{36})/.exec((await approved.textContent()) ?? '')?.[1];
  t.is(await page.locator('table.calls tbody tr:not(.task)', { hasText: `tools/call → task ${taskId}` }).count(), 1, 'the call that made the task names it');
  t.false(((await page.locator('table.calls').textContent()) ?? '').includes('approved-in-console'), 'no argument shown');
  await screenshot(page, 'mcp-calls-task');
  t.deepEqual(seen, []);
  await owner.close();
});

test.serial('denied in the console, the agent’s task fails and the call is never made', async (t) => {
  const { taskId, url } = await heldCall('slow_compute', { seconds: 0, label: 'denied-in-console' });
  const page = await openAsApprover(url);
  await page.getByRole('button', { name: 'Deny' }).click();
  await page.locator('#approval-decider').waitFor();
  t.is(await page.locator('#approval-state').textContent(), 'denied');
  const done = await ended(taskId);
  t.is(done.status, 'failed');
  t.regex(String(done.error?.message), /denied by key:ann/);
  t.is(upstream.calls.filter((c) => c.args.label === 'denied-in-console').length, 0);
  await page.close();
});

test.serial('left undecided, the call expires: the agent’s task fails and the page offers no decision', async (t) => {
  const { taskId, url } = await heldCall('greet', { name: 'too-late' });
  const done = await ended(taskId);
  t.is(done.status, 'failed');
  t.regex(String(done.error?.message), /expired/);
  const page = await openAsApprover(url);
  t.is(await page.locator('#approval-state').textContent(), 'expired: nobody decided in time');
  t.is(await page.getByRole('button', { name: 'Approve' }).count(), 0);
  t.is(upstream.calls.filter((c) => c.tool === 'greet').length, 0);
  t.deepEqual(csp, []);
  await page.close();
});
