// The audit's queue never holds up a request: with room for two calls and a database write that
// never finishes, an SDK client's calls through the proxy to the reference server all succeed,
// the calls past the queue's room are dropped and counted, and the one batch under way is all
// that waits. A failing write drops its batch, counts it and logs it without the database's words
// for a secret.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { createLogger } from '../../platform/logger';
import { createMetrics } from '../../platform/metrics';
import type { CallEntry } from '../../contract/call-record';
import { CallAuditQueue } from '../../proxy/call-audit-queue';
import { staticRoutes } from '../../proxy/static-routes';
import { startEverythingServer } from '../fixtures/everything-server';
import { valueOf } from '../helpers/prometheus-text';
import { connectClient, startProxy } from './proxy-harness';

test('a full queue drops and counts calls; every request still succeeds', async (t) => {
  const everything = await startEverythingServer();
  const metrics = createMetrics();
  const handed: CallEntry[][] = [];
  const audit = new CallAuditQueue({
    write: (entries) => {
      handed.push(entries);
      return new Promise<void>(() => undefined); // a database that never answers
    },
    capacity: 2, batchSize: 1, intervalMs: 10, logger: createLogger('queue-test', 'silent'), metrics,
  });
  const proxy = await startProxy(staticRoutes({ everything: { kind: 'connected', target: everything.url } }), { metrics, audit });
  t.teardown(async () => {
    await proxy.close();
    await everything.stop();
  });

  const { client, transport } = await connectClient(proxy.mcpUrl('everything'));
  for (let i = 0; i < 10; i++) {
    const result = await client.callTool({ name: 'echo', arguments: { message: `call ${i}` } });
    t.regex((result.content as { text: string }[])[0]!.text, new RegExp(`call ${i}`));
  }
  await transport.terminateSession();
  await client.close();

  const text = await metrics.registry.metrics();
  const dropped = valueOf(text, 'mcp_call_audit_dropped_total', { reason: 'queue_full' }) ?? 0;
  const requests = valueOf(text, 'mcp_proxy_requests_total', { connector_id: 'everything', rpc_method: 'tools/call', status: '200' });
  t.is(requests, 10, 'every call was answered');
  t.is(handed.length, 1, 'one batch went to the database and never came back');
  t.true(audit.size <= 2, 'the queue holds no more than its room');
  t.true(dropped >= 10, `the calls past the room were dropped and counted (${dropped})`);
  t.is(valueOf(text, 'mcp_call_audit_written_total') ?? 0, 0);
});

test('a failing write drops its batch, counted and logged without secrets', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'queue-test-'));
  const logFile = path.join(dir, 'log');
  const metrics = createMetrics();
  let attempts = 0;
  const audit = new CallAuditQueue({
    write: async () => {
      attempts++;
      throw Object.assign(new Error('connection to mongodb://root:hunter2@db:27017 refused'), { code: 'ECONNREFUSED', uri: 'mongodb://root:hunter2@db:27017' });
    },
    capacity: 100, batchSize: 3, intervalMs: 10, logger: createLogger('queue-test', 'warn', logFile), metrics,
  });
  const entry = (i: number): CallEntry => ({
    at: new Date(), connectorId: 'c', caller: null, sessionId: null, httpMethod: 'POST', rpcMethod: 'ping', rpcName: null, body: 'message',
    status: 200, rpcErrorCode: null, durationMs: i, requestBytes: 1, responseBytes: 1,
  });
  for (let i = 0; i < 5; i++) audit.record(entry(i));
  await audit.close();
  t.is(attempts, 2, 'two batches, 3 and 2');
  t.is(valueOf(await metrics.registry.metrics(), 'mcp_call_audit_dropped_total', { reason: 'write_failed' }), 5);
  const log = fs.readFileSync(logFile, 'utf8');
  t.regex(log, /call audit batch not written/);
  t.false(log.includes('hunter2'), 'the logged error names no password');
});
