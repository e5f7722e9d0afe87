// The service the scale bench drives: the embedded stack as `npm start` runs it, and optionally
// worker processes (`npm run worker`, dist/worker.mjs) beside it, polling its task queue on its
// Temporal and writing to its FerretDB, as the chart's worker replicas do. Each worker caches the
// workflows it was handed, so each walks only its share of them on every input (the SDK core's
// cache walk, docs/scale.md); whether that pays for another process on 2 cores is what
// BENCH_EXTRA_WORKERS measures.
import fs from 'node:fs';
import path from 'node:path';
import { TIMED_LINES } from '../../platform/step-clock';
import { freePort } from '../../service/free-port';
import { startStackProcess, type StackProcess } from '../../test/helpers/for-bench';
import { cpuByPart, rssMb, serviceTree } from './processes';

export interface ScaleService {
  embedded: StackProcess;
  workers: StackProcess[];
  /** Every process's base URL: each serves /metrics of its own worker. */
  urls(): string[];
  /** CPU seconds by part, summed over the processes (the servers counted once, under the embedded stack). */
  cpu(): Record<string, number>;
  /** The extra workers' RSS in MB, for the memory lines. */
  workersRss(): number[];
  stop(): Promise<void>;
}

/** `nodeArgs`: npm start's node flags, which every process gets. */
export interface ScaleServiceOptions { env: Record<string, string>; nodeArgs: string[]; logDir: string; entry: string; extraWorkers: number }

export async function startScaleService(o: ScaleServiceOptions): Promise<ScaleService> {
  const embedded = await startStackProcess({ env: o.env, nodeArgs: o.nodeArgs, logFile: path.join(o.logDir, 'service.log'), entry: o.entry });
  const workers: StackProcess[] = [];
  try {
    const servers = o.extraWorkers ? embeddedServers(embedded.child.pid!) : null;
    for (let i = 0; i < o.extraWorkers; i += 1) {
      workers.push(await startStackProcess({
        entry: 'dist/worker.mjs', nodeArgs: o.nodeArgs, logFile: path.join(o.logDir, `worker-${i}.log`),
        env: { ...o.env, PORT: String(await freePort()), TEMPORAL_ADDRESS: servers!.temporal, MONGODB_URI: servers!.mongodb },
      }));
    }
  } catch (err) {
    for (const p of [...workers, embedded]) await p.stop();
    throw err;
  }
  const all = [embedded, ...workers];
  return {
    embedded, workers,
    urls: () => all.map((p) => p.baseUrl),
    cpu: () => {
      const sum: Record<string, number> = {};
      for (const p of all) for (const [part, s] of Object.entries(cpuByPart(p.child.pid!))) sum[part] = (sum[part] ?? 0) + s;
      return sum;
    },
    workersRss: () => workers.map((w) => rssMb(w.child.pid!) ?? NaN),
    // The workers first: the servers they use stop with the embedded stack.
    async stop() {
      await Promise.all(workers.map((w) => w.stop()));
      await embedded.stop();
    },
  };
}

/** The embedded servers' addresses, read off their command lines (the stack picks the ports). */
function embeddedServers(nodePid: number): { temporal: string; mongodb: string } {
  const tree = serviceTree(nodePid);
  const args = (pid: number | undefined) => (pid ? fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0') : []);
  const temporalArgs = args(tree.temporal);
  const temporalPort = temporalArgs.includes('--port') ? temporalArgs[temporalArgs.indexOf('--port') + 1] : undefined;
  const ferretListen = args(tree.ferretdb).find((a) => a.startsWith('--listen-addr='))?.split('=')[1];
  if (!temporalPort || !ferretListen) throw new Error('the embedded stack\'s Temporal or FerretDB was not found among its children');
  return { temporal: `127.0.0.1:${temporalPort}`, mongodb: `mongodb://${ferretListen}/` };
}

/**
 * The embedded stack's last stop and start, step by step, from the lines it logs at info
 * (platform/step-clock.ts): what a restart's seconds went on.
 */
export function restartSteps(logDir: string): string {
  const wanted: string[] = Object.values(TIMED_LINES);
  const last = new Map<string, string>();
  for (const line of fs.readFileSync(path.join(logDir, 'service.log'), 'utf8').split('\n')) {
    if (!line.includes('"tookMs"')) continue;
    const entry = JSON.parse(line) as { msg: string; tookMs: Record<string, number>; totalMs: number; sinceProcessStartMs?: number };
    if (!wanted.includes(entry.msg)) continue;
    const steps = Object.entries(entry.tookMs).map(([name, ms]) => `${name} ${ms}`).join(', ');
    const since = entry.sinceProcessStartMs === undefined ? '' : `; ${entry.sinceProcessStartMs} ms since the process began`;
    last.set(entry.msg, `${entry.msg} in ${entry.totalMs} ms (${steps}${since})`);
  }
  return wanted.filter((msg) => last.has(msg)).map((msg) => last.get(msg)).join('; ') || 'not logged';
}

