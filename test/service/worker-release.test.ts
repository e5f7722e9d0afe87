// A shard's worker that fails to be made leaves the ones made beside it: they hold the Temporal
// connection, which refuses to close while they do, and that refusal must not hide the cause
// (service/worker-runtime.ts, createWorkers).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import test from 'ava';
import { createLogger } from '../../platform/logger';
import { startTemporalDevServer } from '../../stack/servers/temporal-dev-server';
import { releaseUnrun } from '../../service/worker-runtime';

test('workers made and never run let go of their connection once released, so it closes', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'worker-release-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const server = await startTemporalDevServer({ dataDir, headless: true, log: createLogger('worker-release-test', 'warn') });
  t.teardown(() => server.stop());
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const connection = await NativeConnection.connect({ address: server.address });
  const made = await Promise.all(['shard-a', 'shard-b'].map((taskQueue) => Worker.create({ connection, taskQueue, activities: { idle: async () => undefined } })));
  await t.throwsAsync(connection.close(), { message: /Workers hold a reference/ }, 'held while they exist');

  await releaseUnrun(made);
  t.deepEqual(made.map((worker) => worker.getState()), ['STOPPED', 'STOPPED']);
  await t.notThrowsAsync(connection.close());
});
