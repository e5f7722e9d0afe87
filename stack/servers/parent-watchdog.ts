// Node cannot ask the kernel to signal a child when its parent dies (no prctl PDEATHSIG), so each
// server gets a tiny `sh` watchdog whose stdin is a pipe from us. Nothing is ever written to it:
// when our process dies, however it dies, the kernel closes the pipe, `read` returns, and the
// watchdog cleans up. No polling while we live. The watchdog has a process group of its own, as
// the servers do (child-server.ts), so that a signal to ours does not take it: after a SIGKILL of
// our whole group it is what stops them. Should it be killed too, the pid files let the next start
// clean up.
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';

// $1: the server's pid. SIGTERM, then SIGKILL if it is still there after 10 s.
const KILL_SCRIPT = [
  'read _ignored',
  'kill -TERM "$1" 2>/dev/null || exit 0',
  'i=0',
  'while kill -0 "$1" 2>/dev/null && [ "$i" -lt 40 ]; do sleep 0.25; i=$((i + 1)); done',
  'kill -KILL "$1" 2>/dev/null',
  'exit 0',
].join('\n');

const RUN_SCRIPT = 'read _ignored\nexec "$@"';

export interface ParentWatchdog {
  /** Call once the job is done or being done by us, so the watchdog never acts on a reused pid or a deleted resource. */
  dispose(): void;
}

/** Stops `serverPid` when this process dies. */
export function killOnParentDeath(serverPid: number): ParentWatchdog {
  return startWatchdog([KILL_SCRIPT, 'connector-registry-watchdog', String(serverPid)]);
}

/** Runs `command args...` when this process dies. */
export function runOnParentDeath(command: string, args: string[], env?: NodeJS.ProcessEnv): ParentWatchdog {
  return startWatchdog([RUN_SCRIPT, 'connector-registry-watchdog', command, ...args], env);
}

function startWatchdog(shArgs: string[], env?: NodeJS.ProcessEnv): ParentWatchdog {
  const watchdog = spawn('sh', ['-c', ...shArgs], { stdio: ['pipe', 'ignore', 'ignore'], env: env ?? process.env, detached: true });
  // Neither the watchdog nor its pipe may keep our event loop alive.
  watchdog.unref();
  (watchdog.stdin as unknown as Socket).unref();
  // Without sh there is no watchdog; the pid files still let the next start clean up.
  watchdog.on('error', () => {});
  watchdog.stdin?.on('error', () => {});
  let disposed = false;
  return {
    dispose() {
      if (disposed) return;
      disposed = true;
      watchdog.kill('SIGKILL');
    },
  };
}
