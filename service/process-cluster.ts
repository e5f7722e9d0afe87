// One role as N processes on one port (node:cluster): the primary only forks and replaces its
// workers; each worker runs the role as a single process would (its own route cache, pools and
// series) and listens on the same port, which the primary's round-robin hands connections to.
// A worker that dies is replaced, a second later when it died young (a crash at start-up must
// not spin); SIGTERM/SIGINT stop the workers and then the primary.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../platform/logger';

const YOUNG_MS = 5_000;
const RESTART_DELAY_MS = 1_000;

export function superviseWorkers(count: number, logger: Logger): void {
  let stopping = false;
  const startedAt = new Map<Worker, number>();
  const fork = () => {
    const worker = cluster.fork();
    startedAt.set(worker, Date.now());
  };
  cluster.on('exit', (worker, code, signal) => {
    const age = Date.now() - (startedAt.get(worker) ?? 0);
    startedAt.delete(worker);
    if (stopping) {
      if (startedAt.size === 0) process.exit(0);
      return;
    }
    logger.warn({ pid: worker.process.pid, code, signal }, 'a proxy process exited; starting another');
    setTimeout(fork, age < YOUNG_MS ? RESTART_DELAY_MS : 0);
  });
  for (let i = 0; i < count; i++) fork();
  logger.info({ processes: count }, `proxy running as ${count} processes on one port`);
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    if (startedAt.size === 0) process.exit(0);
    for (const worker of startedAt.keys()) worker.process.kill(signal);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
