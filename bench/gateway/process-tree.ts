// Resident memory of a process and all its descendants (a gateway and the stdio servers it
// started), from /proc.
import { readdirSync, readFileSync } from 'node:fs';
import { rssMb } from '../proxy/proc-memory';

export { waitForPort } from '../proxy/wait-for-port';

export function treeRssMb(root: number): number {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const ppid = parentOf(Number(name));
    if (ppid !== null) children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  let total = 0;
  const pending = [root];
  while (pending.length) {
    const pid = pending.pop()!;
    try {
      total += rssMb(pid);
    } catch {
      // gone meanwhile
    }
    pending.push(...(children.get(pid) ?? []));
  }
  return total;
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}
