// Chooses the workload runtime from configuration. In its own file so that the runtime contract
// (runtime.ts) and the runtimes that implement it do not import each other.
import type { Config } from '../../core/config';
import type { Logger } from '../../core/logger';
import { KubeRuntime } from './kube-runtime';
import { LocalRuntime } from './local-runtime';
import type { WorkloadRuntime } from './runtime';

export function createWorkloadRuntime(config: Config['stdio'], logger: Logger): WorkloadRuntime {
  if (config.runtime === 'kubernetes') {
    return new KubeRuntime({
      ...config.kube, gatewayMaxSessions: config.gatewayMaxSessions, logger: logger.child({ runtime: 'kubernetes' }),
    });
  }
  return new LocalRuntime({ logger: logger.child({ runtime: 'local' }), gatewayMaxSessions: config.gatewayMaxSessions });
}
