import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { Client, Connection } from '@temporalio/client';
import { createLogger } from '../../platform/logger';
import { startTemporalDevServer, type TemporalDevServer } from '../../stack/servers/temporal-dev-server';
import { isRunning, waitUntilGone } from './helpers/processes';

const log = createLogger('test-temporal', process.env.LOG_LEVEL ?? 'error');
let dataDir: string;

test.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'temporal-dev-server-'));
});

test.after.always(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function withClient<T>(server: TemporalDevServer, fn: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address: server.address });
  try {
    return await fn(new Client({ connection }));
  } finally {
    await connection.close();
  }
}

// No worker runs in these tests: a started workflow simply stays RUNNING, which is what we need
// to see that the server's database survived.
function startIdleWorkflow(client: Client, workflowId: string) {
  return client.workflow.start('idle', { taskQueue: 'temporal-dev-server-test', workflowId });
}

async function workflowStatus(server: TemporalDevServer, workflowId: string): Promise<string> {
  return withClient(server, async (client) => (await client.workflow.getHandle(workflowId).describe()).status.name);
}

test.serial('starts with its Web UI and the requested namespaces, and keeps workflows across a restart', async (t) => {
  const first = await startTemporalDevServer({ dataDir, port: 0, uiPort: 0, namespaces: ['connectors'], log });
  t.regex(first.address, /^127\.0\.0\.1:\d+$/);
  t.true(existsSync(join(dataDir, 'temporal.pid')));
  const ui = await fetch(first.uiUrl ?? 'missing');
  t.is(ui.status, 200);
  const described = await withClient(first, (c) => c.workflowService.describeNamespace({ namespace: 'connectors' }));
  t.is(described.namespaceInfo?.name, 'connectors');
  await withClient(first, (c) => startIdleWorkflow(c, 'survives-restart'));
  await first.stop();
  t.false(isRunning(first.pid));
  t.false(existsSync(join(dataDir, 'temporal.pid')), 'stop removes the pid file');

  const second = await startTemporalDevServer({ dataDir, headless: true, log });
  try {
    t.is(second.uiUrl, undefined);
    t.is(await workflowStatus(second, 'survives-restart'), 'RUNNING');
  } finally {
    await second.stop();
  }
});

test.serial('comes back on the same data dir after its process was SIGKILLed', async (t) => {
  const first = await startTemporalDevServer({ dataDir, headless: true, log });
  await withClient(first, (c) => startIdleWorkflow(c, 'survives-sigkill'));
  process.kill(first.pid, 'SIGKILL');
  t.true(await waitUntilGone(first.pid, 10_000));

  const second = await startTemporalDevServer({ dataDir, headless: true, log });
  try {
    t.is(await workflowStatus(second, 'survives-sigkill'), 'RUNNING');
  } finally {
    await second.stop();
  }
});

test.serial('stops a leftover server named by the pid file before starting', async (t) => {
  // The first server is never stopped by us, as if the process that started it had died.
  const leftover = await startTemporalDevServer({ dataDir, headless: true, log });
  const next = await startTemporalDevServer({ dataDir, headless: true, log });
  try {
    t.true(await waitUntilGone(leftover.pid, 15_000), 'the leftover is stopped');
    t.is(await workflowStatus(next, 'survives-restart'), 'RUNNING');
  } finally {
    await next.stop();
    await leftover.stop();
  }
});
