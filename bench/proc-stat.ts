// One reader of /proc's stat files for the benches' CPU and process-tree figures (Linux only).
import { readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

export interface Stat {
  comm: string;
  /** The fields after the command name: [0] state, [1] ppid, ... [11] utime, [12] stime. */
  fields: string[];
}

/** A process's (`/proc/<pid>/stat`) or thread's (`/proc/<pid>/task/<tid>/stat`) stat, or null when it is gone. */
export function readStat(file: string): Stat | null {
  try {
    const stat = readFileSync(file, 'utf8');
    // The command name may itself hold spaces and parentheses: it ends at the last ')'.
    return { comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), fields: stat.slice(stat.lastIndexOf(')') + 2).split(' ') };
  } catch {
    return null;
  }
}

/** CPU time (user + system) in ms that a stat counts. */
export function cpuMsOf(stat: Stat): number {
  return (Number(stat.fields[11]) + Number(stat.fields[12])) * TICK_MS;
}
