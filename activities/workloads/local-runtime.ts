// The embedded default: each connector's stdio server is a child process of this worker, served as
// Streamable HTTP by the project's gateway on a free loopback port. The registry lives in memory
// only: after a worker restart nothing is known here, watch answers 'missing', and the workflow
// (which owns the connector's state) starts the workload again.
//
// Given a uid range, each server runs as a uid of its own (local-isolation.ts says why and when):
// its scratch folder is its HOME and working directory, its environment only its own, and what
// it leaves behind (processes, files in the shared temporary directories) is gone before its
// uid goes to another connector. The gateway stays in this process: it holds nothing the worker
// does not hold already (the token, the gateway secret), and the server cannot read this process.
import { createHash } from 'node:crypto';
import type { UidRange } from '../../config/config';
import type { Logger } from '../../platform/logger';
import { ProcessSource, startGateway, type Gateway } from '../../gateway';
import { readinessTimeoutMessage, WorkloadExitedError, WorkloadSpecError, WorkloadTimeoutError } from './errors';
import { newGatewaySecret } from './gateway-secret';
import type { StartedRuntimeWorkload, StartOptions, WatchResult, WorkloadRuntime, WorkloadSpec } from './runtime';
import { commandClosedToOthers } from './others-can-reach';
import { makeScratchDir, removeScratchDir } from './scratch-dir';
import { untilAborted } from './until-aborted';
import { removeFilesOf } from './uid-leftovers';
import { UidPool } from './uid-pool';
import { endProcessesOf } from './uid-processes';
import { isolatedBaseEnv, isolatedPath, workloadEnv } from './workload-env';

export interface LocalRuntimeOptions {
  logger: Logger;
  /** Where the servers' stderr goes; default 'inherit' (the worker's own stderr). */
  serverStderr?: 'inherit' | 'ignore';
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
  /** How a spec becomes the process the gateway runs; default: the preset's command, on this host. */
  launcher?: ServerLauncher;
}

/** The process behind one workload's gateway: the server itself, or an engine that runs it in a container. */
export interface ServerLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}
export type ServerLauncher = (spec: WorkloadSpec) => ServerLaunch;

/** The local runtime's own launcher: the preset's command as a child process of this worker. */
export function hostProcessLauncher(spec: WorkloadSpec): ServerLaunch {
  const [program, ...commandArgs] = spec.stdio.command ?? [];
  if (!program) {
    throw new WorkloadSpecError('a preset without command cannot run as a local process: it needs the container or the Kubernetes runtime (CONNECTOR__STDIO_RUNTIME)');
  }
  return { command: program, args: [...commandArgs, ...(spec.stdio.args ?? [])], env: workloadEnv(spec.stdio, spec.token) };
}

interface LocalWorkload {
  source: ProcessSource;
  /** The server's own scratch directory: never the service's working directory or DATA_DIR (the key lives there). */
  scratchDir: string;
  /** The server's own uid (also its gid), when servers are isolated. */
  uid?: number;
  /** A digest of the env it was started with: a different env (a new token) needs a new server. */
  envDigest: string;
  gateway: Promise<Gateway>;
  /** Settles once the server is ready (or has failed to become so). */
  started: Promise<StartedRuntimeWorkload>;
  /** When it became ready (Date.now()); undefined while starting. */
  readyAt?: number;
}

export class LocalRuntime implements WorkloadRuntime {
  private readonly workloads = new Map<string, LocalWorkload>();
  private readonly uids?: UidPool;

  constructor(private readonly options: LocalRuntimeOptions) {
    if (options.uidRange) this.uids = new UidPool(options.uidRange);
  }

  async start(spec: WorkloadSpec, options: StartOptions): Promise<StartedRuntimeWorkload> {
    const launch = (this.options.launcher ?? hostProcessLauncher)(spec);
    const digest = envDigest(launch.env);
    for (;;) {
      const existing = this.workloads.get(spec.connectorId);
      if (!existing) break;
      // A server that has ended, or that holds another env (the connect brought a new token),
      // is not reused: a server reads its env once. Clear it away and start a fresh one.
      if (existing.envDigest === digest && !(await hasExited(existing))) return existing.started;
      await this.remove(spec.connectorId);
    }
    const uid = this.uids ? this.takeUid(launch.command, launch.args, launch.env) : undefined;
    let scratchDir: string;
    try {
      scratchDir = makeScratchDir(uid === undefined ? undefined : { uid, gid: uid });
    } catch (error) {
      if (uid !== undefined) this.uids!.release(uid);
      throw error;
    }
    const source = new ProcessSource({
      cwd: scratchDir,
      command: launch.command,
      args: launch.args,
      // Isolated, the server starts from nothing of this process's; else from the SDK's minimal set.
      ...(uid === undefined ? { env: launch.env } : { env: { ...isolatedBaseEnv(scratchDir), ...launch.env }, inheritDefaults: false, uid, gid: uid }),
      stderr: this.options.serverStderr ?? 'inherit',
    });
    const logger = this.options.logger.child({ connectorId: spec.connectorId });
    // Loopback is open to every local process: the secret keeps them from driving the server.
    const gatewaySecret = newGatewaySecret();
    const gateway = startGateway({ source, host: '127.0.0.1', port: 0, maxSessions: this.options.gatewayMaxSessions, logger, secret: gatewaySecret });
    const workload: LocalWorkload = { source, scratchDir, uid, envDigest: digest, gateway, started: Promise.resolve({ target: '', gatewaySecret }) };
    workload.started = this.bringUp(spec.connectorId, workload, gatewaySecret, options);
    this.workloads.set(spec.connectorId, workload);
    return workload.started;
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
    return this.workloads.get(connectorId)?.scratchDir;
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
    return this.workloads.get(connectorId)?.source.pid;
  }

  /** The stdio server's own uid, when servers are isolated: for tests and diagnostics. */
  uid(connectorId: string): number | undefined {
    return this.workloads.get(connectorId)?.uid;
  }

  /** A uid for a new server, once its command is known to be within a foreign uid's reach. */
  private takeUid(program: string, args: string[], env: Record<string, string>): number {
    const closed = commandClosedToOthers(program, args, env.PATH ?? isolatedPath(), '/');
    if (closed) throw new WorkloadSpecError(closed);
    const uid = this.uids!.acquire();
    // Left over from a worker that ended without cleaning up: never the next server's to read.
    removeFilesOf(uid);
    return uid;
  }

  /**
   * Stops the server and removes what it had. Its gateway kills the server's process group; the
   * uid's other processes (escaped from the group) die here, and only then may the uid serve
   * another connector. A uid whose processes outlive the wait is never given out again.
   */
  private async dispose(workload: LocalWorkload): Promise<void> {
    const gateway = await workload.gateway.catch(() => undefined);
    // A start still waiting sees the exit and fails.
    await gateway?.close();
    if (workload.uid !== undefined && !(await endProcessesOf(workload.uid))) {
      this.options.logger.error({ uid: workload.uid }, 'processes of a stopped stdio server would not die; its uid is not reused');
      await removeScratchDir(workload.scratchDir);
      return;
    }
    await removeScratchDir(workload.scratchDir);
    if (workload.uid !== undefined) {
      removeFilesOf(workload.uid);
      this.uids!.release(workload.uid);
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

function envDigest(env: Record<string, string>): string {
  const sorted = Object.keys(env).sort().map((k) => [k, env[k]]);
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}
