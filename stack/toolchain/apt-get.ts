// apt-get as the toolchain runs it: unattended, and patient with the package database's locks. A
// fresh machine's apt-daily or unattended-upgrades, or a second toolchain run beside this one (seen
// here), may hold them for minutes, and apt-get fails at once on the lists' lock whatever
// DPkg::Lock::Timeout says, so the wait is here.
import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { Logger } from '../../platform/logger';

const exec = promisify(execFile);
const LOCKED = /Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock/;
const LOCK_WAIT_MS = 10 * 60_000;
const RETRY_MS = 5_000;
const SAY_EVERY = 12;

export interface AptGetOptions {
  log: Logger;
  cwd?: string;
  /** How long a lock held by another process is waited for before its error is thrown. */
  lockWaitMs?: number;
  retryMs?: number;
}

export async function aptGet(args: string[], options: AptGetOptions): Promise<{ stdout: string; stderr: string }> {
  const deadline = Date.now() + (options.lockWaitMs ?? LOCK_WAIT_MS);
  for (let tries = 0; ; tries++) {
    try {
      return await exec('apt-get', args, { cwd: options.cwd, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, maxBuffer: 64 * 1024 * 1024 });
    } catch (err) {
      const stderr = String((err as { stderr?: unknown }).stderr ?? '');
      if (!LOCKED.test(stderr) || Date.now() >= deadline) throw err;
      if (tries % SAY_EVERY === 0) options.log.info({ held: stderr.trim().split('\n')[0] }, `apt-get ${args[0]}: waiting for another process to let go of the package database`);
      await sleep(options.retryMs ?? RETRY_MS);
    }
  }
}
