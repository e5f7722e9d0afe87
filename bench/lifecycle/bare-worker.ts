// A worker for the bare workflow with the worker options of service/worker-runtime.ts, so that the
// two loops differ only in what the service adds (HTTP, records, the upstream probe).
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { floorActivities } from './floor-activities';

export interface BareWorker {
  taskQueue: string;
  stop(): Promise<void>;
}

export async function startBareWorker(address: string, namespace: string, taskQueue: string): Promise<BareWorker> {
  const connection = await NativeConnection.connect({ address });
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./bare-workflow.ts', import.meta.url)),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
  });
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue,
    workflowBundle,
    activities: floorActivities,
    nonStickyToStickyPollRatio: 1,
    shutdownGraceTime: '5s',
  });
  const running = worker.run();
  return {
    taskQueue,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      await connection.close();
    },
  };
}
