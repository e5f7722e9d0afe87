// A network namespace with a way out: for a stdio server whose preset allows the internet or some
// private networks. A holder process keeps the namespace alive; root loads its packet filter
// (egress-rules.ts) before anything else enters it; slirp4netns (the user-mode network stack
// rootless podman uses, a Debian package) then gives it a tap device whose packets it replays as
// connections of its own from the host, so the namespace needs no route, bridge or NAT on the
// host. The host's loopback stays out of reach twice: slirp4netns does not forward to it
// (--disable-host-loopback), and the filter refuses loopback and the host's own addresses. The
// server (local sandbox or container) joins the namespace by its path.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readlinkSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkloadExitedError } from './errors';
import { EGRESS_TABLE, egressRuleset, STACK_DNS, type EgressPolicy } from './egress-rules';
import { systemProgram } from './system-program';
import { untilAborted } from './until-aborted';

export interface EgressNetwork {
  /** `/proc/<holder>/ns/net`: what nsenter and the engine's `--network ns:` join. */
  namespace: string;
  /** A resolv.conf naming the stack's DNS forwarder (the host's own may name an address the filter refuses). */
  resolvConf: string;
  /** The policy it was opened with, for logs and tests. */
  policy: EgressPolicy;
  close(): Promise<void>;
}

/** The programs an egress network needs, each from a Debian package. */
export const EGRESS_PROGRAMS = { unshare: 'util-linux', setpriv: 'util-linux', ip: 'iproute2', nft: 'nftables', 'slirp4netns': 'slirp4netns' } as const;

// Holds the namespace: the loopback up, the filter read from stdin and read back, then nothing but
// waiting. The programs come as arguments ($1 ip, $2 nft, $3 sleep), by absolute path.
const HOLDER_SCRIPT = `"$1" link set lo up && "$2" -f - && "$2" list table inet ${EGRESS_TABLE} >/dev/null && echo ready && exec "$3" infinity`;
const READY_TIMEOUT_MS = 15_000;

export class EgressNetworks {
  private resolvConf?: string;

  /** Opens a namespace whose filter allows what `wanted` says; the host's addresses are added here. */
  async open(wanted: Omit<EgressPolicy, 'hostAddresses'>, signal?: AbortSignal): Promise<EgressNetwork> {
    const policy: EgressPolicy = { ...wanted, hostAddresses: hostAddresses() };
    const programs = ['ip', 'nft', 'sleep'].map(systemProgram);
    const holder = spawnKilledWithUs('unshare', ['--net', '--', '/bin/sh', '-c', HOLDER_SCRIPT, 'holder', ...programs], ['pipe', 'pipe', 'pipe']);
    const processes: ChildProcess[] = [holder];
    const close = async () => {
      for (const child of processes) child.kill('SIGKILL');
      await Promise.all(processes.map((child) => (child.exitCode === null && child.signalCode === null ? once(child, 'exit') : undefined)));
    };
    try {
      // A holder that could not start (no setpriv, unshare or permission) closes its stdin: its exit says why.
      holder.stdin!.on('error', () => undefined);
      holder.stdin!.end(egressRuleset(policy));
      await ready(holder, holder.stdout!, 'the namespace holder', signal);
      const namespace = `/proc/${holder.pid}/ns/net`;
      // Never the host's own namespace: the filter and the stack would be the host's then.
      if (readlinkSync(namespace) === readlinkSync('/proc/self/ns/net')) throw new Error('the holder did not get a network namespace of its own');
      const stack = spawnKilledWithUs('slirp4netns', [
        '--configure', '--mtu=65520', '--disable-host-loopback', '--enable-sandbox', '--enable-seccomp', '--ready-fd=3',
        String(holder.pid), 'tap0',
      ], ['ignore', 'ignore', 'pipe', 'pipe']);
      processes.push(stack);
      await ready(stack, stack.stdio[3] as NodeJS.ReadableStream, 'slirp4netns', signal);
      return { namespace, resolvConf: this.ensureResolvConf(), policy, close };
    } catch (error) {
      await close();
      if (signal?.aborted) throw error;
      throw error instanceof WorkloadExitedError ? error : new WorkloadExitedError(`the stdio server's egress network could not be set up: ${(error as Error).message}`);
    }
  }

  private ensureResolvConf(): string {
    if (!this.resolvConf) {
      const file = join(mkdtempSync(join(tmpdir(), 'connector-egress-')), 'resolv.conf');
      writeFileSync(file, `nameserver ${STACK_DNS}\n`, { mode: 0o644 });
      this.resolvConf = file;
    }
    return this.resolvConf;
  }
}

/** Every address of this machine's interfaces but loopback's (refused anyway). */
export function hostAddresses(): string[] {
  return Object.values(networkInterfaces()).flat().filter((i) => i && !i.internal).map((i) => i!.address.split('%')[0]!);
}

/** setpriv's parent-death signal: a worker that dies takes its namespaces and stacks with it. */
function spawnKilledWithUs(program: string, args: string[], stdio: Array<'pipe' | 'ignore'>): ChildProcess {
  return spawn(systemProgram('setpriv'), ['--pdeathsig', 'KILL', '--', systemProgram(program), ...args], { stdio });
}

/** Resolves once `stream` says something (the holder's "ready", slirp4netns's "1"); rejects if the process ends first. */
async function ready(child: ChildProcess, stream: NodeJS.ReadableStream, what: string, signal?: AbortSignal): Promise<void> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-2_000); });
  let timer: NodeJS.Timeout | undefined;
  const outcome = new Promise<void>((resolve, reject) => {
    stream.once('data', () => resolve());
    child.once('error', (error) => reject(new Error(`${what} could not start: ${error.message}`)));
    child.once('exit', (code, sig) => reject(new Error(`${what} ended (${code ?? sig}): ${stderr.trim().split('\n').at(-1) ?? ''}`)));
    timer = setTimeout(() => reject(new Error(`${what} was not ready within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
  }).finally(() => clearTimeout(timer));
  await (signal ? untilAborted(outcome, signal) : outcome);
}
