// The embedded default: each connector's stdio server is a child process of this worker, served as
// Streamable HTTP by the project's gateway on a free loopback port. The registry lives in memory
// only: after a worker restart nothing is known here, watch answers 'missing', and the workflow
// (which owns the connector's state) starts the workload again.
//
// Given a uid range, each server runs as a uid of its own (local-isolation.ts says why and when),
// in the sandbox where this machine has one (sandbox.ts: namespaces of its own, no network but its
// own loopback unless its preset allows egress, read-only but for its scratch folder, no new
// privileges): its environment only its own, and what it leaves behind (processes, files) is gone
// before its uid goes to another connector. The gateway stays in this process: the server needs no
// network to speak MCP (its stdio is a pipe), it holds nothing the worker does not hold already
// (the token, the gateway secret), and the server can reach neither it nor this process.
import { createHash } from 'node:crypto';
import type { UidRange } from '../../config/config';
import type { Logger } from '../../platform/logger';
import { parseWorkloadNetworks } from '../../platform/workload-egress';
import { startGateway, type Gateway } from '../../gateway';
import type { EgressNetwork, EgressNetworks } from './egress-network';
import type { ServerLaunch, ServerLauncher } from './server-launch';
import { readinessTimeoutMessage, WorkloadExitedError, WorkloadSpecError, WorkloadTimeoutError } from './errors';
import { newGatewaySecret } from './gateway-secret';
import type { StartedRuntimeWorkload, StartOptions, WatchResult, WorkloadRuntime, WorkloadSpec } from './runtime';
import { commandClosedToOthers } from './others-can-reach';
import { createServerProcess, releaseServer, type ServerProcess } from './server-process';
import { untilAborted } from './until-aborted';
import { removeFilesOf } from './uid-leftovers';
import { UidPool } from './uid-pool';
import { isolatedPath, workloadEnv } from './workload-env';

export interface LocalRuntimeOptions {
  logger: Logger;
  /** Where the servers' stderr goes: 'log' (the default: into the logger as data, never as raw lines), 'ignore', or 'inherit'. */
  serverStderr?: 'log' | 'inherit' | 'ignore';
  heartbeatIntervalMs?: number;
  /**
   * reconcile() leaves servers that became ready less than this long ago alone: the workflow may
   * not have recorded the connector as connected yet. Default 60 s.
   */
  reconcileGraceMs?: number;
  /** Open MCP sessions each gateway serves at once; default the gateway's (256). */
  gatewayMaxSessions?: number;
  /**
   * Each server runs as its own uid (and gid) from this range; this process must be able to
   * switch uids (uid-switching.ts). Absent: servers run as this process's uid, not isolated.
   */
  uidRange?: UidRange;
  /** With uidRange: each server in the sandbox (sandbox.ts) too. */
  sandbox?: boolean;
  /**
   * Opens the filtered networks of servers whose preset allows egress (internet, allowed_networks).
   * Absent: such presets are refused, unless servers share this machine's network anyway (neither
   * sandbox nor launcher: an unisolated single-tenant runtime, said at start).
   */
  egress?: EgressNetworks;
  /** How a spec becomes the process the gateway runs; default: the preset's command, on this host. */
  launcher?: ServerLauncher;
}

export type { ServerLaunch, ServerLauncher } from './server-launch';

/** The local runtime's own launcher: the preset's command as a child process of this worker. */
export function hostProcessLauncher(spec: WorkloadSpec): ServerLaunch {
  const [program, ...commandArgs] = spec.stdio.command ?? [];
  if (!program) {
    throw new WorkloadSpecError('a preset without command cannot run as a local process: it needs the container or the Kubernetes runtime (CONNECTOR__STDIO_RUNTIME)');
  }
  return { command: program, args: [...commandArgs, ...(spec.stdio.args ?? [])], env: workloadEnv(spec) };
}

interface LocalWorkload {
  /** Its process, scratch folder (never the service's working directory or DATA_DIR), uid and network. */
  server: ServerProcess;
  /** A digest of the env and stdio settings it was started with: a different one (a new token) needs a new server. */
  envDigest: string;
  gateway: Promise<Gateway>;
  /** Settles once the server is ready (or has failed to become so). */
  started: Promise<StartedRuntimeWorkload>;
  /** When it became ready (Date.now()); undefined while starting. */
  readyAt?: number;
}

export class LocalRuntime implements WorkloadRuntime {
  private readonly workloads = new Map<string, LocalWorkload>();
  private readonly registering = new Map<string, Promise<LocalWorkload>>();
  private readonly uids?: UidPool;

