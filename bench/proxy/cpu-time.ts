// CPU time (user + system) that processes have used, from /proc: the cost of a proxy per request
// is steadier than its throughput on a machine shared with the load generator and the upstream.
import { readdirSync } from 'node:fs';
import { cpuMsOf, readStat } from '../proc-stat';

export function cpuMs(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    const stat = readStat(`/proc/${pid}/stat`);
    if (stat) total += cpuMsOf(stat);
  }
  return total;
}

/** A process and its direct children (nginx's master and workers). */
export function withChildren(pid: number): number[] {
  const children = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((child) => readStat(`/proc/${child}/stat`)?.fields[1] === String(pid));
  return [pid, ...children];
}
