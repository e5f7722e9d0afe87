// The one place where a runtime's typed errors become Temporal failures with the types the API
// maps to status codes. Anything else stays as it is: a retryable error (a flaky API server, a
// port race) that the activity's retry policy gets another go at.
import { FAILURE } from '../../core/failures';
import { ApplicationFailure } from '@temporalio/common';

import { WorkloadExitedError, WorkloadSpecError, WorkloadTimeoutError } from './errors';

export function toActivityFailure(error: unknown): unknown {
  if (error instanceof WorkloadTimeoutError) return ApplicationFailure.nonRetryable(error.message, FAILURE.upstreamTimeout);
  if (error instanceof WorkloadSpecError) return ApplicationFailure.nonRetryable(error.message, FAILURE.unprocessable);
  if (error instanceof WorkloadExitedError) return ApplicationFailure.nonRetryable(error.message, FAILURE.upstreamError);
  return error;
}
