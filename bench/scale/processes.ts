// Resident memory of the service's process tree (the Node process and the servers it started),
// and the size of DATA_DIR, read from /proc and the file system.
import fs from 'node:fs';
import path from 'node:path';
import { cpuMsOf, readStat } from '../proc-stat';

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
    const stat = readStat(`/proc/${entry}/stat`);
    if (!stat || Number(stat.fields[1]) !== nodePid) continue; // gone meanwhile, or not a child
    if (stat.comm.startsWith('temporal')) out.temporal = Number(entry);
    if (stat.comm.startsWith('ferretdb')) out.ferretdb = Number(entry);
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

/**
 * CPU seconds so far of the service's process tree, by part: the Node main thread (API, proxy,
 * activities), the workflow thread (a Node worker the SDK starts after its core: Node does not
 * name it, so the Node threads started after the core's own count as it), the SDK's core (its Rust
 * threads), Node's other threads (GC helpers, libuv's pool), and the servers. Where a refresh's CPU goes.
 * A thread that ends between two readings drops out of its part's sum: read the parts of long-lived threads.
 */
export function cpuByPart(nodePid: number): Record<string, number> {
  const parts: Record<string, number> = { main: 0, 'workflow thread': 0, 'sdk core': 0, 'node other': 0, temporal: 0, ferretdb: 0 };
  const threads = tasksOf(nodePid).sort((a, b) => a - b).flatMap((tid) => {
    const stat = threadStat(nodePid, tid);
    return stat ? [{ tid, ...stat }] : [];
  });
  const core = (comm: string) => /^(tokio|temporal|workflow-proces)/.test(comm);
  const coreStarted = threads.find((t) => core(t.comm))?.tid ?? Infinity;
  for (const { tid, comm, cpuS } of threads) {
    const part = tid === nodePid ? 'main' : core(comm) ? 'sdk core' : tid > coreStarted ? 'workflow thread' : 'node other';
    parts[part]! += cpuS;
  }
  const tree = serviceTree(nodePid);
  for (const server of ['temporal', 'ferretdb'] as const) {
    const pid = tree[server];
    if (pid) parts[server] = tasksOf(pid).reduce((sum, tid) => sum + (threadStat(pid, tid)?.cpuS ?? 0), 0);
  }
  return parts;
}

function tasksOf(pid: number): number[] {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return [];
  }
}

function threadStat(pid: number, tid: number): { comm: string; cpuS: number } | null {
  const stat = readStat(`/proc/${pid}/task/${tid}/stat`);
  return stat && { comm: stat.comm, cpuS: cpuMsOf(stat) / 1000 };
}
