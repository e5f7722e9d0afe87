// CPU time (user + system) that processes have used, from /proc: the cost of a proxy per request
// is steadier than its throughput on a machine shared with the load generator and the upstream.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

export function cpuMs(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    const fields = statFields(pid);
    if (fields) total += (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  }
  return total;
}

/** A process and its direct children (nginx's master and workers). */
export function withChildren(pid: number): number[] {
  const children = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((child) => statFields(child)?.[1] === String(pid));
  return [pid, ...children];
}

/** Fields after the command name: [0] state, [1] ppid, ... [11] utime, [12] stime. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  } catch {
    return null;
  }
}
