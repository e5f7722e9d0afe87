// Chooses the workload runtime from configuration and says at start which one runs the stdio
// servers and what they reach. In its own file so that the runtime contract (runtime.ts) and the
// runtimes that implement it do not import each other.
import { DEFAULT_STDIO_UID_RANGE, parseUidRange, type Config } from '../../config/config';
import type { Logger } from '../../platform/logger';
import type { StdioRuntimeKind } from '../../catalog/presets';
import { detectContainerEngine, type ContainerEngine } from './container-engine';
import { ContainerRuntime } from './container-runtime';
import { EgressNetworks } from './egress-network';
import { localIsolation } from './local-isolation';
import { LocalRuntime } from './local-runtime';
import { commandClosedToOthers } from './others-can-reach';
import { noteRuntime } from './runtime-note';
import type { WorkloadRuntime } from './runtime';
import { checkEgress, checkSandbox } from './sandbox-check';
import { checkUidSwitching, type UidSwitchCheck } from './uid-switching';

export interface RuntimeContext {
  /** Whether callers are authenticated (several owners share the service); unsaid, they count as authenticated. */
  callersEnabled?: boolean;
  /** Whether this process can run servers as other uids; the kernel is asked unless a test says. */
  checkUidSwitching?: UidSwitchCheck;
  /** Whether a server runs in the sandbox here; tried for real unless a test says. */
  checkSandbox?: (uid: number) => Promise<string | null>;
  /** Whether egress networks open here; tried for real unless a test says. */
  checkEgress?: (networks: EgressNetworks) => Promise<string | null>;
  /** Where the runtime of the last start is noted (DATA_DIR), so that a change is said; absent: not noted. */
  stateDir?: string;
}

/** The stdio settings; without `local`, the configuration's defaults. */
export type RuntimeConfig = Omit<Config['stdio'], 'local'> & Partial<Pick<Config['stdio'], 'local'>>;

/** Unless told otherwise, callers count as authenticated: the local runtime then refuses to run servers it cannot isolate. */
export async function createWorkloadRuntime(config: RuntimeConfig, logger: Logger, context: RuntimeContext = {}): Promise<WorkloadRuntime> {
  const { runtime, kind, description } = await chooseRuntime(config, logger, context);
  logger.info({ stdioRuntime: kind }, `stdio servers run ${description}`);
  if (context.stateDir) noteRuntime(context.stateDir, kind, logger);
  return runtime;
}

interface Chosen { runtime: WorkloadRuntime; kind: string; description: string }

async function chooseRuntime(config: RuntimeConfig, logger: Logger, context: RuntimeContext): Promise<Chosen> {
  if (config.runtime === 'kubernetes') {
    // Loaded only here: the Kubernetes client's code took about 30 MB of a worker's memory, which a
    // worker running workloads as local processes (the embedded stack) has no use for.
    const { KubeRuntime } = await import('./kube-runtime');
    const runtime = new KubeRuntime({ ...config.kube, gatewayMaxSessions: config.gatewayMaxSessions, logger: logger.child({ runtime: 'kubernetes' }) });
    return { runtime, kind: 'kubernetes', description: `on Kubernetes in namespace ${config.kube.namespace}, each pod behind a NetworkPolicy: no loopback, private or cluster address unless allowed` };
  }
  const engine = await containerEngineFor(config);
  if (engine) {
    const log = logger.child({ runtime: 'container', engine: engine.program });
    const egress = engine.program === 'podman' ? await egressNetworks(log, context) : null;
    const runtime = new ContainerRuntime({
      engine, owner: config.container.owner, pull: config.container.pull, ...(egress ? { egress } : {}),
      gatewayMaxSessions: config.gatewayMaxSessions, logger: log,
    });
    const network = egress ? 'no network but its own loopback unless its preset allows egress, filtered' : 'no network but its own loopback (egress presets refused)';
    const pulls = config.container.pull === 'missing' ? 'missing images pulled' : 'no registry contacted';
    return { runtime, kind: `container (${engine.program})`, description: `in ${engine.program} containers: ${network}; ${pulls}` };
  }
  return localRuntime(config, logger.child({ runtime: 'local' }), context);
}

async function localRuntime(config: RuntimeConfig, local: Logger, context: RuntimeContext): Promise<Chosen> {
  const settings = config.local ?? { uidRange: parseUidRange(DEFAULT_STDIO_UID_RANGE), singleTenant: false };
  const isolation = await localIsolation({
    ...settings, callersEnabled: context.callersEnabled ?? true, logger: local,
    check: context.checkUidSwitching ?? checkUidSwitching, sandboxCheck: context.checkSandbox ?? checkSandbox,
  });
  // Said at start rather than at each connect: a node under /root (or a version manager's home) runs the
  // service fine, yet no server of another uid can run it.
  const nodeClosed = isolation.uidRange ? commandClosedToOthers(process.execPath, [], '', '/') : null;
  if (nodeClosed) local.warn(`${nodeClosed}: stdio servers that run this node will be refused at connect`);
  const egress = isolation.sandbox ? await egressNetworks(local, context) : null;
  const runtime = new LocalRuntime({
    logger: local, gatewayMaxSessions: config.gatewayMaxSessions,
    ...(isolation.uidRange ? { uidRange: isolation.uidRange, sandbox: isolation.sandbox } : {}),
    ...(egress ? { egress } : {}),
  });
  return { runtime, kind: 'local', description: `as local processes: ${isolation.summary}` };
}

/** The egress networks, or null (said once) where they cannot be opened: presets that allow egress are then refused at connect. */
async function egressNetworks(logger: Logger, context: RuntimeContext): Promise<EgressNetworks | null> {
  const networks = new EgressNetworks();
  const whyNot = await (context.checkEgress ?? checkEgress)(networks);
  if (whyNot === null) return networks;
  logger.warn({ reason: whyNot }, 'stdio servers get no network: presets that allow egress (internet, allowed_networks) are refused at connect');
  return null;
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
