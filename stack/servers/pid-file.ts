// One pid file per server under its data dir. If our process was killed and its server survived
// it (a SIGKILL of the parent alone), the survivor still holds the port and the database; the next
// start finds it through the pid file and stops it. The pid is only trusted when the process's
// command line still names this server and this data dir, since pids are reused.
import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { Logger } from '../../platform/logger';
import { isAlive } from '../toolchain/process-alive';

const TERM_GRACE_MS = 10_000;
const KILL_GRACE_MS = 5_000;

export async function writePidFile(pidFile: string, pid: number): Promise<void> {
  await writeFile(pidFile, `${pid}\n`);
}

/** Removes the pid file only if it still names `pid`: a newer server may have replaced it. */
export async function removePidFile(pidFile: string, pid: number): Promise<void> {
  if ((await readPid(pidFile)) === pid) await rm(pidFile, { force: true });
}

/** Stops a leftover server named by the pid file, if it is alive and its command line has every one of `identityArgs`. */
export async function stopLeftover(pidFile: string, identityArgs: string[], log: Logger): Promise<void> {
  const pid = await readPid(pidFile);
  if (pid === undefined) return;
  const commandLine = isAlive(pid) ? await readCommandLine(pid) : undefined;
  if (commandLine !== undefined && identityArgs.every((arg) => commandLine.includes(arg))) {
    log.warn({ leftoverPid: pid, pidFile }, 'stopping a leftover server from an earlier run');
    await terminate(pid);
  }
  await rm(pidFile, { force: true });
}

async function terminate(pid: number): Promise<void> {
  if (await signalAndWait(pid, 'SIGTERM', TERM_GRACE_MS)) return;
  if (await signalAndWait(pid, 'SIGKILL', KILL_GRACE_MS)) return;
  throw new Error(`process ${pid} survived SIGKILL`);
}

async function signalAndWait(pid: number, signal: NodeJS.Signals, graceMs: number): Promise<boolean> {
  try {
    process.kill(pid, signal);
  } catch {
    return true;
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await sleep(50);
  }
  return !isAlive(pid);
}

async function readPid(pidFile: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await readFile(pidFile, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

// Joined with spaces so that callers can match arguments as substrings on Linux and macOS alike.
async function readCommandLine(pid: number): Promise<string | undefined> {
  try {
    const raw = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    return raw.split('\0').join(' ');
  } catch {
    // No /proc (macOS): ask ps.
  }
  try {
    const { stdout } = await promisify(execFile)('ps', ['-o', 'command=', '-p', String(pid)]);
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}
