// The sandbox of a local stdio server: bubblewrap (the sandbox Flatpak uses, a Debian package)
// runs it in namespaces of its own, and util-linux's setpriv drops it to its own uid with no
// privileges left to gain. What that takes away from a hostile server, each a finding it once had:
//   - the network: a namespace of its own with only its own loopback, so the embedded Temporal
//     and FerretDB, the API, the proxy, the metrics port and the other servers' gateways, all on the
//     host's loopback, are not there at all; egress, when its preset allows some, goes through a
//     namespace the egress network (egress-network.ts) filters;
//   - the file system: read-only everywhere but its own /tmp (its scratch folder, HOME and
//     TMPDIR; of the host's /tmp only what its launch names shows, read-only) and small private tmpfs for /var/tmp and /dev/shm, so nothing it writes outlives it
//     where another uid could find it (a world-writable folder, a setuid copy of a shell);
//   - privileges: PR_SET_NO_NEW_PRIVS, no capabilities, not even in the bounding set, so a setuid
//     or file-capability binary runs with the caller's rights;
//   - other processes: a pid namespace (it sees its own processes only, and whatever it starts
//     dies with it), and IPC and UTS namespaces.
// bwrap runs as root here (the service switches uids anyway); it keeps only CAP_SETUID and
// CAP_SETGID for setpriv, which gives them up with the switch.
import type { ServerLaunch } from './server-launch';
import { systemProgram } from './system-program';
import { SCRATCH_PREFIX } from './scratch-dir';

/** Where the sandbox puts the server's own folder; HOME, TMPDIR and the working directory. */
export const SANDBOX_HOME = '/tmp';
const SHM_BYTES = 64 * 1024 * 1024;
const VAR_TMP_BYTES = 16 * 1024 * 1024;

export interface SandboxOptions {
  uid: number;
  gid: number;
  /** The server's scratch folder on the host, owned by its uid: mounted as its /tmp. */
  scratchDir: string;
  /**
   * A network namespace to join (`/proc/<pid>/ns/net` of an egress network) and the resolv.conf
   * that names its DNS; absent: a namespace of its own with nothing but loopback.
   */
  network?: { namespace: string; resolvConf: string };
}

/** The command that runs `launch` inside the sandbox; its env is the server's own, passed through. */
export function sandboxed(launch: ServerLaunch, options: SandboxOptions): ServerLaunch {
  const dropped = withoutPrivileges(launch, options);
  const bwrap = [systemProgram('bwrap'), ...bwrapArgs(options), ...hiddenLaunchPaths(launch), '--', dropped.command, ...dropped.args];
  // nsenter execs bwrap in place: the pid the gateway signals stays bwrap's.
  const command = options.network ? [systemProgram('nsenter'), `--net=${options.network.namespace}`, '--', ...bwrap] : bwrap;
  return { command: command[0]!, args: command.slice(1), env: launch.env };
}

function bwrapArgs(options: SandboxOptions): string[] {
  return [
    // SIGKILL when the worker dies; the pid namespace takes whatever the server started with it.
    '--die-with-parent', '--new-session',
    '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
    ...(options.network ? [] : ['--unshare-net']),
    '--ro-bind', '/', '/',
    '--dev', '/dev', '--proc', '/proc', '--mqueue', '/dev/mqueue',
    '--perms', '1777', '--size', String(SHM_BYTES), '--tmpfs', '/dev/shm',
    '--perms', '1777', '--size', String(VAR_TMP_BYTES), '--tmpfs', '/var/tmp',
    '--bind', options.scratchDir, SANDBOX_HOME,
    ...(options.network ? ['--ro-bind', options.network.resolvConf, '/etc/resolv.conf'] : []),
    '--chdir', SANDBOX_HOME,
    '--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID',
  ];
}

/**
 * The folders under the host's /tmp that the launch names (its program, a script among its
 * arguments), bound again, read-only, over the scratch folder that hides the rest of /tmp: a
 * service installed under /tmp (a clone there, say) runs its servers from its own node_modules.
 * Each is its top folder in /tmp; what is in it keeps its own permissions (another uid's
 * scratch folder stays closed to this one).
 */
function hiddenLaunchPaths(launch: ServerLaunch): string[] {
  const under = `${SANDBOX_HOME}/`;
  const tops = new Set<string>();
  for (const word of [launch.command, ...launch.args]) {
    if (!word.startsWith(under)) continue;
    const top = word.slice(under.length).split('/')[0];
    // Never another server's scratch folder (0700 for its own uid anyway), whatever a launch names.
    if (top && top !== '.' && top !== '..' && !top.startsWith(SCRATCH_PREFIX)) tops.add(`${under}${top}`);
  }
  return [...tops].flatMap((top) => ['--ro-bind-try', top, top]);
}

/**
 * `launch` as `uid` with no privilege to gain: setpriv switches uid and gid, drops the
 * supplementary groups and every capability (the bounding set too) and sets PR_SET_NO_NEW_PRIVS
 * before it execs the server. Also outside the sandbox, where servers only get uids of their own.
 */
export function withoutPrivileges(launch: ServerLaunch, ids: { uid: number; gid: number }): ServerLaunch {
  return {
    command: systemProgram('setpriv'),
    args: [
      `--reuid=${ids.uid}`, `--regid=${ids.gid}`, '--clear-groups', '--no-new-privs', '--inh-caps=-all', '--bounding-set=-all',
      '--', launch.command, ...launch.args,
    ],
    env: launch.env,
  };
}

/** What a server run in the sandbox starts with, before its preset's env: nothing of the service's. */
export function sandboxBaseEnv(path: string): Record<string, string> {
  return { PATH: path, HOME: SANDBOX_HOME, TMPDIR: SANDBOX_HOME };
}
