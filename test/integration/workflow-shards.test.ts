// Connector workflows spread over several task queues (CONNECTOR__WORKFLOW_SHARDS), a worker for
// each in the process: every shard's connectors connect, relay MCP calls and continue as new on
// the queue they started on, and a worker that would leave a shard's workflows unserved refuses
// to start.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import type { Client as TemporalClient } from '@temporalio/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ConfigError } from '../../config/config';
import { createLogger } from '../../platform/logger';
import { connectorQueue, shardQueues } from '../../config/workflow-shards';
import { assertNoStrandedShards } from '../../service/worker-shards';
import { connectorWorkflowId } from '../../workflows/messages';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';

const TOKEN = 'shard-token-5e21';
const SHARDS = 3;
const logger = createLogger('workflow-shards-test', 'error');
let stack: TestStack;
let upstream: TokenMcpServer;

test.before(async () => {
  upstream = await startTokenMcpServer({ token: TOKEN });
  // A short history limit: a few connects and disconnects make a run continue as new.
  stack = await startTestStack({ CONNECTOR__WORKFLOW_SHARDS: String(SHARDS), CONNECTOR__HISTORY_LIMIT: '40' });
});

test.after.always(async () => {
  await stack?.stop();
  await upstream?.close();
});

const queueOf = async (id: string) => (await stack.temporal.workflow.getHandle(connectorWorkflowId(id)).describe()).taskQueue;

async function callEcho(mcpUrl: string, text: string): Promise<string> {
  const client = new Client({ name: 'shards-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  try {
    const result = await client.callTool({ name: 'echo', arguments: { text } });
    return (result.content as { text: string }[])[0]!.text;
  } finally {
    await client.close();
  }
}

/** Connectors created until every shard has one: the first of each queue. */
async function oneOnEveryShard(): Promise<Map<string, { id: string; mcp_url: string }>> {
  const base = stack.config.temporal.taskQueue;
  const byQueue = new Map<string, { id: string; mcp_url: string }>();
  for (let i = 0; i < 60 && byQueue.size < SHARDS; i++) {
    const { status, body } = await stack.api('POST', '/api/v1/connectors', { url: upstream.url });
    if (status !== 201) throw new Error(`create answered ${status}`);
    const queue = await queueOf(body.id);
    // The workflow runs where the id says, so any process with the same count finds the same queue.
    if (queue !== connectorQueue(base, SHARDS, body.id)) throw new Error(`${body.id} runs on ${queue}`);
    if (!byQueue.has(queue)) byQueue.set(queue, body);
  }
  return byQueue;
}

test.serial("connectors on every shard connect, relay calls and continue as new on their own shard's queue", async (t) => {
  const byQueue = await oneOnEveryShard();
  t.deepEqual([...byQueue.keys()].sort(), shardQueues(stack.config.temporal.taskQueue, SHARDS).sort(), 'one connector on each shard');

  for (const [queue, c] of byQueue) {
    const handle = stack.temporal.workflow.getHandle(connectorWorkflowId(c.id));
    const firstRun = (await handle.describe()).runId;
    for (let cycle = 0; cycle < 8 && (await handle.describe()).runId === firstRun; cycle++) {
      t.is((await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: TOKEN })).status, 200, `${queue}: connect`);
      t.is((await stack.api('POST', `/api/v1/connectors/${c.id}/disconnect`)).status, 200, `${queue}: disconnect`);
    }
    const connected = await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: TOKEN });
    t.is(connected.body.state, 'connected', queue);
    const described = await handle.describe();
    t.not(described.runId, firstRun, `${queue}: the workflow continued as new`);
    t.is(described.taskQueue, queue, 'the new run stays on the queue the connector started on');
    t.is(await callEcho(c.mcp_url, `via ${queue}`), `via ${queue}`);
  }
});

test.serial('a worker with fewer shards than the running workflows use refuses to start, naming the setting', async (t) => {
  const base = stack.config.temporal.taskQueue;
  const byQueue = await oneOnEveryShard();
  t.true(byQueue.has(shardQueues(base, SHARDS)[SHARDS - 1]!), 'a connector runs on the last shard');
  await t.notThrowsAsync(assertNoStrandedShards(stack.temporal, base, SHARDS, logger));
  // Visibility trails the start by a moment.
  const error = await eventually(async () => {
    try {
      await assertNoStrandedShards(stack.temporal, base, SHARDS - 1, logger);
      return undefined;
    } catch (err) {
      return err;
    }
  }, 30_000, 'the worker with one shard fewer to refuse');
  t.true(error instanceof ConfigError);
  t.regex((error as Error).message, /CONNECTOR__WORKFLOW_SHARDS is 2, but \d+ running workflows .*connectors-shard-2/);
});

test('a Temporal that cannot count workflows by task queue is not a reason to stay down: the worker starts, and says nothing was checked', async (t) => {
  const logFile = join(mkdtempSync(join(tmpdir(), 'shards-log-')), 'worker.log');
  // A stand-in for a Temporal whose visibility refuses the query (Cassandra's standard visibility), which cannot run here.
  const refusing = { workflow: { count: () => Promise.reject(new Error('operation CountWorkflowExecutions is not supported')) } } as unknown as TemporalClient;
  await t.notThrowsAsync(assertNoStrandedShards(refusing, 'connectors', 1, createLogger('worker', 'info', logFile)));
  await eventually(async () => (readFileSync(logFile, 'utf8').includes('starting without that check') ? true : undefined), 5_000, 'the warning');
  const line = JSON.parse(readFileSync(logFile, 'utf8').trim().split('\n').at(-1)!);
  t.is(line.level, 40);
  t.regex(line.err.message, /not supported/);
});
