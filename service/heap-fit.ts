// The workflow cache lives in the workflow thread's V8 heap, whose limit is the process's
// (--max-old-space-size applies to every isolate). A cache larger than that heap would not
// shrink memory use: it would end the worker with an out-of-memory crash under load. So a
// worker refuses at start a cache its heap cannot hold, naming both settings.
import v8 from 'node:v8';
import { CACHED_WORKFLOW_KB, ConfigError } from '../config/config';

/** What the workflow thread holds besides the cache: the bundle's code and the SDK (measured ~40 MB). */
export const WORKFLOW_THREAD_BASE_MB = 64;

export function heapNeededMb(maxCachedWorkflows: number): number {
  return WORKFLOW_THREAD_BASE_MB + Math.ceil((maxCachedWorkflows * CACHED_WORKFLOW_KB) / 1024);
}

export function assertHeapHoldsCache(maxCachedWorkflows: number, heapLimitBytes = v8.getHeapStatistics().heap_size_limit): void {
  const limitMb = Math.floor(heapLimitBytes / 1048576);
  const needed = heapNeededMb(maxCachedWorkflows);
  if (limitMb >= needed) return;
  throw new ConfigError(
    `the workflow cache (${maxCachedWorkflows} workflows, from CONNECTOR__WORKER_MEMORY_BUDGET_MB or CONNECTOR__MAX_CACHED_WORKFLOWS) ` +
    `needs a V8 heap of ${needed} MB, but node runs with ${limitMb} MB: raise --max-old-space-size (CONNECTOR__HEAP_MB for npm start and npm run worker) or lower the budget`,
  );
}
