// Chooses the workload runtime from configuration. In its own file so that the runtime contract
// (runtime.ts) and the runtimes that implement it do not import each other.
import type { Config } from '../../core/config';
import type { Logger } from '../../core/logger';
import type { StdioRuntimeKind } from '../../core/presets';
import { detectContainerEngine, type ContainerEngine } from './container-engine';
import { ContainerRuntime } from './container-runtime';
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
  const engine = await containerEngineFor(config);
  if (engine) {
    return new ContainerRuntime({
      engine, owner: config.container.owner, network: config.container.network,
      gatewayMaxSessions: config.gatewayMaxSessions, logger: logger.child({ runtime: 'container', engine: engine.program }),
    });
  }
  return new LocalRuntime({ logger: logger.child({ runtime: 'local' }), gatewayMaxSessions: config.gatewayMaxSessions });
}

/** The engine to use, or null for local processes; `container` without an answering engine is a configuration error. */
async function containerEngineFor(config: Config['stdio']): Promise<ContainerEngine | null> {
  if (config.runtime === 'local') return null;
  const engine = await detectContainerEngine(config.container.engine ? [config.container.engine] : undefined);
  if (!engine && config.runtime === 'container') {
    throw new Error(`CONNECTOR__STDIO_RUNTIME=container, but ${config.container.engine ?? 'neither podman nor Docker'} answers on this machine`);
  }
  return engine;
}

/** Which runtime a configuration resolves to on this machine (for GET /presets and the start banner). */
export async function resolvedRuntimeKind(config: Config['stdio']): Promise<StdioRuntimeKind> {
  if (config.runtime === 'kubernetes') return 'kubernetes';
  return (await containerEngineFor(config)) ? 'container' : 'local';
}
