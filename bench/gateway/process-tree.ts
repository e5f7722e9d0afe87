// Resident memory of a process and all its descendants (a gateway and the stdio servers it
// started), from /proc.
import { readdirSync, readFileSync } from 'node:fs';
import { cpuMs } from '../proxy/cpu-time';
import { rssMb } from '../proxy/proc-memory';

export { waitForPort } from '../proxy/wait-for-port';

export function treeRssMb(root: number): number {
  let total = 0;
  for (const pid of treeOf(root)) {
    try {
      total += rssMb(pid);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** CPU time (user + system) the process and its descendants have used. */
export function treeCpuMs(root: number): number {
  return cpuMs(treeOf(root));
}

export function treeOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const ppid = parentOf(Number(name));
    if (ppid !== null) children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const tree: number[] = [];
  const pending = [root];
  while (pending.length) {
    const pid = pending.pop()!;
    tree.push(pid);
    pending.push(...(children.get(pid) ?? []));
  }
  return tree;
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}
