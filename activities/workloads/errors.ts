// The typed failures of a workload runtime. The activity wrappers map each class to one failure
// type the API turns into a status code (see failures.ts), so a runtime only has to pick a class.

/** The workload did not become ready in time; everything it created is gone again (→ 504). */
export class WorkloadTimeoutError extends Error {
  override name = 'WorkloadTimeoutError';
}

/** The spec cannot run on this runtime, retrying will not help (→ 422). */
export class WorkloadSpecError extends Error {
  override name = 'WorkloadSpecError';
}

/** The stdio server ended before it became ready, e.g. "stdio server exited with code 1" (→ 502). */
export class WorkloadExitedError extends Error {
  override name = 'WorkloadExitedError';
}

/** "the stdio workload did not become ready within 60 s" */
export function readinessTimeoutMessage(timeoutMs: number, hint?: string): string {
  const seconds = Number((timeoutMs / 1000).toFixed(1));
  const base = `the stdio workload did not become ready within ${seconds} s`;
  return hint ? `${base} (${hint})` : base;
}
