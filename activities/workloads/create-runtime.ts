// Chooses the workload runtime from configuration. In its own file so that the runtime contract
// (runtime.ts) and the runtimes that implement it do not import each other.
import { DEFAULT_STDIO_UID_RANGE, parseUidRange, type Config } from '../../config/config';
import type { Logger } from '../../platform/logger';
import type { StdioRuntimeKind } from '../../catalog/presets';
import { detectContainerEngine, type ContainerEngine } from './container-engine';
import { ContainerRuntime } from './container-runtime';
import { localIsolation } from './local-isolation';
import { LocalRuntime } from './local-runtime';
import { commandClosedToOthers } from './others-can-reach';
import type { WorkloadRuntime } from './runtime';
import { checkUidSwitching, type UidSwitchCheck } from './uid-switching';

export interface RuntimeContext {
  /** Whether callers are authenticated (several owners share the service); unsaid, they count as authenticated. */
  callersEnabled?: boolean;
  /** Whether this process can run servers as other uids; the kernel is asked unless a test says. */
  checkUidSwitching?: UidSwitchCheck;
}

/** The stdio settings; without `local`, the configuration's defaults. */
export type RuntimeConfig = Omit<Config['stdio'], 'local'> & Partial<Pick<Config['stdio'], 'local'>>;

/** Unless told otherwise, callers count as authenticated: the local runtime then refuses to run servers it cannot isolate. */
export async function createWorkloadRuntime(config: RuntimeConfig, logger: Logger, context: RuntimeContext = {}): Promise<WorkloadRuntime> {
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
  return localRuntime(config, logger.child({ runtime: 'local' }), context);
}

function localRuntime(config: RuntimeConfig, local: Logger, context: RuntimeContext): LocalRuntime {
  const settings = config.local ?? { uidRange: parseUidRange(DEFAULT_STDIO_UID_RANGE), singleTenant: false };
  const uidRange = localIsolation({
    ...settings, callersEnabled: context.callersEnabled ?? true, check: context.checkUidSwitching ?? checkUidSwitching, logger: local,
  });
  // Said at start rather than at each connect: a node under /root (or a version manager's home) runs the
  // service fine, yet no server of another uid can run it.
  const nodeClosed = uidRange ? commandClosedToOthers(process.execPath, [], '', '/') : null;
  if (nodeClosed) local.warn(`${nodeClosed}: stdio servers that run this node will be refused at connect`);
  return new LocalRuntime({ logger: local, gatewayMaxSessions: config.gatewayMaxSessions, ...(uidRange ? { uidRange } : {}) });
}

/** The engine to use, or null for local processes; `container` without an answering engine is a configuration error. */
async function containerEngineFor(config: RuntimeConfig): Promise<ContainerEngine | null> {
  if (config.runtime === 'local') return null;
  const engine = await detectContainerEngine(config.container.engine ? [config.container.engine] : undefined);
  if (!engine && config.runtime === 'container') {
    throw new Error(`CONNECTOR__STDIO_RUNTIME=container, but ${config.container.engine ?? 'neither podman nor Docker'} answers on this machine`);
  }
  return engine;
}

/** Which runtime a configuration resolves to on this machine (for GET /presets and the start banner). */
export async function resolvedRuntimeKind(config: RuntimeConfig): Promise<StdioRuntimeKind> {
  if (config.runtime === 'kubernetes') return 'kubernetes';
  return (await containerEngineFor(config)) ? 'container' : 'local';
}
