// What the local runtime holds for one server besides its gateway: the process source, the
// server's scratch folder, its uid and its egress network, acquired in that order and given back
// in the reverse one. A uid goes back to the pool only once no process of it is left and what it
// wrote is gone: the next connector to get it must find nothing of this one.
import type { Logger } from '../../platform/logger';
import { ProcessSource } from '../../gateway';
import type { EgressNetwork } from './egress-network';
import type { ServerLaunch } from './server-launch';
import { sandboxBaseEnv, sandboxed, withoutPrivileges } from './sandbox';
import { makeScratchDir, removeScratchDir } from './scratch-dir';
import { removeFilesOf } from './uid-leftovers';
import type { UidPool } from './uid-pool';
import { endProcessesOf } from './uid-processes';
import { isolatedBaseEnv, isolatedPath } from './workload-env';

export interface ServerProcess {
  source: ProcessSource;
  scratchDir: string;
  uid?: number;
  network: EgressNetwork | null;
}

export interface ServerProcessInput {
  launch: ServerLaunch;
  /** Taken (and checked) by the caller, given back by releaseServer. */
  uid?: number;
  network: EgressNetwork | null;
  sandbox: boolean;
  stderr: 'log' | 'inherit' | 'ignore';
  logger: Logger;
}

export function createServerProcess(input: ServerProcessInput): ServerProcess {
  const { launch, uid, network } = input;
  const scratchDir = makeScratchDir(uid === undefined ? undefined : { uid, gid: uid });
  const stderr = input.stderr === 'log' ? { log: input.logger } : input.stderr;
  const command = (): ServerLaunch & { base?: Record<string, string> } => {
    if (uid === undefined) return launch;
    if (input.sandbox) {
      const inner = sandboxed(launch, { uid, gid: uid, scratchDir, ...(network ? { network } : {}) });
      return { ...inner, base: sandboxBaseEnv(isolatedPath()) };
    }
    return { ...withoutPrivileges(launch, { uid, gid: uid }), base: isolatedBaseEnv(scratchDir) };
  };
  const run = command();
  const source = new ProcessSource({
    cwd: scratchDir,
    command: run.command,
    args: run.args,
    // Isolated, the server starts from nothing of this process's; else from the SDK's minimal set.
    ...(run.base ? { env: { ...run.base, ...run.env }, inheritDefaults: false } : { env: run.env }),
    stderr,
  });
  return { source, scratchDir, uid, network };
}

/**
 * After its gateway closed: the uid's other processes (escaped from the group; in the sandbox
 * its pid namespace took them already) die, its network closes, its files go, and only then may
 * the uid serve another connector. False when some process of the uid would not die: the uid is
 * then never given out again.
 */
export async function releaseServer(server: ServerProcess, uids: UidPool | undefined): Promise<boolean> {
  const ended = server.uid === undefined || (await endProcessesOf(server.uid));
  await server.network?.close();
  await removeScratchDir(server.scratchDir);
  if (server.uid === undefined || !ended) return ended;
  await removeFilesOf(server.uid);
  uids?.release(server.uid);
  return true;
}
