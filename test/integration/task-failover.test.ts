// A task the service owns survives the proxy that took it and the worker running its call, both
// SIGKILLed mid-call (the roles as separate processes from dist/, two proxies): its result is
// fetched through the other proxy. The call runs again on the other worker only for a tool that
// declares itself idempotent; a tool that does not ends `failed`, its outcome unknown, and its
// server saw one call — never a silent second one.
import test from 'ava';
import { eventually } from '../helpers/test-stack';
import { startSplitProcesses } from '../helpers/split-processes';
import type { StackProcess } from '../helpers/stack-process';
import { startTasksMcpServer } from '../fixtures/tasks-mcp-server';
import { mcpRpc } from '../helpers/tasks-rpc';

const CALL_SECONDS = 30;

async function rpc(proxy: StackProcess, connectorId: string, method: string, params: Record<string, unknown>, name: string) {
  return (await mcpRpc(`${proxy.baseUrl}/api/v1/connectors/${connectorId}/mcp`, method, params, name)).body.result;
}

test('tasks outlive a SIGKILLed proxy and worker: the idempotent call completes once elsewhere, the other fails as unknown', async (t) => {
  t.timeout(5 * 60_000);
  const upstream = await startTasksMcpServer({ tasks: false });
  t.teardown(() => upstream.close());
  const { start } = await startSplitProcesses(t);
  const workerA = await start('dist/worker.mjs', 'worker-a');
  const api = await start('dist/api.mjs', 'api');
  const proxyA = await start('dist/proxy.mjs', 'proxy-a');
  const proxyB = await start('dist/proxy.mjs', 'proxy-b');
  const { body: connector } = await api.api('POST', '/api/v1/connectors', { url: upstream.url, match_preset: false });
  t.is((await api.api('POST', `/api/v1/connectors/${connector.id}/connect`, { access_token: 'failover-token' })).body.state, 'connected');

  const started = performance.now();
  const at = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  const tasks: Record<string, string> = {};
  for (const tool of ['idempotent_wait', 'charge_card']) {
    const created = await rpc(proxyA, connector.id, 'tools/call', { name: tool, arguments: { seconds: CALL_SECONDS } }, tool);
    t.is(created?.resultType, 'task', `${tool} is answered with a task`);
    tasks[tool] = String(created?.taskId);
  }
  await eventually(async () => (upstream.callsOf('idempotent_wait').length && upstream.callsOf('charge_card').length ? true : undefined), 30_000, 'both calls to reach the server');
  t.log(`${at()}: both calls reached the server through proxy A and worker A`);
  const workerB = await start('dist/worker.mjs', 'worker-b');
  t.truthy(workerB);
  await Promise.all([proxyA.kill(), workerA.kill()]);
  t.log(`${at()}: proxy A and worker A SIGKILLed`);

  const settled = async (tool: string) => eventually(async () => {
    const task = await rpc(proxyB, connector.id, 'tasks/get', { taskId: tasks[tool] }, tasks[tool]!);
    return task && ['completed', 'failed', 'cancelled'].includes(task.status) ? task : undefined;
  }, 3 * 60_000, `${tool}'s task to end`);
  const [idempotent, charge] = await Promise.all([settled('idempotent_wait'), settled('charge_card')]);
  t.log(`${at()}: both tasks ended, read through proxy B: idempotent_wait ${idempotent.status}, charge_card ${charge.status}`);

  t.is(idempotent.status, 'completed');
  t.deepEqual(idempotent.result?.content, [{ type: 'text', text: 'idempotent_wait done (run 2)' }], 'the idempotent call ran again, to its end, once');
  t.is(upstream.callsOf('idempotent_wait').length, 2, 'the call cut by the kill, and one more');

  t.is(charge.status, 'failed');
  t.regex(String(charge.error?.message), /outcome of this call is unknown/);
  t.is(upstream.callsOf('charge_card').length, 1, 'the server that is not idempotent saw one call');
});