  constructor(private readonly options: LocalRuntimeOptions) {
    if (options.uidRange) this.uids = new UidPool(options.uidRange);
  }

  get sharesHostNetwork(): boolean {
    return !this.options.sandbox && !this.options.launcher;
  }

  start(spec: WorkloadSpec, options: StartOptions): Promise<StartedRuntimeWorkload> {
    // One start of a connector at a time up to its registration: opening a server awaits (its
    // network), and two concurrent starts must share one server, not open two.
    const id = spec.connectorId;
    const registered = (this.registering.get(id) ?? Promise.resolve()).catch(() => undefined).then(() => this.register(spec, options));
    this.registering.set(id, registered);
    void registered.catch(() => undefined).finally(() => {
      if (this.registering.get(id) === registered) this.registering.delete(id);
    });
    return registered.then((workload) => workload.started);
  }

  private async register(spec: WorkloadSpec, options: StartOptions): Promise<LocalWorkload> {
    const digest = envDigest(spec);
    for (;;) {
      const existing = this.workloads.get(spec.connectorId);
      if (!existing) break;
      // A server that has ended, or that holds another env (the connect brought a new token),
      // is not reused: a server reads its env once. Clear it away and start a fresh one.
      if (existing.envDigest === digest && !(await hasExited(existing))) return existing;
      await this.remove(spec.connectorId);
    }
    const server = await this.openServer(spec, options.signal);
    const logger = this.options.logger.child({ connectorId: spec.connectorId });
    // The secret keeps other local processes from driving the server through its gateway.
    const gatewaySecret = newGatewaySecret();
    const gateway = startGateway({ source: server.source, host: '127.0.0.1', port: 0, maxSessions: this.options.gatewayMaxSessions, logger, secret: gatewaySecret });
    const workload: LocalWorkload = { server, envDigest: digest, gateway, started: Promise.resolve({ target: '', gatewaySecret }) };
    workload.started = this.bringUp(spec.connectorId, workload, gatewaySecret, options);
    this.workloads.set(spec.connectorId, workload);
    return workload;
  }

  async watch(connectorId: string, options: { heartbeat: () => void; signal: AbortSignal }): Promise<WatchResult> {
    const workload = this.workloads.get(connectorId);
    if (!workload) return { kind: 'missing' };
    options.signal.throwIfAborted();
    const exited = workload.gateway.then(
      async (gateway) => (await gateway.exited).reason,
      (error: Error) => `the gateway failed to start: ${error.message}`,
    );
    const timer = setInterval(options.heartbeat, this.options.heartbeatIntervalMs ?? 1_000);
    try {
      return { kind: 'exited', reason: await untilAborted(exited, options.signal) };
    } finally {
      clearInterval(timer);
    }
  }

  async remove(connectorId: string): Promise<void> {
    const workload = this.workloads.get(connectorId);
    if (!workload) return;
    this.workloads.delete(connectorId);
    await this.dispose(workload);
  }

  /** Whether a workload of this connector is known here (starting or running). */
  has(connectorId: string): boolean {
    return this.workloads.has(connectorId);
  }

  /** The server's working directory: for tests and diagnostics. */
  scratchDir(connectorId: string): string | undefined {
    return this.workloads.get(connectorId)?.server.scratchDir;
  }

  async reconcile(isConnected: (connectorId: string) => Promise<boolean>): Promise<string[]> {
    const graceMs = this.options.reconcileGraceMs ?? 60_000;
    const removed: string[] = [];
    for (const [connectorId, workload] of [...this.workloads]) {
      if (workload.readyAt === undefined || Date.now() - workload.readyAt < graceMs) continue;
      if (await isConnected(connectorId)) continue;
      // The connector may have started a new workload while we asked.
      if (this.workloads.get(connectorId) !== workload) continue;
      await this.remove(connectorId);
      removed.push(connectorId);
    }
    return removed;
  }

  async close(): Promise<void> {
    await Promise.all([...this.workloads.keys()].map((id) => this.remove(id)));
  }

  /** The stdio server's process id (also its process group): for tests and diagnostics. */
  pid(connectorId: string): number | undefined {
    return this.workloads.get(connectorId)?.server.source.pid;
  }

  /** The stdio server's own uid, when servers are isolated: for tests and diagnostics. */
  uid(connectorId: string): number | undefined {
    return this.workloads.get(connectorId)?.server.uid;
  }

  /** The egress network the server joined, if its preset allows egress: for tests and diagnostics. */
  network(connectorId: string): EgressNetwork | null | undefined {
    return this.workloads.get(connectorId)?.server.network;
  }

