// The Temporal worker: the connector workflow plus the activities built from real dependencies.
import { fileURLToPath } from 'node:url';
import {
  DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode, type LogLevel, type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import type { Logger } from '../core/logger';

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
let runtimeInstalled = false;

/** Routes the SDK's own log lines into the service's logger, once per process. */
function installRuntime(logger: Logger): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const sdk = logger.child({ component: 'temporal-sdk' });
  const level = (['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as LogLevel[]).find((l) => l.toLowerCase() === logger.level) ?? 'WARN';
  Runtime.install({
    logger: new DefaultLogger(level === 'INFO' ? 'WARN' : level, ({ level: l, message, meta }) => {
      const method = l === 'ERROR' ? 'error' : l === 'WARN' ? 'warn' : l === 'INFO' ? 'info' : 'debug';
      // taskToken is an opaque routing handle, not a secret, but it is noise in a log line.
      const { taskToken, ...rest } = (meta ?? {}) as Record<string, unknown>;
      sdk[method](rest, message);
    }),
  });
}

/** Bundles the workflow code once per process (webpack, a few seconds). */
function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('../workflows/index.ts', import.meta.url)),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
  });
  return bundle;
}

export interface WorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  activities: ActivityDeps;
  logger: Logger;
}

export async function createWorker(options: WorkerOptions): Promise<{ worker: Worker; connection: NativeConnection }> {
  installRuntime(options.logger);
  const connection = await NativeConnection.connect({ address: options.address });
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowBundle: await workflowBundle(),
    activities: createActivities(options.activities),
    // All pollers also serve the normal queue: bursts of new workflows no longer wait for a
    // sticky poller (measured: ~2x connectors/s on the dev server, see toolchain notes).
    nonStickyToStickyPollRatio: 1,
    shutdownGraceTime: '5s',
  });
  return { worker, connection };
}
