// A pass that runs at start and then every interval, never two at once; a failing pass is logged
// and tried again at the next tick, never taking the worker down. The workload reconciler and the
// expiry sweep are both this loop around their own pass.
import type { Logger } from '../platform/logger';

export interface PeriodicPass<T, A extends unknown[]> {
  /** One pass now (also what the timer runs); a call while one is under way shares it. */
  runOnce(...args: A): Promise<T>;
  /** Resolves when the pass under way (if any) has finished; no pass starts after it. */
  stop(): Promise<void>;
}

export function startPeriodicPass<T, A extends unknown[]>(options: {
  pass: (...args: A) => Promise<T>;
  /** What a failed or stopped pass answers. */
  nothing: T;
  intervalMs: number;
  logger: Logger;
  /** Names the pass in the failure's log line. */
  what: string;
}): PeriodicPass<T, A> {
  let running: Promise<T> | undefined;
  let stopped = false;
  const guarded = async (...args: A): Promise<T> => {
    try {
      return await options.pass(...args);
    } catch (error) {
      options.logger.warn({ err: (error as Error).message }, `${options.what} failed`);
      return options.nothing;
    }
  };
  const runOnce = (...args: A): Promise<T> => {
    if (stopped) return Promise.resolve(options.nothing);
    running ??= guarded(...args).finally(() => (running = undefined));
    return running;
  };
  void runOnce(...([] as unknown as A));
  const timer = setInterval(() => void runOnce(...([] as unknown as A)), options.intervalMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
