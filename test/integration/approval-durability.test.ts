// The wait for an approval is durable: the compiled embedded stack (what `npm start` runs) as a
// process tree, a call held for approval, a SIGKILL of the whole tree while it waits (no handler
// runs), a start on the same DATA_DIR. The task is still waiting, with its approval page; the
// approver approves it on the new process, the call is made then, once, and the agent's task
// completes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { freePortBelowEphemeral } from '../../service/free-port';
import { startTasksMcpServer } from '../fixtures/tasks-mcp-server';
import { keyCallers } from '../helpers/list-views';
import { startStackProcess } from '../helpers/stack-process';
import { mcpRpc } from '../helpers/tasks-rpc';
import { eventually } from '../helpers/test-stack';

test('a call waiting for approval survives a SIGKILL of the whole stack, and runs once approved after it', async (t) => {
  t.timeout(10 * 60_000);
  const upstream = await startTasksMcpServer({ tasks: false });
  t.teardown(() => upstream.close());
  const callers = keyCallers(['agent', 'ann']);
  const [agent, ann] = callers.headers as [Record<string, string>, Record<string, string>];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-approval-crash-'));
  const logFile = path.join(dataDir, 'logs', 'stack.log');
  const port = await freePortBelowEphemeral();
  const env = {
    DATA_DIR: dataDir, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'info', ...callers.env,
    CONNECTOR__APPROVAL_TOOLS: JSON.stringify([{ tools: 'slow_compute', approvers: ['key:ann'] }]),
  };
  const started = Date.now();
  const since = () => `+${((Date.now() - started) / 1000).toFixed(1)} s`;
  const timeline: string[] = [];
  const first = await startStackProcess({ env, logFile, entry: 'dist/embedded.mjs' });
  let firstKilled = false;
  t.teardown(async () => {
    if (!firstKilled) await first.stop();
  });
  timeline.push(`${since()} stack up`);
  const created = await first.api('POST', '/api/v1/connectors', { url: upstream.url, match_preset: false }, agent);
  const connected = await first.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: 'durable-approval-token' }, agent);
  t.is(connected.body.state, 'connected');
  const mcpUrl = String(created.body.mcp_url);
  const call = await mcpRpc(mcpUrl, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0, label: 'across-a-crash' } }, 'slow_compute', { headers: agent });
  const taskId = String(call.body.result?.taskId);
  t.is(call.body.result?.status, 'input_required');
  timeline.push(`${since()} call held: task ${taskId} in input_required`);

  await first.kill();
  firstKilled = true;
  timeline.push(`${since()} SIGKILL of the whole stack`);
  const second = await startStackProcess({ env, logFile, entry: 'dist/embedded.mjs' });
  t.teardown(() => second.stop());
  timeline.push(`${since()} stack up again on the same DATA_DIR`);

  const getTask = async () => (await mcpRpc(mcpUrl, 'tasks/get', { taskId }, taskId, { headers: agent })).body.result;
  const waiting = await getTask();
  t.is(waiting?.status, 'input_required');
  t.is(waiting?.inputRequests?.approval?.params?.mode, 'url');
  t.is(upstream.calls.length, 0, 'nothing reached the server');
  const path_ = `/api/v1/connectors/${created.body.id}/tasks/${taskId}/approval`;
  const approved = await second.api('POST', path_, { decision: 'approve' }, ann);
  t.is(approved.status, 200, approved.text);
  timeline.push(`${since()} approved by key:ann`);
  const done = await eventually(async () => {
    const task = await getTask();
    return task?.status === 'completed' ? task : undefined;
  }, 60_000, 'the approved task to complete');
  timeline.push(`${since()} task completed`);
  t.deepEqual(done.result?.content, [{ type: 'text', text: 'computed across-a-crash after 0s' }]);
  t.is(upstream.calls.filter((c) => c.args.label === 'across-a-crash').length, 1);
  t.log(timeline.join('\n'));
});
