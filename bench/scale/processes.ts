// Resident memory of the service's process tree (the Node process and the servers it started),
// and the size of DATA_DIR, read from /proc and the file system.
import fs from 'node:fs';
import path from 'node:path';

export interface Tree { node: number; nodePeak: number; temporal: number | null; ferretdb: number | null }

/** VmRSS (or VmHWM, its peak so far) in MB of one process, or null when it is gone. */
export function rssMb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number | null {
  try {
    const kb = new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}

/** The service's Node process and its Temporal and FerretDB children (found by parent and name). */
export function serviceTree(nodePid: number): { node: number; temporal?: number; ferretdb?: number } {
  const out: { node: number; temporal?: number; ferretdb?: number } = { node: nodePid };
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = /\(([^)]*)\)/.exec(stat)?.[1] ?? '';
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== nodePid) continue;
      if (comm.startsWith('temporal')) out.temporal = Number(entry);
      if (comm.startsWith('ferretdb')) out.ferretdb = Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export function treeRss(nodePid: number): Tree {
  const t = serviceTree(nodePid);
  return { node: rssMb(t.node) ?? NaN, nodePeak: rssMb(t.node, 'VmHWM') ?? NaN, temporal: t.temporal ? rssMb(t.temporal) : null, ferretdb: t.ferretdb ? rssMb(t.ferretdb) : null };
}

export function dirSizeMb(dir: string): number {
  let bytes = 0;
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) bytes += fs.statSync(p).size;
    }
  };
  walk(dir);
  return bytes / 1024 / 1024;
}
