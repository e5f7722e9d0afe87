// The processes that run as a given uid, found in /proc. A workload's uid is its own while it
// runs, so "every process of that uid" is exactly what the server started, including what
// escaped its process group (setsid, a daemon): stopping the workload kills them all before the
// uid can go to another connector, which would otherwise share a uid with the leftover.
import { readdirSync, readFileSync } from 'node:fs';

/** Real, effective, saved and filesystem uids of each live (non-zombie) process. */
function* processUids(): Generator<{ pid: number; uids: number[] }> {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let status: string;
    try {
      status = readFileSync(`/proc/${entry}/status`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    if (/^State:\s*Z/m.test(status)) continue;
    const uids = /^Uid:\s*(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/).map(Number) ?? [];
    yield { pid: Number(entry), uids };
  }
}

/** Every uid some live process holds, in any of its four uid slots. */
export function uidsInUse(): Set<number> {
  const used = new Set<number>();
  for (const { uids } of processUids()) for (const uid of uids) used.add(uid);
  return used;
}

/** SIGKILLs every live process holding `uid`; returns how many it signalled. */
function killProcessesOf(uid: number): number {
  let killed = 0;
  for (const { pid, uids } of processUids()) {
    if (!uids.includes(uid)) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed++;
    } catch {
      // ESRCH: gone meanwhile.
    }
  }
  return killed;
}

/**
 * Kills every process of `uid` and waits until none is left (a killed process holds its uid
 * until it is reaped); false if some still hold it after `waitMs`, and the uid must not be reused.
 */
export async function endProcessesOf(uid: number, waitMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    // Zombies are not counted: they run nothing and hold no file or memory any more.
    if (killProcessesOf(uid) === 0) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
