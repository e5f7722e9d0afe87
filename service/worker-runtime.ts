// The Temporal workers: one per shard of the connector workflows (config/workflow-shards.ts), each the
// connector workflow plus the activities built from real dependencies, made once and shared.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { createRegistryActivities, unconfiguredRegistryActivities, type RegistryActivityDeps } from '../activities/registry/sync-activities';
import { workflowBundleName } from './workflow-bundle';
import type { TemporalAccess } from '../config/config';
import type { Logger } from '../platform/logger';
import { bundleWorkflowsApart } from './bundle-workflows';
import { assertHeapHoldsCache } from './heap-fit';
import { installSdkRuntime } from './sdk-runtime';
import { temporalConnectOptions } from './services';
import { shardQueues } from '../config/workflow-shards';
import type { Tracing } from './tracing';

const bundles = new Map<boolean, Promise<WorkflowBundleOption>>();
export const STICKY_QUEUE_TIMEOUT = '1s';
const MAX_CONCURRENT_WORKFLOW_TASKS = 8;
const MAX_CONCURRENT_ACTIVITIES = 1_000;

// `npm run build` writes the bundles beside the compiled worker (dist/); from source there are none.
const prebuilt = (traced: boolean) => fileURLToPath(new URL(`./${workflowBundleName(traced)}`, import.meta.url));

/**
 * The compiled worker's prebuilt bundle, else the workflow code bundled once per process by
 * webpack in a child process (a few seconds; see bundle-workflows.ts for why apart). With
 * tracing, the bundle holding the Temporal workflow interceptors; without, the one that has
 * none, so that workflows make no spans when traces are off.
 */
function bundleFor(traced: boolean): Promise<WorkflowBundleOption> {
  if (existsSync(prebuilt(traced))) return Promise.resolve({ codePath: prebuilt(traced) });
  let bundle = bundles.get(traced);
  if (!bundle) {
    bundle = bundleWorkflowsApart(traced).then((code) => ({ code }));
    bundles.set(traced, bundle);
  }
  return bundle;
}

export interface WorkerOptions {
  address: string;
  access?: TemporalAccess;
  namespace: string;
  /** The base task queue: shard 0's, and the tool tasks' and registry sync's (config/workflow-shards.ts). */
  taskQueue: string;
  /** One worker per shard, each serving its own task queue. */
  shards: number;
  /** The workflow cache's size, all shards together: the worker's memory is bounded by it, not by the number of connectors. */
  maxCachedWorkflows: number;
  activities: ActivityDeps;
  /** The registry sync's activities (CONNECTOR__REGISTRY_URL); absent: they refuse. */
  registry?: RegistryActivityDeps | null;
  logger: Logger;
  /** Activity spans and the workflows' span sink; absent: tracing is off. */
  tracing?: Tracing | null;
}

export interface ShardWorkers {
  /** Shard 0's first. */
  workers: Worker[];
  connection: NativeConnection;
  sdkMetricsUrl: string;
}

export async function createWorkers(options: WorkerOptions): Promise<ShardWorkers> {
  const cachePerShard = Math.max(1, Math.ceil(options.maxCachedWorkflows / options.shards));
  // Each shard's cache lives in its own workflow thread's isolate, whose heap limit is the process's.
  assertHeapHoldsCache(cachePerShard);
  const sdkMetricsUrl = await installSdkRuntime(options.logger);
  const connection = await NativeConnection.connect(temporalConnectOptions(options.address, options.access));
  const workflowBundle = await bundleFor(Boolean(options.tracing));
  // Made once and shared: the in-task admission (owners sent out; calls in tasks counted per shard) and the activities' pools are the process's.
  const activities = {
    ...createActivities(options.activities),
    ...(options.registry ? createRegistryActivities(options.registry) : unconfiguredRegistryActivities()),
  };
  // All shards at once: each loads the workflow code into a workflow thread of its own, and those
  // loads run side by side (4 shards: 2.4 s one after another, 1.85 s at once; docs/scale.md).
  const made = await Promise.allSettled(shardQueues(options.taskQueue, options.shards).map((taskQueue) =>
    Worker.create({ ...workerSettings(cachePerShard), connection, namespace: options.namespace, taskQueue, workflowBundle, activities, ...(options.tracing ? options.tracing.worker : {}) })));
  const workers = made.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const failed = made.find((outcome) => outcome.status === 'rejected');
  if (failed) {
    // The cause is what the process reports: a failure to let go of the connection must not replace it.
    await releaseUnrun(workers).then(() => connection.close()).catch((closing: unknown) => {
      options.logger.warn({ err: closing }, 'the Temporal connection of workers that failed to start did not close');
    });
    throw failed.reason;
  }
  return { workers, connection, sdkMetricsUrl };
}

/**
 * Lets go of workers made but never run: the connection refuses to close while any holds it, and
 * running one and shutting it down at once is the SDK's only way to release it.
 */
export async function releaseUnrun(workers: Worker[]): Promise<void> {
  await Promise.all(workers.map((worker) => {
    const running = worker.run();
    worker.shutdown();
    return running;
  }));
}

/** What every shard's worker is given besides its queue. */
function workerSettings(maxCachedWorkflows: number) {
  return {
    // All pollers also serve the normal queue: bursts of new workflows no longer wait for a
    // sticky poller (measured: ~2x connectors/s on the dev server, see toolchain notes).
    nonStickyToStickyPollRatio: 1,
    // A workflow's next task waits this long on the queue of the worker that cached it before any
    // worker may take it: Temporal's default (10 s) is how long a connect waited when that worker
    // had died. A live worker polls its queue all the time, so a second is plenty for it.
    stickyQueueScheduleToStartTimeout: STICKY_QUEUE_TIMEOUT,
    maxCachedWorkflows,
    // A workflow task's timeout (2 s, api/connector-commands.ts) runs from the moment the worker
    // takes it, and the workflow thread runs activations one after another: tasks taken beyond
    // what it finishes in 2 s time out, and the next attempt replays them and runs their in-task
    // refresh or probe again. With the SDK's 40, 2,000 OAuth connectors on 2 cores ran each refresh
    // three times (1,480 timed-out tasks in 6.5 minutes); with 16, 15 timed out; with 8, none, and
    // connects went no slower (docs/scale.md). Tasks not taken wait on the server, with no timeout.
    // Each shard's worker has a workflow thread of its own, and so its own 8.
    maxConcurrentWorkflowTaskExecutions: Math.min(MAX_CONCURRENT_WORKFLOW_TASKS, maxCachedWorkflows),
    // An activity that waits on someone else's server holds its slot as long, and the record and
    // audit writes of every owner take slots from the same pool. With the SDK's 100, one owner's
    // connectors (100 by default, CONNECTOR__MAX_CONNECTORS_PER_OWNER) pointed at a server that
    // never answers held them all, and every other owner's transitions waited for a connect
    // timeout (test/integration/tenant-tarpit.test.ts). Activities are I/O: a waiting one costs
    // a socket and a few kilobytes.
    maxConcurrentActivityTaskExecutions: MAX_CONCURRENT_ACTIVITIES,
    shutdownGraceTime: '5s',
  } as const;
}
