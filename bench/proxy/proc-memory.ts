// Resident memory of a process, from /proc (the kernel's figure, heap and native memory alike).
import { readFileSync } from 'node:fs';

export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kb ? Number(kb) / 1024 : NaN;
}
