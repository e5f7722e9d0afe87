// Stdio servers in containers on this machine (podman or Docker): the preset's image runs as the
// specification defines it, sandboxed by container-run-args.ts, and the project's gateway serves
// it as Streamable HTTP exactly as for a local process. The gateway stays in the worker and talks
// to the container over `run --interactive`: the server then needs no port and no network at all,
// where a gateway inside the container would need one published to the host. A container has
// none (`--network none`: its own loopback) unless its preset allows egress; then it joins an
// egress network (egress-network.ts), filtered as a local server's is. Not a bridge network:
// a container there reached the host through the bridge's gateway address and every private
// network the host routes to. No registry is contacted unless the operator allows pulls: `run`
// starts the image by its id, found locally, so no short name is ever resolved.
import type { Logger } from '../../platform/logger';
import { CONNECTOR_LABEL, containerName, containerRunArgs, OWNER_LABEL } from './container-run-args';
import { engineMessage, type ContainerEngine } from './container-engine';
import type { EgressNetwork, EgressNetworks } from './egress-network';
import { STACK_DNS } from './egress-rules';
import { systemProgram } from './system-program';
import { WorkloadExitedError } from './errors';
import { LocalRuntime } from './local-runtime';
import type { ServerLaunch } from './server-launch';
import type { StartedRuntimeWorkload, StartOptions, WatchResult, WorkloadRuntime, WorkloadSpec } from './runtime';
import { workloadEnv } from './workload-env';

export interface ContainerRuntimeOptions {
  engine: ContainerEngine;
  logger: Logger;
  /** Names this deployment on the engine: its reconciler reaps only its own containers. */
  owner: string;
  /** `missing`: an image not on this machine is pulled; `never` (the default): no registry is ever contacted. */
  pull?: 'never' | 'missing';
  /** Opens the egress networks of containers whose preset allows egress (podman only); absent: such presets are refused. */
  egress?: EgressNetworks;
  serverStderr?: 'log' | 'inherit' | 'ignore';
  reconcileGraceMs?: number;
  gatewayMaxSessions?: number;
}

export class ContainerRuntime implements WorkloadRuntime {
  readonly sharesHostNetwork = false;
  private readonly processes: LocalRuntime;
  /** The id each connector's image had when its start looked it up: what `run` starts. */
  private readonly imageIds = new Map<string, string>();

  constructor(private readonly options: ContainerRuntimeOptions) {
    this.processes = new LocalRuntime({
      logger: options.logger,
      serverStderr: options.serverStderr,
      reconcileGraceMs: options.reconcileGraceMs,
      gatewayMaxSessions: options.gatewayMaxSessions,
      ...(options.egress && options.engine.program === 'podman' ? { egress: options.egress } : {}),
      launcher: (spec, network) => this.launch(spec, network),
    });
  }

  async start(spec: WorkloadSpec, options: StartOptions): Promise<StartedRuntimeWorkload> {
    this.imageIds.set(spec.connectorId, await this.localImage(spec.stdio.image));
    // A container of this name that this worker does not know is a previous worker's (it crashed):
    // its name would make the new run fail, and it may hold an old token.
    if (!this.processes.has(spec.connectorId)) await this.options.engine.remove(containerName(spec.connectorId));
    return this.processes.start(spec, options);
  }

  watch(connectorId: string, options: { heartbeat: () => void; signal: AbortSignal }): Promise<WatchResult> {
    return this.processes.watch(connectorId, options);
  }

  async remove(connectorId: string): Promise<void> {
    await this.processes.remove(connectorId);
    this.imageIds.delete(connectorId);
    // Killing the engine's client does not always stop the container (conmon or dockerd keep it).
    await this.options.engine.remove(containerName(connectorId));
  }

  async reconcile(isConnected: (connectorId: string) => Promise<boolean>): Promise<string[]> {
    const removed = await this.processes.reconcile(isConnected);
    for (const container of await this.options.engine.containersLabelled([`${OWNER_LABEL}=${this.options.owner}`])) {
      const connectorId = container.labels[CONNECTOR_LABEL];
      // Containers this worker runs are the process reconciler's; the rest are orphans of a crash.
      if (!connectorId || this.processes.has(connectorId)) continue;
      await this.options.engine.remove(container.name);
      removed.push(connectorId);
    }
    return removed;
  }

  async close(): Promise<void> {
    const ids = await this.ownContainerIds();
    await this.processes.close();
    await Promise.all(ids.map((id) => this.options.engine.remove(containerName(id))));
  }

  /** The container's name while its workload is known here: for tests and diagnostics. */
  containerName(connectorId: string): string | undefined {
    return this.processes.has(connectorId) ? containerName(connectorId) : undefined;
  }

  private async ownContainerIds(): Promise<string[]> {
    const containers = await this.options.engine.containersLabelled([`${OWNER_LABEL}=${this.options.owner}`]).catch(() => []);
    return containers.map((c) => c.labels[CONNECTOR_LABEL]).filter((id): id is string => Boolean(id));
  }

  private launch(spec: WorkloadSpec, network: EgressNetwork | null): ServerLaunch {
    const env = workloadEnv(spec);
    const args = containerRunArgs({
      connectorId: spec.connectorId,
      owner: this.options.owner,
      stdio: spec.stdio,
      envNames: Object.keys(env),
      network: network ? { namespace: network.namespace, dns: STACK_DNS } : null,
      imageId: this.imageIds.get(spec.connectorId) ?? spec.stdio.image,
    });
    return { command: systemProgram(this.options.engine.program), args: this.options.engine.argv(args), env };
  }

  /**
   * The id of the image on this machine. Images are never pulled by `run`; a missing one is pulled
   * here only where the operator allows pulls (CONNECTOR__CONTAINER_PULL=missing), and a failure names it.
   */
  private async localImage(image: string): Promise<string> {
    const found = await this.options.engine.imageId(image);
    if (found) return found;
    if (this.options.pull !== 'missing') {
      throw new WorkloadExitedError(`the image ${image} is not on this machine, and the container runtime pulls no image (CONNECTOR__CONTAINER_PULL=missing allows it)`);
    }
    this.options.logger.info({ image }, 'pulling a stdio server image');
    try {
      await this.options.engine.pull(image);
    } catch (error) {
      throw new WorkloadExitedError(`the image ${image} is not on this machine and could not be pulled: ${engineMessage(error)}`);
    }
    const pulled = await this.options.engine.imageId(image);
    if (!pulled) throw new WorkloadExitedError(`the image ${image} was pulled but is not on this machine`);
    return pulled;
  }
}