  /**
   * The server's process with everything it holds: its uid (checked to reach its command), its
   * network, its scratch folder. A failure half-way gives back what was taken.
   */
  private async openServer(spec: WorkloadSpec, signal?: AbortSignal): Promise<ServerProcess> {
    const network = await this.networkFor(spec, signal);
    const launch = (this.options.launcher ?? hostProcessLauncher)(spec, network);
    let uid: number | undefined;
    try {
      uid = this.uids ? await this.takeUid(launch.command, launch.args, launch.env) : undefined;
      return createServerProcess({
        launch, uid, network, sandbox: this.options.sandbox === true, stderr: this.options.serverStderr ?? 'log',
        logger: this.options.logger.child({ connectorId: spec.connectorId }),
      });
    } catch (error) {
      if (uid !== undefined) this.uids!.release(uid);
      await network?.close();
      throw error;
    }
  }

  /** The filtered network a server whose preset allows egress joins; null when it gets none (or shares the host's). */
  private async networkFor(spec: WorkloadSpec, signal?: AbortSignal): Promise<EgressNetwork | null> {
    const allowedNetworks = parseWorkloadNetworks(spec.stdio.allowed_networks ?? []);
    const internet = spec.stdio.internet === true;
    if (!internet && allowedNetworks.length === 0) return null;
    // Unisolated (single tenant, said at start): the server shares this machine's network.
    if (this.sharesHostNetwork) return null;
    if (!this.options.egress) {
      throw new WorkloadSpecError(
        'the preset allows the stdio server egress (internet or allowed_networks), but this machine cannot filter a server\'s traffic: ' +
        'install slirp4netns, nftables and iproute2 (Debian packages)',
      );
    }
    return this.options.egress.open({ internet, allowedNetworks }, signal);
  }

  /** A uid for a new server, once its command is known to be within a foreign uid's reach. */
  private async takeUid(program: string, args: string[], env: Record<string, string>): Promise<number> {
    const closed = commandClosedToOthers(program, args, env.PATH ?? isolatedPath(), '/');
    if (closed) throw new WorkloadSpecError(closed);
    const uid = this.uids!.acquire();
    // Left over from a worker that ended without cleaning up: never the next server's to read.
    await removeFilesOf(uid).catch((error: unknown) => {
      this.uids!.release(uid);
      throw error;
    });
    return uid;
  }

  /** Stops the server (its gateway kills its process group) and gives back what it held. */
  private async dispose(workload: LocalWorkload): Promise<void> {
    const gateway = await workload.gateway.catch(() => undefined);
    // A start still waiting sees the exit and fails.
    await gateway?.close();
    if (!(await releaseServer(workload.server, this.uids))) {
      this.options.logger.error({ uid: workload.server.uid }, 'processes of a stopped stdio server would not die; its uid is not reused');
    }
  }

  private async bringUp(connectorId: string, workload: LocalWorkload, gatewaySecret: string, options: StartOptions): Promise<StartedRuntimeWorkload> {
    try {
      const gateway = await workload.gateway;
      await waitReady(gateway, options.readinessTimeoutMs, options.signal);
      workload.readyAt = Date.now();
      this.options.logger.info({ connectorId, target: gateway.url }, 'local stdio workload ready');
      return { target: gateway.url, gatewaySecret };
    } catch (error) {
      // Only this attempt's workload: a remove() and a newer start may have replaced it already.
      if (this.workloads.get(connectorId) === workload) this.workloads.delete(connectorId);
      await this.dispose(workload);
      throw error;
    }
  }
}

function waitReady(gateway: Gateway, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const notReady = gateway.ready.catch(async () => {
    throw new WorkloadExitedError((await gateway.exited).reason);
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new WorkloadTimeoutError(readinessTimeoutMessage(timeoutMs))), timeoutMs);
  });
  const ready = Promise.race([notReady, timeout]).finally(() => clearTimeout(timer));
  return signal ? untilAborted(ready, signal) : ready;
}

async function hasExited(workload: LocalWorkload): Promise<boolean> {
  const gateway = await workload.gateway.catch(() => undefined);
  return !gateway || gateway.health().state === 'exited' || gateway.health().state === 'closed';
}

function envDigest(spec: WorkloadSpec): string {
  const env = workloadEnv(spec);
  const sorted = Object.keys(env).sort().map((k) => [k, env[k]]);
  return createHash('sha256').update(JSON.stringify([sorted, { ...spec.stdio, env: undefined }])).digest('hex');
}
