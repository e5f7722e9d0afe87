// What isolates stdio servers on this machine, from Debian's packages: bubblewrap (the local
// runtime's sandbox), slirp4netns, nftables and iproute2 (the filtered egress networks of local
// servers and podman containers). util-linux (setpriv, unshare, nsenter) is always there. Installed
// where this user may (root on Debian), as podman is; elsewhere the tests that need them say so.
import { existsSync } from 'node:fs';
import type { Logger } from '../../platform/logger';
import { systemProgram } from '../../activities/workloads/system-program';
import { aptGet } from './apt-get';
import { toolchainVariable } from './toolchain-env';

/** Each program, and the Debian package it comes in. */
export const SANDBOX_PACKAGES = { bwrap: 'bubblewrap', slirp4netns: 'slirp4netns', nft: 'nftables', ip: 'iproute2' } as const;

export type SandboxTools = { source: 'found' | 'installed'; path: string } | { source: 'skipped'; path: string };

export async function locateSandboxTools(options: { log: Logger }): Promise<SandboxTools> {
  const missing = () => Object.entries(SANDBOX_PACKAGES).filter(([program]) => !systemProgram(program).startsWith('/'));
  const before = missing();
  if (before.length === 0) return { source: 'found', path: Object.keys(SANDBOX_PACKAGES).map(systemProgram).join(', ') };
  const packages = before.map(([, pkg]) => pkg);
  if (toolchainVariable('CONNECTOR__INSTALL_PODMAN') === '0' || process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) {
    return { source: 'skipped', path: `missing ${packages.join(', ')} (apt-get install ${packages.join(' ')}, as root)` };
  }
  options.log.info({ packages }, 'installing the stdio sandbox\'s tools from Debian packages');
  await aptGet(['install', '-y', '-qq', ...packages], options).catch(async () => {
    // Package lists may be missing on a fresh machine.
    await aptGet(['update', '-qq'], options);
    await aptGet(['install', '-y', '-qq', ...packages], options);
  });
  const after = missing();
  if (after.length > 0) return { source: 'skipped', path: `still missing after install: ${after.map(([p]) => p).join(', ')}` };
  return { source: 'installed', path: packages.join(', ') };
}
