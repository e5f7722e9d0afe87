// The activity boundary of the failure family: a TypedFailure becomes an ApplicationFailure of its
// type, retryable only when transient (workflows/activity-proxies.ts lists the others as
// non-retryable). Anything else passes unchanged, for the retry policy to try again.
import { ApplicationFailure } from '@temporalio/common';
import { TypedFailure } from '../contract/failures';

export function toApplicationFailure(err: unknown): unknown {
  if (!(err instanceof TypedFailure)) return err;
  return ApplicationFailure.create({
    type: err.failure, message: err.message, nonRetryable: !err.retryable, details: err.failureDetails(),
  });
}

/** Runs `work`, throwing its typed failures as ApplicationFailures. */
export async function withTypedFailures<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw toApplicationFailure(err);
  }
}
