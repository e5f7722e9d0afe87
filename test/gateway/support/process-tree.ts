// Which processes are alive in a process group, read from /proc (Linux). Zombies do not count:
// the machine's init may leave reparented orphans unreaped, and a zombie runs nothing.
import { readdirSync, readFileSync } from 'node:fs';

export function liveProcessesInGroup(pgid: number): number[] {
  const alive: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat && stat.pgrp === pgid && stat.state !== 'Z') alive.push(Number(entry));
  }
  return alive;
}

function readStat(pid: string): { state: string; pgrp: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses; the fields after the last ')' do not.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', pgrp: Number(fields[2]) };
  } catch {
    return undefined;
  }
}
