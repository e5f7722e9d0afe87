// How the API reads Temporal's answers: a refused Update (validator), a failed connect, a
// workflow that no longer exists, Temporal being unreachable or not answering. The failure types
// and their HTTP statuses are the contract's (contract/failures.ts).
import { WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE_HTTP, isFailureType } from '../contract/failures';
import { ProblemError } from '../contract/problem';
import { isUpdateLost, isWorkflowGone } from '../platform/workflow-gone';
import type { ConnectFailureDetails } from '../workflows/connect-job';

export function toProblemError(err: unknown): unknown {
  if (isWorkflowGone(err)) return new ProblemError(404, 'no such connector');
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
    return fromFailure(err.cause);
  }
  if (isUnavailable(err)) return new ProblemError(503, 'the workflow service is unavailable; try again');
  if (isOutcomeUnknown(err)) {
    return new ProblemError(503, 'the workflow service did not answer; the change may still take effect: read the connector before trying again');
  }
  return err;
}

function fromFailure(failure: ApplicationFailure): ProblemError {
  const details = failure.details?.[0] as Partial<ConnectFailureDetails> | undefined;
  if (!isFailureType(failure.type)) return new ProblemError(500, failure.message);
  const { status, slug } = FAILURE_HTTP[failure.type];
  return new ProblemError(status, failure.message, slug, undefined, recordExtension(details));
}

/** A failed connect carries the record as it now is (`disconnected`, with the reason). */
function recordExtension(details: Partial<ConnectFailureDetails> | undefined): Record<string, unknown> {
  return details?.record ? { connector_state: details.record.state, disconnect_reason: details.record.disconnect_reason } : {};
}

export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: number; cause?: { code?: number }; name?: string };
  return e.code === 14 || e.cause?.code === 14 || e.name === 'ServiceError';
}

/**
 * The Update's call ran out of time, its connection closed under it (this process stopping), or
 * the service lost it: the workflow may have taken it all the same.
 */
export function isOutcomeUnknown(err: unknown): boolean {
  return err instanceof WorkflowUpdateRPCTimeoutOrCancelledError || isUpdateLost(err);
}
