// The one test for "this connector's workflow no longer exists" (a deleted connector), shared by
// the API (404) and the proxy (not_found). Temporal says so in several ways: the SDK's
// WorkflowNotFoundError, gRPC NOT_FOUND (5) from the service, and, for an Update or a query sent to
// a workflow that has just completed, an error whose message says it completed.
//
// NOT_FOUND naming an Update is not that: the service lost the Update before the workflow answered
// it (its registry of Updates is cleared when the workflow leaves the service's cache or a task
// fails; a full-size start met it, docs/scale.md). The connector is there, and Temporal's remedy is
// to send the Update again.
import { WorkflowNotFoundError } from '@temporalio/common';

const GRPC_NOT_FOUND = 5;

interface MaybeServiceError { code?: unknown; cause?: { code?: unknown }; message?: unknown }

function isNotFound(err: unknown): boolean {
  const e = err as MaybeServiceError;
  return err instanceof WorkflowNotFoundError || e?.code === GRPC_NOT_FOUND || e?.cause?.code === GRPC_NOT_FOUND;
}

/** The service no longer knows an Update it was sent; the workflow may not have taken it. */
export function isUpdateLost(err: unknown): boolean {
  const message = (err as MaybeServiceError)?.message;
  return isNotFound(err) && typeof message === 'string' && /^update\b.*\b(not found|wasn't found)/i.test(message);
}

export function isWorkflowGone(err: unknown): boolean {
  if (isUpdateLost(err)) return false;
  if (isNotFound(err)) return true;
  const message = (err as MaybeServiceError)?.message;
  return typeof message === 'string' && /workflow (execution )?(already completed|not found)/i.test(message);
}
