// Whether this machine can run the sandbox (sandbox.ts) and open egress networks
// (egress-network.ts), found by trying once at start rather than by looking for programs: a
// container without CAP_SYS_ADMIN, a kernel without user-mode networking or nftables, a seccomp
// profile that forbids unshare all fail here, with the tool's own words.
import { execFile } from 'node:child_process';
import { chownSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { EgressNetworks } from './egress-network';
import { sandboxed } from './sandbox';
import { makeScratchDir } from './scratch-dir';

const exec = promisify(execFile);
const PROBE_TIMEOUT_MS = 15_000;

/** null when a server can run in the sandbox as `uid`; else why not, as a sentence for the operator. */
export async function checkSandbox(uid: number): Promise<string | null> {
  const scratchDir = makeScratchDir();
  try {
    chownSync(scratchDir, uid, uid);
    const probe = sandboxed({ command: 'true', args: [], env: {} }, { uid, gid: uid, scratchDir });
    await exec(probe.command, probe.args, { timeout: PROBE_TIMEOUT_MS, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    return null;
  } catch (error) {
    return `the stdio servers' sandbox cannot run here (bubblewrap and util-linux's setpriv, as root): ${failure(error)}`;
  } finally {
    rmSync(scratchDir, { recursive: true, force: true });
  }
}

/** Opens and closes one egress network: the programs, /dev/net/tun and nftables all answer. */
export async function checkEgress(networks: EgressNetworks): Promise<string | null> {
  try {
    const network = await networks.open({ internet: false, allowedNetworks: [] });
    await network.close();
    return null;
  } catch (error) {
    return `stdio servers cannot be given filtered egress here (slirp4netns, nftables and iproute2, as root): ${failure(error)}`;
  }
}

function failure(error: unknown): string {
  const e = error as { code?: string; stderr?: string; message?: string; path?: string };
  if (e.code === 'ENOENT') return `${e.path ?? 'a program'} is not installed`;
  return (e.stderr?.trim() || e.message || String(error)).split('\n').filter(Boolean).at(-1) ?? 'unknown error';
}
