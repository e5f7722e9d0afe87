// CPU time per item, by process: the bench process (API, worker and both loops' clients), the
// Temporal dev server, FerretDB and the upstream MCP server. On a machine whose cores all these
// share, throughput follows CPU per item, so this says where a loop's time goes. Linux only
// (/proc); elsewhere the meter reports nothing.
import { cpuMsOf, readStat } from '../proc-stat';

export type CpuSample = Record<string, number>;

export function cpuMeter(pids: Record<string, number | null>): () => CpuSample | null {
  const watched = Object.entries(pids).filter((entry): entry is [string, number] => entry[1] !== null);
  return () => {
    try {
      const sample: CpuSample = {};
      for (const [name, pid] of watched) sample[name] = processCpuMs(pid);
      const self = process.cpuUsage();
      sample.bench = (self.user + self.system) / 1000;
      return sample;
    } catch {
      return null;
    }
  };
}

function processCpuMs(pid: number): number {
  const stat = readStat(`/proc/${pid}/stat`);
  if (!stat) throw new Error(`process ${pid} is gone`);
  return cpuMsOf(stat);
}

/** Adds what was spent between two samples to a running total. */
export function addSpent(total: CpuSample, before: CpuSample | null, after: CpuSample | null): void {
  if (!before || !after) return;
  for (const key of Object.keys(after)) total[key] = (total[key] ?? 0) + after[key]! - (before[key] ?? 0);
}
