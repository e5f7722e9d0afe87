// Stdio servers in containers on this machine (podman or Docker): the preset's image runs as the
// specification defines it, sandboxed by container-run-args.ts, and the project's gateway serves
// it as Streamable HTTP exactly as for a local process. The gateway stays in the worker and talks
// to the container over `run --interactive`: the server then needs no port and no network at all,
// where a gateway inside the container would need one published to the host.
import type { Logger } from '../../platform/logger';
import { CONNECTOR_LABEL, containerName, containerRunArgs, OWNER_LABEL } from './container-run-args';
import { engineMessage, type ContainerEngine } from './container-engine';
import { WorkloadExitedError } from './errors';
import { LocalRuntime, type ServerLaunch } from './local-runtime';
import type { StartedRuntimeWorkload, StartOptions, WatchResult, WorkloadRuntime, WorkloadSpec } from './runtime';
import { workloadEnv } from './workload-env';

export interface ContainerRuntimeOptions {
  engine: ContainerEngine;
  logger: Logger;
  /** Names this deployment on the engine: its reconciler reaps only its own containers. */
  owner: string;
  /** The network containers join; `none` (the default) leaves them loopback only. */
  network?: string;
  serverStderr?: 'inherit' | 'ignore';
  reconcileGraceMs?: number;
  gatewayMaxSessions?: number;
}

export class ContainerRuntime implements WorkloadRuntime {
  private readonly processes: LocalRuntime;

  constructor(private readonly options: ContainerRuntimeOptions) {
    this.processes = new LocalRuntime({
      logger: options.logger,
      serverStderr: options.serverStderr,
      reconcileGraceMs: options.reconcileGraceMs,
      gatewayMaxSessions: options.gatewayMaxSessions,
      launcher: (spec) => this.launch(spec),
    });
  }

  async start(spec: WorkloadSpec, options: StartOptions): Promise<StartedRuntimeWorkload> {
    await this.ensureImage(spec.stdio.image);
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

  private launch(spec: WorkloadSpec): ServerLaunch {
    const env = workloadEnv(spec.stdio, spec.token);
    const args = containerRunArgs({
      connectorId: spec.connectorId,
      owner: this.options.owner,
      stdio: spec.stdio,
      envNames: Object.keys(env),
      network: this.options.network ?? 'none',
    });
    return { command: this.options.engine.program, args: this.options.engine.argv(args), env };
  }

  /** Images are never pulled by `run`: a missing one is pulled here, and a failure names it. */
  private async ensureImage(image: string): Promise<void> {
    if (await this.options.engine.imageExists(image)) return;
    this.options.logger.info({ image }, 'pulling a stdio server image');
    try {
      await this.options.engine.pull(image);
    } catch (error) {
      throw new WorkloadExitedError(`the image ${image} is not on this machine and could not be pulled: ${engineMessage(error)}`);
    }
  }
}
