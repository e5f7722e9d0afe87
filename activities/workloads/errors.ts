// The typed failures of a workload runtime: each class names its failure type (contract/failures.ts,
// whose table gives the API's status), so a runtime only has to pick a class.
import { FAILURE, TypedFailure } from '../../contract/failures';

/** The workload did not become ready in time; everything it created is gone again. */
export class WorkloadTimeoutError extends TypedFailure {
  readonly failure = FAILURE.upstreamTimeout;
}

/** The spec cannot run on this runtime, retrying will not help. */
export class WorkloadSpecError extends TypedFailure {
  readonly failure = FAILURE.unprocessable;
}

/** The stdio server ended before it became ready, e.g. "stdio server exited with code 1". */
export class WorkloadExitedError extends TypedFailure {
  readonly failure = FAILURE.upstreamError;
}

/** "the stdio workload did not become ready within 60 s" */
export function readinessTimeoutMessage(timeoutMs: number, hint?: string): string {
  const seconds = Number((timeoutMs / 1000).toFixed(1));
  const base = `the stdio workload did not become ready within ${seconds} s`;
  return hint ? `${base} (${hint})` : base;
}
