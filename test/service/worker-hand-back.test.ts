// A worker's stop hands its work back before it lets go of its cached workflows, and the embedded
// stack stops Temporal from that moment (service/worker-hand-back.ts): so the moment must come only
// once Temporal has heard of every activity the worker ran, never while one is still under way.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import test from 'ava';
import { createLogger } from '../../platform/logger';
import { startTemporalDevServer } from '../../stack/servers/temporal-dev-server';
import { untilHandedBack } from '../../service/worker-hand-back';

const CACHED = 40;

test('the hand-back waits for a running activity, and Temporal has its completion by then', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'worker-hand-back-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const server = await startTemporalDevServer({ dataDir, headless: true, log: createLogger('worker-hand-back-test', 'warn') });
  t.teardown(() => server.stop());
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const taskQueue = 'hand-back';
  let started!: () => void;
  const activityStarted = new Promise<void>((resolve) => (started = resolve));
  let release!: (answer: string) => void;
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address: server.address }),
    taskQueue,
    workflowsPath: fileURLToPath(new URL('./fixtures/hand-back-workflows.ts', import.meta.url)),
    // Time enough for the held activity to finish after the stop began.
    shutdownGraceTime: '30s',
    activities: { held: () => { started(); return new Promise<string>((resolve) => (release = resolve)); } },
  });
  const running = worker.run();
  const connection = await Connection.connect({ address: server.address });
  t.teardown(() => connection.close());
  const client = new Client({ connection });
  const waiting = await Promise.all(Array.from({ length: CACHED }, (_, i) => client.workflow.start('waiting', { taskQueue, workflowId: `waiting-${i}` })));
  const holding = await client.workflow.start('holding', { taskQueue, workflowId: 'holding' });
  await activityStarted;
  // Every waiting workflow has had its first task, so all of them are in the worker's cache.
  await Promise.all(waiting.map(async (handle) => {
    while ((await handle.fetchHistory()).events!.length < 4) await new Promise((r) => setTimeout(r, 50));
  }));
  t.is(worker.getStatus().numCachedWorkflows, CACHED + 1);

  worker.shutdown();
  let handedBack = false;
  const handing = untilHandedBack([worker], running).then(() => (handedBack = true));
  // However long the activity is held, the hand-back does not come before it has answered.
  await new Promise((r) => setTimeout(r, 500));
  t.false(handedBack, 'not while the activity runs');
  release('done');
  await handing;

  const events = (await holding.fetchHistory()).events!;
  t.true(events.some((event) => event.activityTaskCompletedEventAttributes), 'Temporal recorded the completion before the hand-back');
  await running;
  t.is(worker.getState(), 'STOPPED');
});
