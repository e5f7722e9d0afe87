// How the API reads Temporal's answers: a refused Update (validator), a failed connect, a
// workflow that no longer exists, Temporal being unreachable.
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { ProblemError } from '../core/problem';
import { FAILURE, type ConnectorView } from '../workflows/messages';

export function toProblemError(err: unknown): unknown {
  if (err instanceof WorkflowNotFoundError || isNotFound(err)) return new ProblemError(404, 'no such connector');
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
    return fromFailure(err.cause);
  }
  if (isUnavailable(err)) return new ProblemError(503, 'the workflow service is unavailable; try again');
  return err;
}

function fromFailure(failure: ApplicationFailure): ProblemError {
  const details = failure.details?.[0] as { status?: number; record?: ConnectorView } | undefined;
  switch (failure.type) {
    case FAILURE.invalidTransition:
      return new ProblemError(409, failure.message, 'invalid-state');
    case FAILURE.cancelled:
      return new ProblemError(409, failure.message, 'cancelled', undefined, recordExtension(details));
    case FAILURE.upstreamTimeout:
      return new ProblemError(504, failure.message, 'upstream-timeout', undefined, recordExtension(details));
    case FAILURE.unprocessable:
      return new ProblemError(422, failure.message, 'unprocessable', undefined, recordExtension(details));
    case FAILURE.upstreamError:
      return new ProblemError(502, failure.message, 'upstream-error', undefined, recordExtension(details));
    default:
      return new ProblemError(details?.status ?? 500, failure.message);
  }
}

/** A failed connect carries the record as it now is (`disconnected`, with the reason). */
function recordExtension(details: { record?: ConnectorView } | undefined): Record<string, unknown> {
  return details?.record ? { connector_state: details.record.state, disconnect_reason: details.record.disconnect_reason } : {};
}

function isNotFound(err: unknown): boolean {
  const e = err as { code?: number; cause?: { code?: number }; message?: string };
  return e.code === 5 || e.cause?.code === 5 || /workflow execution already completed/i.test(e.message ?? '');
}

function isUnavailable(err: unknown): boolean {
  const e = err as { code?: number; cause?: { code?: number }; name?: string };
  return e.code === 14 || e.cause?.code === 14 || e.name === 'ServiceError';
}
