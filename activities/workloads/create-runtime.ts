// Chooses the workload runtime from configuration. In its own file so that the runtime contract
// (runtime.ts) and the runtimes that implement it do not import each other.
import type { Config } from '../../core/config';
import type { Logger } from '../../core/logger';
import { LocalRuntime } from './local-runtime';
import type { WorkloadRuntime } from './runtime';

export async function createWorkloadRuntime(config: Config['stdio'], logger: Logger): Promise<WorkloadRuntime> {
  if (config.runtime === 'kubernetes') {
    // Loaded only here: the Kubernetes client's code took about 30 MB of a worker's memory, which a
    // worker running workloads as local processes (the embedded stack) has no use for.
    const { KubeRuntime } = await import('./kube-runtime');
    return new KubeRuntime({
      ...config.kube, gatewayMaxSessions: config.gatewayMaxSessions, logger: logger.child({ runtime: 'kubernetes' }),
    });
  }
  return new LocalRuntime({ logger: logger.child({ runtime: 'local' }), gatewayMaxSessions: config.gatewayMaxSessions });
}
